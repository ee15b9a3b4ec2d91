package dev.tracegate.engine.monitor;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One monitored session. Its whole state is a published {@link SessionState} named by one 64-bit
 * head word (version and arena slot), replaced by compare-and-set; see {@link SessionMonitor}.
 * Any thread may call any method.
 */
public final class Session {
    static final int SLOT_BITS = 28;
    static final long SLOT_MASK = (1L << SLOT_BITS) - 1;
    static final long CLOSED = -1L;

    private static final VarHandle HEAD;
    private static final VarHandle LAST_ACCESS;
    private static final VarHandle OFFERED;

    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(Session.class, "head", long.class);
            LAST_ACCESS = l.findVarHandle(Session.class, "lastAccess", long.class);
            OFFERED = l.findVarHandle(Session.class, "offered", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final String id;
    @SuppressWarnings("unused") private volatile long head;
    @SuppressWarnings("unused") private long lastAccess;
    @SuppressWarnings("unused") private volatile long offered;
    /** Versions of the head that are not applied events: two per {@link SessionMonitor#undo} (the step taken back and the undo itself; the version never goes back). */
    private volatile long undone;

    Session(String id, int slot) {
        this.id = id;
        HEAD.setRelease(this, (long) slot);
    }

    public String id() { return id; }

    /** Whether the session has ended (explicitly or by eviction). */
    public boolean isClosed() { return lvHead() == CLOSED; }

    /** Number of events applied so far (steps taken back by an undo not counted). */
    public long applied() {
        long h = lvHead();
        return h == CLOSED ? -1 : (h >>> SLOT_BITS) - undone;
    }

    /** Counts a step taken back; called by the undoing thread before it publishes the previous state. */
    void countUndo(long delta) { undone += delta; }   // one writer at a time: the session's undoing worker, right after its step

    /**
     * Work of the caller's still running in this session (e.g. tool calls let run whose results have not come), kept by
     * the caller under the session's monitor: a held session is ended as idle ({@link SessionMonitor#evictIdle}) only when
     * unused since the sweep's held cutoff, to make room only when no session without holds can make it, or explicitly;
     * its end report counts the holds left. A plain field: its writers hold the monitor, and the sweeps read it there.
     */
    private int holds;

    /** One more piece of work running in this session (call under the session's monitor). */
    public void hold() { holds++; }

    /** One piece of work has finished (call under the session's monitor); more releases than holds are ignored. */
    public void release() { if (holds > 0) holds--; }

    /** Whether work is running in this session (read under the session's monitor). */
    public boolean held() { return holds > 0; }

    /** How many pieces of work are running in this session (read under the session's monitor; elsewhere a hint). */
    public int holds() { return holds; }

    /** Records that the session was used at {@code millis} (any clock the caller keeps; used for idle eviction). */
    public void touch(long millis) { LAST_ACCESS.setOpaque(this, millis); }

    public long lastAccess() { return (long) LAST_ACCESS.getOpaque(this); }

    /** How many sequence numbers {@link #nextSequence()} has handed out. */
    public long offered() { return (long) OFFERED.getVolatile(this); }

    /** The next sequence number for an event offered to this session (1, 2, ...), applied or not. */
    public long nextSequence() { return (long) OFFERED.getAndAdd(this, 1L) + 1; }

    long lvHead() { return (long) HEAD.getAcquire(this); }

    /** A plain-ordered re-read of the head, for validation after a load-load fence. */
    long lpHead() { return (long) HEAD.getOpaque(this); }

    boolean casHead(long expect, long update) { return HEAD.compareAndSet(this, expect, update); }

    static int slotOf(long head) { return (int) (head & SLOT_MASK); }

    static long next(long head, int slot) { return (((head >>> SLOT_BITS) + 1) << SLOT_BITS) | slot; }

    @Override public String toString() { return "Session[" + id + "]"; }
}
