package dev.tracegate.bench.agent;

import example.host.SupportTools;
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
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * A tool call of the host application end to end, with the agent attached or not (same JVM flags
 * otherwise): {@code passedCall} is a 3-argument call that the library lets through,
 * {@code blockedCall} a refund that the library blocks (the agent substitutes the result). The library is
 * bench/agent/tracegate.yaml's: ten contracts (the built-in sop-refund and bench/agent/support-desk.yaml),
 * seven of which read a search's or a refund's arguments.
 * {@code attached} runs the configuration as shipped (the audit queue blocks the calling thread when
 * full), {@code attached-audit-drop} the same with {@code audit.on-full=drop}, which shows the cost of
 * the interception itself when the audit writer cannot keep up.
 * The agent is attached by the JVM options of the fork, which {@code bench/run.sh} sets:
 * {@code -p agent=attached -jvmArgsAppend "-javaagent:... -Dbench.agent=attached"}. The setup checks
 * that the fork really runs as its parameter says (a refund is blocked exactly when attached), so a
 * missing or broken agent cannot pass for a fast one.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class InterceptedCallBenchmark {

    /** The host's tools and the session the calls belong to. */
    @State(Scope.Thread)
    public static class Host {
        /** detached; attached (the configuration as shipped: audit back-pressure); attached-audit-drop (audit.on-full=drop). */
        @Param({"detached", "attached", "attached-audit-drop"})
        public String agent;

        SupportTools tools;
        String session;
        final String[] queries = queries();
        int next;
        /** The blocked refund's arguments: non-final fields, as a host reads them from a parsed model answer (literals let C2 fold the call). */
        public String orderId = "A-1234";
        public double amount = 20.0;

        @Setup(Level.Trial)
        public void setUp() {
            String launched = System.getProperty("bench.agent", "detached");
            if (!launched.equals(agent)) {
                throw new IllegalStateException("this fork was launched with -Dbench.agent=" + launched + " but measures agent=" + agent
                        + "; run with -p agent=" + launched + " (bench/run.sh does)");
            }
            tools = new SupportTools();
            session = "bench-" + ProcessHandle.current().pid();
            boolean blocked = !tools.refund(session, "A-1234", 20.0).equals("refunded");
            if (blocked != agent.startsWith("attached")) {
                throw new IllegalStateException("agent=" + agent + " but a refund without approval was "
                        + (blocked ? "blocked" : "not blocked") + ": the agent is " + (blocked ? "" : "not ") + "active in this JVM");
            }
            String found = tools.searchKb(session, "refund policy for damaged items", 5, "en");
            if (!found.equals("found 3 articles")) {
                throw new IllegalStateException("agent=" + agent + ": the passed call answered '" + found
                        + "'; the library must let the benchmark's search through (see bench/agent)");
            }
            // the forks of one JMH invocation share its audit path: start this fork's measurement on a new file
            FreshAuditFile.renew(() -> tools.searchKb(session, "refund policy for damaged items", 5, "en"));
        }
    }

    @Benchmark
    public String passedCall(Host h) {
        return h.tools.searchKb(h.session, "refund policy for damaged items", 5, "en");
    }

    /**
     * The passed search with a different query each call (4,096 distinct texts in turn): the arguments of a real
     * agent's calls vary, so nothing derived from an argument's text (such as its audit pseudonym) can be reused.
     */
    @Benchmark
    public String passedCallVaried(Host h) {
        return h.tools.searchKb(h.session, h.queries[h.next++ & (h.queries.length - 1)], 5, "en");
    }

    /** 4,096 distinct search queries that the benchmark library lets through (none mentions a credential). */
    public static String[] queries() {
        String[] topics = {"refund policy", "damaged items", "shipping times", "warranty terms", "order status", "return label",
            "exchange rules", "gift cards"};
        String[] q = new String[4096];
        for (int i = 0; i < q.length; i++) q[i] = topics[i & 7] + " for order " + (100_000 + i * 7919 % 900_000) + " in region " + (i >>> 3);
        return q;
    }

    /** The refund that the library blocks; its arguments come from the state, so the detached row measures the call. */
    @Benchmark
    public String blockedCall(Host h) {
        return h.tools.refund(h.session, h.orderId, h.amount);
    }
}
