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
    /** The monitor's states, which the head's slot indexes (read by {@link #applied()}). */
    private final StateArena arena;
    @SuppressWarnings("unused") private volatile long head;
    @SuppressWarnings("unused") private long lastAccess;
    @SuppressWarnings("unused") private volatile long offered;

    Session(String id, int slot, StateArena arena) {
        this.id = id;
        this.arena = arena;
        HEAD.setRelease(this, (long) slot);
    }

    public String id() { return id; }

    /** Whether the session has ended (explicitly or by eviction). */
    public boolean isClosed() { return lvHead() == CLOSED; }

    /**
     * Number of events applied so far (steps taken back by an undo not counted), or -1 once the session has ended.
     * Read from the published state, validated against the head as a step's copy is, so it is the count of one
     * state the session has been in: an undo that fails, or one under way, does not show.
     */
    public long applied() {
        while (true) {
            final long h = lvHead();
            if (h == CLOSED) return -1;
            final long n = arena.get(slotOf(h)).applied;
            VarHandle.loadLoadFence();
            if (lpHead() == h) return n;
        }
    }

    /**
     * Work of the caller's still running in this session (e.g. tool calls let run whose results have not come), kept by
     * the caller under the session's monitor: a held session is ended as idle ({@link SessionMonitor#evictIdle}) only when
     * unused since the sweep's held cutoff, to make room only when no session without holds can make it, or explicitly;
     * its end report counts the holds left. Plain fields: their writers hold the monitor, and the sweeps read them there.
     *
     * <p>A hold is named by a key (the agent: the call id its CALL and RETURN share) and released only by the same key,
     * so a release whose hold this session never took (a RETURN of a call made before the agent attached) frees no other
     * work's hold. The first two keys in flight sit in two fields (no allocation: the common case is 0 to 2 calls at
     * once), further ones in an array made for the third. Holds without a key are counted, and released by count.
     */
    private int holds;
    /** Holds taken without a key ({@link #hold()}), part of {@link #holds}. */
    private int unnamed;
    /** The keys of two named holds (null: free). */
    private Object held0, held1;
    /** The keys of named holds beyond two (null until a third is in flight at once; null cells are free). */
    private Object[] heldMore;
    /**
     * The numbers of two holds named by a number ({@link #hold(long)}: the agent's generated call ids, kept as numbers so
     * that a call makes no String of its id; 0: free), up to an int's range (8 B a session, where two longs took 16);
     * further ones, and larger numbers, are held as {@link Long} keys.
     */
    private int heldNumber0, heldNumber1;

    /** One more piece of work running in this session, without a key (call under the session's monitor). */
    public void hold() { hold(null); }

    /**
     * One more piece of work running in this session, named {@code key} (call under the session's monitor); null: a
     * hold without a key. The same key may be held more than once (each release by it frees one).
     */
    public void hold(Object key) {
        holds++;
        if (key == null) unnamed++;
        else if (held0 == null) held0 = key;
        else if (held1 == null) held1 = key;
        else holdMore(key);
    }

    /**
     * One more piece of work running in this session, named by the number {@code key >= 1} (call under the session's
     * monitor): released by {@link #release(long)} with the same number, and by {@link #release(Object)} with
     * {@code Long.valueOf(key)}. No allocation for the first two in flight.
     */
    public void hold(long key) {
        if (key <= 0) throw new IllegalArgumentException("a hold's number is at least 1, not " + key);
        if (key <= Integer.MAX_VALUE && heldNumber0 == 0) { heldNumber0 = (int) key; holds++; }
        else if (key <= Integer.MAX_VALUE && heldNumber1 == 0) { heldNumber1 = (int) key; holds++; }
        else hold(Long.valueOf(key));
    }

    /** The work named by the number {@code key} has finished (call under the session's monitor): as {@link #release(Object)}. */
    public boolean release(long key) {
        if (key <= 0) return false;
        if (heldNumber0 == key) { heldNumber0 = 0; holds--; return true; }
        if (heldNumber1 == key) { heldNumber1 = 0; holds--; return true; }
        return release(Long.valueOf(key));
    }

    private void holdMore(Object key) {
        Object[] more = heldMore;
        if (more == null) more = heldMore = new Object[2];
        for (int i = 0; i < more.length; i++) {
            if (more[i] == null) { more[i] = key; return; }
        }
        Object[] grown = java.util.Arrays.copyOf(more, more.length * 2);
        grown[more.length] = key;
        heldMore = grown;
    }

    /** One piece of work without a key has finished (call under the session's monitor); more releases than holds are ignored. */
    public void release() { release(null); }

    /**
     * The work named {@code key} has finished (call under the session's monitor): true if a hold by that key was
     * released; a key this session does not hold releases nothing (null: one hold without a key, if any).
     */
    public boolean release(Object key) {
        if (key == null) {
            if (unnamed == 0) return false;
            unnamed--;
        } else if (key.equals(held0)) {
            held0 = null;
        } else if (key.equals(held1)) {
            held1 = null;
        } else if (!releaseMore(key)) {
            return false;
        }
        holds--;
        return true;
    }

    private boolean releaseMore(Object key) {
        Object[] more = heldMore;
        if (more == null) return false;
        for (int i = 0; i < more.length; i++) {
            if (key.equals(more[i])) { more[i] = null; return true; }
        }
        return false;
    }

    /** Whether work is running in this session (read under the session's monitor). */
    public boolean held() { return holds > 0; }

    /** How many pieces of work are running in this session, named or not (read under the session's monitor; elsewhere a hint). */
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
