package dev.tracegate.engine.monitor;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** Scratch objects: one per platform thread; lent and given back on threads that borrow (virtual ones). */
class ScratchTest {

    @Test
    void aPlatformThreadKeepsItsOwnObject() {
        AtomicInteger made = new AtomicInteger();
        Scratch<int[]> s = new Scratch<>(() -> new int[] {made.incrementAndGet()});
        int[] first = s.take();
        s.give(first);
        assertThat(s.take()).isSameAs(first);
        assertThat(s.take()).as("a platform thread's take is its ThreadLocal's, given back or not").isSameAs(first);
        assertThat(made).hasValue(1);
    }

    @Test
    void aBorrowingThreadGetsBackWhatWasGivenAndNoTwoHoldersShareOne() throws Exception {
        AtomicInteger made = new AtomicInteger();
        Scratch<int[]> s = new Scratch<>(() -> new int[] {made.incrementAndGet()}, () -> true);
        int[] a = s.take();
        s.give(a);
        assertThat(s.take()).as("given back, lent again: nothing new is built").isSameAs(a);
        assertThat(made).hasValue(1);

        // many borrowers at once never hold the same object
        int threads = 8, rounds = 2_000;
        Set<int[]> held = Collections.newSetFromMap(new IdentityHashMap<>());
        List<String> clashes = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch go = new CountDownLatch(1);
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try { go.await(); } catch (InterruptedException e) { return; }
                for (int i = 0; i < rounds; i++) {
                    int[] x = s.take();
                    synchronized (held) { if (!held.add(x)) clashes.add("lent twice: " + x[0]); }
                    synchronized (held) { held.remove(x); }
                    s.give(x);
                }
            });
            th.start();
            all.add(th);
        }
        go.countDown();
        for (Thread th : all) th.join();
        assertThat(clashes).isEmpty();
        assertThat(made.get()).as("built only while borrowers outnumbered the pool's spare objects").isLessThanOrEqualTo(1 + threads);
    }

    @Test
    void aFullPoolDropsWhatIsGivenBack() {
        Scratch<Object> s = new Scratch<>(Object::new, () -> true);
        List<Object> lent = new ArrayList<>();
        for (int i = 0; i < Scratch.SLOTS + 3; i++) lent.add(s.take());
        lent.forEach(s::give);
        Set<Object> given = Collections.newSetFromMap(new IdentityHashMap<>());
        given.addAll(lent);
        int reused = 0;
        for (int i = 0; i < Scratch.SLOTS + 3; i++) if (given.contains(s.take())) reused++;
        assertThat(reused).as("the pool kept its slots' worth, the rest was dropped").isEqualTo(Scratch.SLOTS);
    }
}
