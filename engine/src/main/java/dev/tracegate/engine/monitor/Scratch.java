package dev.tracegate.engine.monitor;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Supplier;

/**
 * Scratch objects for the thread at hand (a {@link Worker}, a grounding frame): a ThreadLocal's on a platform thread;
 * on a virtual thread, lent from a small lock-free pool and given back after the event, because a host that starts a
 * virtual thread per request would otherwise build new ones (several kilobytes) for every event. Pair each
 * {@link #take} with one {@link #give} of the same object on the same thread.
 */
public final class Scratch<T> {
    /** {@code Thread::isVirtual} on Java 21 and later; null before (no virtual threads). */
    private static final MethodHandle IS_VIRTUAL = isVirtual();
    /** Pool slots: a power of two, about four per CPU (at least 8): more threads than that step at once only when blocked. */
    static final int SLOTS = Integer.highestOneBit(Math.max(8, Runtime.getRuntime().availableProcessors() * 4 - 1) * 2);

    private final Supplier<T> make;
    private final ThreadLocal<T> local;
    private final AtomicReferenceArray<T> pool = new AtomicReferenceArray<>(SLOTS);
    /**
     * Whether the current thread borrows from the pool, when a test says (it lends on platform threads too); null: a
     * virtual thread borrows ({@link #virtual}, a static call: no lambda object for a cold event to read, session 18).
     */
    private final java.util.function.BooleanSupplier lends;

    public Scratch(Supplier<T> make) {
        this(make, null);
    }

    Scratch(Supplier<T> make, java.util.function.BooleanSupplier lends) {
        this.make = make;
        this.local = ThreadLocal.withInitial(make);
        this.lends = lends;
    }

    /** This thread's object; on a virtual thread one from the pool, or a new one when the pool has none to lend. */
    public T take() {
        if (!lends()) return local.get();
        int start = (int) Thread.currentThread().getId();
        for (int i = 0; i < SLOTS; i++) {
            int k = (start + i) & (SLOTS - 1);
            T t = pool.get(k);
            if (t != null && pool.compareAndSet(k, t, null)) return t;
        }
        return make.get();
    }

    /** Gives back what {@link #take} lent this thread (nothing to do on a platform thread); dropped when the pool is full. */
    public void give(T t) {
        if (t == null || !lends()) return;
        int start = (int) Thread.currentThread().getId();
        for (int i = 0; i < SLOTS; i++) {
            int k = (start + i) & (SLOTS - 1);
            if (pool.get(k) == null && pool.compareAndSet(k, null, t)) return;
        }
    }

    private boolean lends() {
        return lends == null ? virtual() : lends.getAsBoolean();
    }

    /** Whether the current thread is virtual. */
    static boolean virtual() {
        if (IS_VIRTUAL == null) return false;
        try {
            return (boolean) IS_VIRTUAL.invokeExact(Thread.currentThread());
        } catch (Throwable e) {
            return false;
        }
    }

    private static MethodHandle isVirtual() {
        try {
            return MethodHandles.publicLookup().findVirtual(Thread.class, "isVirtual", MethodType.methodType(boolean.class));
        } catch (ReflectiveOperationException e) {
            return null;   // Java 17 to 20
        }
    }
}
