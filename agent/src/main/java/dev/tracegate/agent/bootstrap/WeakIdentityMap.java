package dev.tracegate.agent.bootstrap;

import java.lang.ref.ReferenceQueue;
import java.lang.ref.WeakReference;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A concurrent map whose keys are held weakly and compared by identity (a class loader, a framework's scope object): an
 * entry goes once its key is collected, and the map keeps no key, nor so its class loader, alive. For look-ups on every
 * event where a {@code Collections.synchronizedMap(new WeakHashMap())} took one JVM-wide lock and called the key's own
 * {@code hashCode}/{@code equals} under it.
 * <p>
 * Any thread may call any method. {@link #get} takes no lock and allocates nothing (a per-thread probe, emptied after
 * each look-up, stands in for the key); {@link #putIfAbsent} allocates the entry's weak key. Entries of collected keys are
 * dropped by the next {@link #putIfAbsent} or {@link #size} (their values stay until then: keep values small and free of
 * class loaders). JDK types only: it lives on the bootstrap path beside the dispatcher.
 */
public final class WeakIdentityMap<K, V> {
    private final ConcurrentHashMap<Object, V> map = new ConcurrentHashMap<Object, V>();
    private final ReferenceQueue<Object> collected = new ReferenceQueue<Object>();
    /** This thread's probe; its key is set only for the duration of one {@link #get}. */
    private final ThreadLocal<Probe> probes = new ThreadLocal<Probe>() {
        @Override
        protected Probe initialValue() {
            return new Probe();
        }
    };

    /** The value of {@code key} (by identity), or null. No lock, no allocation. */
    public V get(K key) {
        if (key == null) {
            return null;
        }
        Probe probe = probes.get();
        probe.key = key;
        probe.hash = System.identityHashCode(key);
        try {
            return map.get(probe);
        } finally {
            probe.key = null;   // the thread keeps no key alive
        }
    }

    /** Maps {@code key} (by identity) to {@code value} unless it has a value: returns that value, or null when {@code value} went in. */
    public V putIfAbsent(K key, V value) {
        if (key == null || value == null) {
            throw new NullPointerException();
        }
        expunge();
        return map.putIfAbsent(new Held(key, collected), value);
    }

    /** Removes the entry of {@code key} (by identity) if its value is {@code value}. */
    public boolean remove(K key, V value) {
        if (key == null || value == null) {
            return false;
        }
        Probe probe = probes.get();
        probe.key = key;
        probe.hash = System.identityHashCode(key);
        try {
            return map.remove(probe, value);
        } finally {
            probe.key = null;
        }
    }

    /** Removes every entry. */
    public void clear() {
        map.clear();
    }

    /** How many entries of keys not yet collected (it drops those of collected keys first). */
    public int size() {
        expunge();
        return map.size();
    }

    private void expunge() {
        for (Object gone; (gone = collected.poll()) != null; ) {
            map.remove(gone);   // by the weak key's own identity: a later entry of another key is never hit
        }
    }

    /** A stored key: weak, hashed by its referent's identity, equal to a probe or key of the same referent. */
    private static final class Held extends WeakReference<Object> {
        private final int hash;

        Held(Object key, ReferenceQueue<Object> queue) {
            super(key, queue);
            this.hash = System.identityHashCode(key);
        }

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            if (other == this) {
                return true;
            }
            Object key = get();
            if (key == null) {
                return false;   // collected: equal to nothing but itself (its removal)
            }
            return other instanceof Held ? ((Held) other).get() == key : other instanceof Probe && ((Probe) other).key == key;
        }
    }

    /** A look-up key: a map asks {@code probe.equals(stored)}, so it compares by the referent without a weak reference. */
    private static final class Probe {
        Object key;
        int hash;

        @Override
        public int hashCode() {
            return hash;
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof Held && ((Held) other).get() == key && key != null;
        }
    }
}
