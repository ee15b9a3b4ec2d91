package dev.tracegate.engine.monitor;

import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Every {@link SessionState} of one monitor, addressable by a stable int slot so that a session's
 * head can name its state in one CAS-able word together with a version (no ABA). States are reused:
 * a freed state is handed to the next new session or worker. Thread-safe; growth is lock-free.
 */
final class StateArena {
    private static final int CHUNK_BITS = 12;
    private static final int CHUNK = 1 << CHUNK_BITS;

    private final int packedWords;
    private final int words;
    private final int refs;
    private final AtomicInteger nextSlot = new AtomicInteger();
    // not JCTools' MPMC queue: it reaches sun.misc.Unsafe (JEP 471/498); one node per freed state, i.e. per session, not per event
    private final ConcurrentLinkedQueue<SessionState> free = new ConcurrentLinkedQueue<>();
    private volatile SessionState[][] chunks = new SessionState[16][];

    /** States of {@code packedWords} packed longs (no unpacked {@link SessionState#states}), {@code words} counters and {@code refs} context values. */
    StateArena(int packedWords, int words, int refs) {
        this.packedWords = packedWords;
        this.words = words;
        this.refs = refs;
    }

    /** The state in {@code slot}; the slot must have been published through a volatile write. */
    SessionState get(int slot) {
        return chunks[slot >>> CHUNK_BITS][slot & (CHUNK - 1)];
    }

    /** A state owned by the caller: a freed one, or a new one. Contents are arbitrary. */
    SessionState take() {
        SessionState s = free.poll();
        return s != null ? s : create();
    }

    /** Returns a state nobody will write or publish again. */
    void release(SessionState s) { free.offer(s); }

    int capacityUsed() { return nextSlot.get(); }

    private SessionState create() {
        int slot = nextSlot.getAndIncrement();
        if (slot > Session.SLOT_MASK) throw new IllegalStateException("more than " + Session.SLOT_MASK + " session states");
        SessionState s = new SessionState(0, packedWords, words, refs, slot);
        int c = slot >>> CHUNK_BITS;
        while (true) {
            SessionState[][] cs = chunks;
            if (c < cs.length && cs[c] != null) {
                synchronizedStore(cs[c], slot & (CHUNK - 1), s);
                return s;
            }
            grow(cs, c);
        }
    }

    // The element write is published to readers by the session head CAS that names the slot.
    private static void synchronizedStore(SessionState[] chunk, int i, SessionState s) { chunk[i] = s; }

    private synchronized void grow(SessionState[][] seen, int c) {
        // Growth happens once per 4096 states; a short lock here keeps the steady path free of CAS loops.
        SessionState[][] cs = chunks;
        if (cs != seen && c < cs.length && cs[c] != null) return;
        SessionState[][] n = c < cs.length ? cs.clone() : java.util.Arrays.copyOf(cs, Math.max(cs.length * 2, c + 1));
        if (n[c] == null) n[c] = new SessionState[CHUNK];
        chunks = n;
    }
}
