package dev.tracegate.agent.audit;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.Objects;

/**
 * The audit log's bounded hand-off from the threads that make events to its one writer: a multi-producer,
 * single-consumer array queue whose producer stores its element without a method call between claiming the slot and
 * filling it.
 *
 * <p>Why not JCTools' {@code MpscAtomicArrayQueue}, whose shape this follows (a CAS on the producer index claims a
 * slot, then the element is stored): its store is a call ({@code soRefElement}, a VarHandle), and a host thread that is
 * nearly out of stack can throw a {@link StackOverflowError} at that call's entry when it is not inlined (the
 * interpreter, C1). The claimed slot then stays empty for ever and the single consumer, which must take slots in order,
 * waits on it: every later record is lost (session 10: an app overflowing its stack through a woven tool path stopped
 * the log after about 250 records). A StackOverflowError is thrown only where a method is entered (the stack bang), and
 * here nothing is entered after the claim's CAS has happened: the element goes in with a plain {@code aastore} in the
 * same frame. A producer that dies anywhere in {@link #offer} leaves either no claim or a filled slot (only an
 * asynchronous {@code Thread.stop}, which throws UnsupportedOperationException since Java 20, could still stop a
 * producer between the two; the writer would then wait on that slot).
 *
 * <p>Memory ordering: the element's fields are written before the producer's CAS of the tail; the consumer takes slot
 * {@code h} only after an acquiring read of the tail returned more than {@code h} (every CAS of the tail reads the one
 * before, so that read synchronizes with the CAS that claimed {@code h}); the slot itself may still read null for the
 * few instructions until the plain store lands, and {@link #poll} then returns null and is asked again. The consumer
 * empties a slot before its release of the head, which producers read (acquire) before they claim that slot again.
 *
 * <p>Threads: {@link #offer}, {@link #size} and {@link #accepted} from any thread; {@link #poll} and {@link #isEmpty}
 * only from the one consumer thread.
 */
final class AuditQueue<E> extends AuditQueuePad2 {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(Object[].class);

    private final Object[] slots;
    private final int mask;

    /** A queue for at least {@code capacity} elements (rounded up to a power of two). */
    AuditQueue(int capacity) {
        if (capacity < 2 || capacity > 1 << 30) throw new IllegalArgumentException("capacity must be in [2, 2^30], got " + capacity);
        int cap = Integer.highestOneBit(capacity - 1) << 1;
        slots = new Object[cap];
        mask = cap - 1;
        soLimit(cap);
    }

    /** The number of slots (the capacity asked for, rounded up to a power of two). */
    int capacity() { return slots.length; }

    /** Adds {@code e}; false if the queue is full. Lock-free. */
    boolean offer(E e) {
        Objects.requireNonNull(e, "e");
        final Object[] slots = this.slots;
        long limit = lvLimit();
        long t;
        do {
            t = lvTail();
            if (t >= limit) {
                limit = lvHead() + slots.length;   // acquire: the consumer emptied every slot below its head
                if (t >= limit) return false;
                soLimit(limit);
            }
        } while (!casTail(t, t + 1));
        slots[(int) t & mask] = e;   // no call between the claim above and this store: see the class comment
        return true;
    }

    /** The next element, or null if there is none yet. Consumer thread only. */
    @SuppressWarnings("unchecked")
    E poll() {
        final long h = lpHead();
        if (h >= lpTailSeen()) {
            long t = lvTail();   // acquire: see the class comment
            if (h >= t) return null;
            spTailSeen(t);
        }
        final Object[] slots = this.slots;
        final int i = (int) h & mask;
        final Object v = SLOT.getOpaque(slots, i);   // opaque: read again on each call, never hoisted
        if (v == null) return null;                    // claimed, its store a few instructions away
        SLOT.set(slots, i, null);
        soHead(h + 1);                                 // release: the slot is empty before producers may claim it again
        return (E) v;
    }

    /** Whether nothing was claimed beyond what was taken (a claim whose store is still landing counts as something). Consumer thread only. */
    boolean isEmpty() {
        return lpHead() >= lvTail();
    }

    /** Elements waiting (an estimate while producers are active). */
    int size() {
        long n = lvTail() - lvHead();
        return (int) Math.max(0, Math.min(n, slots.length));
    }

    /** Elements added so far: the tail, which every successful offer moved on by one. */
    long accepted() { return lvTail(); }

    /** Elements taken so far: the head, which every poll that returned an element moved on by one. Any thread. */
    long taken() { return lvHead(); }
}

/** Padding and the consumer's index, each on its own cache line away from the producers' tail (as in JCTools). */
abstract class AuditQueuePad0 {
    long p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p0a, p0b, p0c, p0d, p0e, p0f;
}

abstract class AuditQueueTail extends AuditQueuePad0 {
    private static final VarHandle TAIL, LIMIT;
    static {
        try {
            TAIL = MethodHandles.lookup().findVarHandle(AuditQueueTail.class, "tail", long.class);
            LIMIT = MethodHandles.lookup().findVarHandle(AuditQueueTail.class, "limit", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The index the next offer claims; written by producers only (CAS). */
    private volatile long tail;
    /** A head + capacity some producer saw: below it a claim needs no read of the consumer's head (a cache, as in JCTools). */
    private volatile long limit;

    final long lvTail() { return tail; }
    final boolean casTail(long expect, long next) { return TAIL.compareAndSet(this, expect, next); }
    final long lvLimit() { return limit; }
    final void soLimit(long l) { LIMIT.setRelease(this, l); }
}

abstract class AuditQueuePad1 extends AuditQueueTail {
    long p10, p11, p12, p13, p14, p15, p16, p17, p18, p19, p1a, p1b, p1c, p1d, p1e, p1f;
}

abstract class AuditQueueHead extends AuditQueuePad1 {
    private static final VarHandle HEAD;
    static {
        try {
            HEAD = MethodHandles.lookup().findVarHandle(AuditQueueHead.class, "head", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
    /** The index the consumer takes next; written by the consumer only. */
    private volatile long head;
    /** The consumer's last read of the tail: slots below it are claimed, so it reads the producers' line only when it catches up. */
    private long tailSeen;

    final long lvHead() { return head; }
    /** The consumer's own read: no ordering needed, it is the only writer. */
    final long lpHead() { return (long) HEAD.get(this); }
    final void soHead(long h) { HEAD.setRelease(this, h); }
    final long lpTailSeen() { return tailSeen; }
    final void spTailSeen(long t) { tailSeen = t; }
}

abstract class AuditQueuePad2 extends AuditQueueHead {
    long p20, p21, p22, p23, p24, p25, p26, p27, p28, p29, p2a, p2b, p2c, p2d, p2e, p2f;
}
