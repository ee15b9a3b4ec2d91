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
}
