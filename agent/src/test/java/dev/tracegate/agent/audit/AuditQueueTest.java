package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The audit log's hand-off: FIFO and bounded like a plain queue (against an ArrayDeque), exactly once under
 * concurrent producers, and never wedged by a producer that dies of a StackOverflowError inside offer.
 */
class AuditQueueTest {

    @ParameterizedTest
    @ValueSource(ints = {2, 3, 8, 1000})
    void oneThreadSeesWhatABoundedArrayDequeWouldSee(int asked) {
        AuditQueue<Integer> q = new AuditQueue<>(asked);
        int cap = q.capacity();
        assertThat(cap).isGreaterThanOrEqualTo(asked).isEqualTo(Integer.highestOneBit(asked - 1) << 1);
        long seed = new Random().nextLong();
        Random rnd = new Random(seed);
        ArrayDeque<Integer> model = new ArrayDeque<>();
        int next = 0;
        long accepted = 0;
        for (int op = 0; op < 200_000; op++) {
            // bias towards offers or polls in stretches, so the queue runs full and empty many laps over
            boolean offer = ((op / 997) % 2 == 0) ? rnd.nextInt(4) != 0 : rnd.nextInt(4) == 0;
            if (offer) {
                boolean room = model.size() < cap;
                assertThat(q.offer(next)).as("seed %d op %d: offer with %d of %d", seed, op, model.size(), cap).isEqualTo(room);
                if (room) {
                    model.add(next);
                    accepted++;
                }
                next++;
            } else {
                assertThat(q.isEmpty()).as("seed %d op %d", seed, op).isEqualTo(model.isEmpty());
                assertThat(q.poll()).as("seed %d op %d", seed, op).isEqualTo(model.poll());
            }
            assertThat(q.size()).as("seed %d op %d", seed, op).isEqualTo(model.size());
        }
        assertThat(q.accepted()).as("successful offers").isEqualTo(accepted);
    }

    @ParameterizedTest
    @ValueSource(ints = {2, 16, 1024})
    void concurrentProducersAreTakenExactlyOnceAndEachInItsOwnOrder(int capacity) throws Exception {
        AuditQueue<long[]> q = new AuditQueue<>(capacity);
        int producers = 4;
        int each = 50_000;
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> threads = new ArrayList<>();
        for (int p = 0; p < producers; p++) {
            final int id = p;
            Thread t = new Thread(() -> {
                await(start);
                for (int i = 0; i < each; i++) {
                    long[] e = {id, i};
                    while (!q.offer(e)) Thread.onSpinWait();
                }
            });
            t.start();
            threads.add(t);
        }
        start.countDown();
        int[] nextOf = new int[producers];
        long taken = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);   // only stops a hung test
        while (taken < (long) producers * each) {
            long[] e = q.poll();
            if (e == null) {
                if (System.nanoTime() > deadline) throw new AssertionError("taken " + taken + " of " + producers * each + ": the consumer waits for ever");
                Thread.onSpinWait();
                continue;
            }
            assertThat(e[1]).as("producer %d's elements in its order", e[0]).isEqualTo(nextOf[(int) e[0]]);
            nextOf[(int) e[0]]++;
            taken++;
        }
        for (Thread t : threads) t.join();
        assertThat(q.poll()).isNull();
        assertThat(q.accepted()).isEqualTo((long) producers * each);
    }

    /**
     * The bug this queue fixes: producers whose stacks run out inside offer. Each diver thread recurses to a depth just
     * short of where its stack ends (found first by recursing until it overflows) and offers there, a frame deeper
     * each time, so offers die of a StackOverflowError at every point inside. Every offer that returned true is taken,
     * each element at most once, and after all of it a healthy thread's offer is still taken: nothing is left waiting
     * on a slot that a dead producer claimed and never filled (JCTools' MpscAtomicArrayQueue, whose store after the
     * claim is a call, wedges here).
     */
    @Test
    void offersThatDieOfStackOverflowLeaveNoHoleTheConsumerWaitsOn() throws Exception {
        Diver d = new Diver(new AuditQueue<>(64));
        AtomicReference<Throwable> consumerFailure = new AtomicReference<>();
        BitSet takenIds = new BitSet();
        Thread consumer = new Thread(() -> {
            try {
                while (true) {
                    Integer e = d.q.poll();
                    if (e == null) { Thread.onSpinWait(); continue; }
                    if (e < 0) return;   // the healthy thread's last element
                    synchronized (takenIds) {
                        if (takenIds.get(e)) throw new AssertionError("element " + e + " taken twice");
                        takenIds.set(e);
                    }
                }
            } catch (Throwable t) {
                consumerFailure.set(t);
            }
        }, "consumer");
        consumer.setDaemon(true);
        consumer.start();
        for (long stack : new long[] {128 * 1024, 256 * 1024, 512 * 1024}) {
            for (int round = 0; round < 3; round++) {
                int deepest = d.run(stack, Integer.MAX_VALUE);   // how deep this stack goes now (the JIT changes frames)
                for (int j = 0; j <= 120; j++) d.run(stack, deepest - j);
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops a hung test
        boolean offered;
        while (!(offered = d.q.offer(-1)) && System.nanoTime() < deadline) Thread.onSpinWait();
        if (offered) consumer.join(TimeUnit.SECONDS.toMillis(60));
        assertThat(consumer.isAlive()).as("the consumer still waits after %d accepted offers and %d that died inside offer:"
                + " a slot was claimed and never filled", d.accepted.cardinality(), d.died).isFalse();
        assertThat(consumerFailure.get()).isNull();
        assertThat(d.died).as("offers that died of a StackOverflowError (the test must provoke some)").isPositive();
        BitSet missing = (BitSet) d.accepted.clone();   // divers joined: their writes are visible
        synchronized (takenIds) { missing.andNot(takenIds); }
        assertThat(missing.cardinality()).as("accepted elements never taken: %s", missing).isZero();
    }

    /**
     * Recurses to a given depth in a thread of a given stack size and offers there. Divers run one at a time (joined),
     * so plain fields do: near the end of the stack even a LongAdder's increment would overflow.
     */
    private static final class Diver {
        final AuditQueue<Integer> q;
        final BitSet accepted = new BitSet();
        private int nextId;
        private int pending = -1;   // the id whose offer is under way
        private int reached;        // the depth this dive reached
        long died;

        Diver(AuditQueue<Integer> q) { this.q = q; }

        /** One dive to {@code depth} (or until the stack ends); returns the depth reached. */
        int run(long stack, int depth) throws InterruptedException {
            reached = 0;
            pending = -1;
            Thread t = new Thread(null, () -> {
                try {
                    descend(depth);
                } catch (StackOverflowError e) {
                    if (pending >= 0) died++;   // inside offer: its element may or may not be in the queue
                }
            }, "diver", stack);
            t.start();
            t.join();
            return reached;
        }

        private void descend(int depth) {
            if (++reached < depth) {
                descend(depth);
                return;
            }
            int id = nextId++;
            pending = id;
            if (q.offer(id)) {
                pending = -1;
                accepted.set(id);   // may overflow: then the element is in the queue but not counted, which is fine
            }
        }
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
