package dev.tracegate.bench.agent;

import example.host.AssistantTools;
import example.host.ScriptedSupportModel;
import example.host.SupportAssistant;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * One invocation of a LangChain4j AI service ({@link SupportAssistant}) end to end, with the agent
 * attached or not (same JVM flags otherwise): the user message goes to a scripted chat model, which
 * asks for one tool call; LangChain4j runs the real {@code @Tool} method ({@link AssistantTools}) and
 * calls the model again, which answers. With the agent attached that is four events per invocation
 * (USER, CALL, RETURN, ASSISTANT). {@code passedInvocation} asks for a 3-argument search, which the
 * ten-contract library of bench/agent/tracegate.yaml (sop-refund and support-desk.yaml) lets through; {@code blockedInvocation} asks for a refund with no approval, which
 * the agent blocks, so the tool body does not run and the model sees the block message instead.
 * {@code passedInvocationVaried} is the passed one with a different question each invocation (4,096 in turn),
 * which the model turns into a search for that text: the same user message and tool arguments every time let
 * every cache derived from their text (audit pseudonyms, verdict memo) hit, which a real conversation does not.
 * The setup checks that the fork really runs as its parameter says, and the teardown that no blocked
 * refund ran while attached and every measured search did.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ToolLoopBenchmark {

    /** The user message of a passed invocation (the model answers it with a search). */
    public static final String ASK_SEARCH = "How do I return a damaged mug?";
    /** The user message of a blocked invocation (the model answers it with a refund). */
    public static final String ASK_REFUND = "Please refund order A-1234.";

    /** The host's AI service, its tools and the conversation the invocations belong to. */
    @State(Scope.Thread)
    public static class Service {
        /** detached (no agent) or attached (-javaagent with bench/agent/tracegate.yaml). */
        @Param({"detached", "attached"})
        public String agent;

        AssistantTools tools;
        SupportAssistant assistant;
        String conversation;
        long searchesBefore;
        long searchInvocations;
        long refundsBefore;
        long refundInvocations;
        /** The varied invocation's questions, in turn. */
        final String[] questions = questions();
        int next;

        @Setup(Level.Trial)
        public void setUp() {
            String launched = System.getProperty("bench.agent", "detached");
            if (!launched.equals(agent)) {
                throw new IllegalStateException("this fork was launched with -Dbench.agent=" + launched + " but measures agent=" + agent
                        + "; run with -p agent=" + launched + " (bench/run.sh does)");
            }
            tools = new AssistantTools();
            assistant = SupportAssistant.create(new ScriptedSupportModel(), tools);
            conversation = "bench-lc4j-" + ProcessHandle.current().pid();
            String searched = assistant.chat(conversation, ASK_SEARCH);
            if (!searched.equals(ScriptedSupportModel.DONE + "found 3 articles") || tools.searches() != 1) {
                throw new IllegalStateException("agent=" + agent + ": a search invocation answered '" + searched + "' after "
                        + tools.searches() + " search runs; expected the tool's result after exactly one run");
            }
            String refunded = assistant.chat(conversation, ASK_REFUND);
            boolean blocked = tools.refunds() == 0;
            if (blocked != agent.equals("attached") || blocked == refunded.equals(ScriptedSupportModel.DONE + "refunded")) {
                throw new IllegalStateException("agent=" + agent + " but a refund without approval was " + (blocked ? "blocked" : "not blocked")
                        + " (answer '" + refunded + "'): the agent is " + (blocked ? "" : "not ") + "active in this JVM");
            }
            // the forks of one JMH invocation share its audit path: start this fork's measurement on a new file
            FreshAuditFile.renew(() -> assistant.chat(conversation, ASK_SEARCH));
            searchesBefore = tools.searches();
            refundsBefore = tools.refunds();
        }

        /** How many times the search and the refund tool bodies ran so far. */
        public long[] toolRuns() { return new long[] {tools.searches(), tools.refunds()}; }

        /** For the smoke test: counts an invocation that did not happen, which {@link #check()} must notice. */
        void countOneMoreSearchInvocation() { searchInvocations++; }

        /** After the trial: every measured search ran its tool body once, and a blocked refund never did. */
        @TearDown(Level.Trial)
        public void check() {
            long searches = tools.searches() - searchesBefore;
            long refunds = tools.refunds() - refundsBefore;
            if (searches != searchInvocations) {
                throw new IllegalStateException(searchInvocations + " search invocations ran the search tool " + searches + " times");
            }
            long expectedRefunds = agent.equals("attached") ? 0 : refundInvocations;
            if (refunds != expectedRefunds) {
                throw new IllegalStateException("agent=" + agent + ": " + refundInvocations + " refund invocations ran the refund tool "
                        + refunds + " times, expected " + expectedRefunds);
            }
        }
    }

    @Benchmark
    public String passedInvocation(Service s) {
        s.searchInvocations++;
        return s.assistant.chat(s.conversation, ASK_SEARCH);
    }

    @Benchmark
    public String passedInvocationVaried(Service s) {
        s.searchInvocations++;
        return s.assistant.chat(s.conversation, s.questions[s.next++ & (s.questions.length - 1)]);
    }

    /** 4,096 questions, each a search for one of {@link InterceptedCallBenchmark#queries()}. */
    static String[] questions() {
        String[] q = InterceptedCallBenchmark.queries();
        for (int i = 0; i < q.length; i++) q[i] = ScriptedSupportModel.SEARCH_FOR + q[i];
        return q;
    }

    @Benchmark
    public String blockedInvocation(Service s) {
        s.refundInvocations++;
        return s.assistant.chat(s.conversation, ASK_REFUND);
    }
}
