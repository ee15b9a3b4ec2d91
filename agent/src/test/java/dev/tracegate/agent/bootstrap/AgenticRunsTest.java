package dev.tracegate.agent.bootstrap;

import dev.langchain4j.agentic.scope.AgenticScope;
import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** {@link AgenticRuns} with a stand-in of the module's scope (the real module: LangChain4jAgenticTest in it). */
class AgenticRunsTest {

    /** A scope as the module's: a memory id in a final field (a UUID without @MemoryId), identity equality. */
    public static final class Scope implements AgenticScope {
        final Object id;
        final AtomicInteger reads = new AtomicInteger();

        Scope(Object id) {
            this.id = id;
        }

        @Override
        public Object memoryId() {
            reads.incrementAndGet();
            return id;
        }
    }

    private static Map<Object, Object> managed(Scope scope) {
        Map<Object, Object> managed = new HashMap<>();
        managed.put(AgenticScope.class, scope);
        return managed;
    }

    /**
     * Review of f72cd93: each tool event of an AI service without @MemoryId inside a run scanned the managed parameters
     * (an iterator), called memoryId() reflectively and turned the UUID into text (a new String): per event. Now the scope's
     * memory id is read once per scope and the look-ups allocate nothing.
     */
    @Test
    void aRunsSessionIsReadOncePerScopeAndFoundWithoutAllocating() {
        UUID id = UUID.randomUUID();
        Scope scope = new Scope(id);
        Map<Object, Object> managed = managed(scope);
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, managed)).isEqualTo(id.toString());
        assertThat(AgenticRuns.conversation(null, managed)).isEqualTo(id.toString());
        assertThat(AgenticRuns.conversation("alice", managed)).as("an AI service's own memory id wins").isEqualTo("alice");

        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long thread = Thread.currentThread().getId();
        Runnable work = () -> {
            for (int i = 0; i < 100_000; i++) {
                if (AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, managed).isEmpty()) {
                    throw new AssertionError();
                }
            }
        };
        work.run();   // warm up
        long before = threads.getThreadAllocatedBytes(thread);
        work.run();
        long allocated = threads.getThreadAllocatedBytes(thread) - before;
        // an iterator or a UUID's text per event would be several MB here
        assertThat(allocated).as("bytes allocated by 100000 look-ups").isLessThan(64 * 1024);
        assertThat(scope.reads.get()).as("memoryId() calls").isEqualTo(1);
    }

    /** A plain AI service's managed parameters (none, or no scope among them): its own id, or "default". */
    @Test
    void withoutAScopeTheChatMemoryIdStands() {
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, null)).isEqualTo("default");
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, new HashMap<>())).isEqualTo("default");
        Map<Object, Object> other = new HashMap<>();
        other.put(String.class, "not a scope");
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, other)).isEqualTo("default");
    }

    private static java.util.List<Scope> seeAndRun(int n) {
        java.util.List<Scope> scopes = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            Scope scope = new Scope(i % 2 == 0 ? UUID.randomUUID() : "user-" + i);
            Map<Object, Object> managed = managed(scope);
            AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, managed);
            Object outer = AgenticRuns.enterRun();
            AgenticRuns.runStarts(scope, null, null);
            Object turn = AgenticRuns.invocationSession(AgenticRuns.NO_MEMORY_ID, managed, "example.Writer");
            AgenticRuns.answered(turn, "answer " + i);
            AgenticRuns.exitRun(outer);
            scopes.add(scope);
        }
        return scopes;
    }

    /**
     * The cache holds no scope: once the module lets its scopes go (a run's ended, an ephemeral scope dropped), their
     * entries go too, also of scopes whose runs started, answered and ended.
     */
    @Test
    void noScopeIsKeptOnceTheModuleLetsItGo() throws InterruptedException {
        int before = AgenticRuns.scopesHeld();
        java.util.List<Scope> held = seeAndRun(1000);
        assertThat(AgenticRuns.scopesHeld()).as("one entry per scope seen").isGreaterThanOrEqualTo(1000);
        held = null;
        WeakReference<Object> sentinel = new WeakReference<>(new Object());
        for (int i = 0; i < 50 && (sentinel.get() != null || AgenticRuns.scopesHeld() > before); i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(sentinel.get()).as("a collection ran").isNull();
        assertThat(AgenticRuns.scopesHeld()).isLessThanOrEqualTo(before);
    }

    /** A scope whose hashCode, once armed, waits: a look-up that calls it under a lock holds that lock. */
    public static final class StuckScope implements AgenticScope {
        final java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
        final java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        volatile boolean armed;

        @Override
        public Object memoryId() {
            return "stuck";
        }

        @Override
        public int hashCode() {
            if (armed) {
                inside.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return super.hashCode();
        }
    }

    /**
     * Review of 521efb0: every event inside an agentic run looked its scope up in a synchronized WeakHashMap: one JVM-wide
     * lock per event (and the scope's own hashCode called under it). Now the look-up takes no lock: a run's event goes on
     * while another thread is inside the look-up of another scope (here stuck in that scope's hashCode, which the map no
     * longer calls at all).
     */
    @Test
    void aRunsEventTakesNoLockThatAnotherRunsLookUpHolds() throws InterruptedException {
        Scope running = new Scope("user-running");
        Map<Object, Object> runningManaged = managed(running);
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, runningManaged)).isEqualTo("user-running");
        StuckScope stuck = new StuckScope();
        Map<Object, Object> stuckManaged = new HashMap<>();
        stuckManaged.put(AgenticScope.class, stuck);
        stuck.armed = true;
        Thread other = new Thread(() -> AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, stuckManaged));
        other.setDaemon(true);
        other.start();
        String[] seen = new String[1];
        Thread event = new Thread(() -> seen[0] = AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, runningManaged));
        event.setDaemon(true);
        try {
            // the new map never calls the scope's hashCode: the other look-up finishes on its own; the old one waits inside it
            boolean entered = false;
            for (int i = 0; i < 200 && !entered && other.isAlive(); i++) {
                entered = stuck.inside.await(10, java.util.concurrent.TimeUnit.MILLISECONDS);
            }
            event.start();
            event.join(20_000);   // a bound for the failure (the old map waits for good), no timing
            assertThat(event.isAlive()).as("the run's event waits for another scope's look-up").isFalse();
            assertThat(seen[0]).isEqualTo("user-running");
        } finally {
            stuck.armed = false;
            stuck.release.countDown();
            other.join();
            event.join();
        }
        assertThat(AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, stuckManaged)).isEqualTo("stuck");
    }

    /** Scopes seen from many threads at once: each gets one entry, its memory id read once, and every thread the same. */
    @Test
    void scopesSeenFromManyThreadsAtOnceHaveOneEntryEach() throws Exception {
        int threads = 4, scopes = 2000;
        java.util.List<Scope> all = new java.util.ArrayList<>();
        for (int i = 0; i < scopes; i++) {
            all.add(new Scope("many-" + i));
        }
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(threads);
        java.util.List<Thread> workers = new java.util.ArrayList<>();
        java.util.concurrent.ConcurrentLinkedQueue<String> wrong = new java.util.concurrent.ConcurrentLinkedQueue<>();
        for (int t = 0; t < threads; t++) {
            Thread w = new Thread(() -> {
                try {
                    start.await();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                for (int round = 0; round < 3; round++) {
                    for (Scope scope : all) {
                        String id = AgenticRuns.conversation(AgenticRuns.NO_MEMORY_ID, managed(scope));
                        if (!id.equals(scope.id)) {
                            wrong.add(id + " for " + scope.id);
                        }
                    }
                }
            });
            w.start();
            workers.add(w);
        }
        for (Thread w : workers) {
            w.join();
        }
        assertThat(wrong).isEmpty();
        for (Scope scope : all) {
            assertThat(scope.reads.get()).as("memoryId() calls of " + scope.id).isBetween(1, threads);
            assertThat(AgenticRuns.runs(scope)).as("one entry").isSameAs(AgenticRuns.runs(scope));
        }
    }
}
