package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import example.host.SupportTools;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * CPU time and allocation of an intercepted tool call, per call, on the calling thread and on the
 * agent's audit writer thread ({@code tracegate-audit}), read with the JVM's per-thread clocks
 * ({@code ThreadMXBean}): figures that hold on a loaded machine, where JMH's wall-clock scores also
 * count the time a thread waits for a core. The bodies are {@link InterceptedCallBenchmark}'s: a
 * {@code passed} search (CALL and RETURN records) and a {@code blocked} refund (one CALL record; the
 * agent prints one line per block on standard error), and {@code varied}, the passed search with a different query each
 * call out of 4,096 (no repeated argument text for the audit log's pseudonyms to reuse). Each round runs {@code --calls} calls, then waits
 * until the writer has drained them (its CPU clock stands still), so the writer's share of the round's
 * records is in the round; the figures are the medians of the rounds.
 *
 * <p>Run it in a JVM with the agent attached, as {@code bench/run.sh} attaches it:
 * {@code java -javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml
 * -Dtracegate.audit.path=/tmp/audit.jsonl -Dbench.agent=attached -cp benchmarks.jar
 * dev.tracegate.bench.agent.InterceptedCallCpuTime [--calls 100000] [--rounds 7] [--warmup-calls 300000]
 * [--bodies passed,varied,blocked] [--jvm each|one] [--out file.json] 2> /dev/null}; without the agent
 * ({@code -Dbench.agent=detached}) it gives the tool bodies' own cost. By default ({@code --jvm each}) each body runs
 * in a new JVM with this one's options; {@code --jvm one} runs them all in this JVM, in the order given. It refuses to run when the agent's presence differs from
 * {@code bench.agent}, or when a passed call does not run its tool.
 */
public final class InterceptedCallCpuTime {
    /** Name of the agent's audit writer thread. */
    static final String WRITER = "tracegate-audit";
    /** One pause of {@link #settle}: the writer counts as drained when its CPU clock advanced by little in one such pause. */
    static final long SETTLE_NS = 5_000_000;
    /**
     * The drained threshold is this many times the writer's measured idle CPU per pause: idle, the writer still wakes
     * from its naps (16-28 µs of CPU per ms on the 2-core VM, more under load), so a threshold near that rate can wait
     * for ever, while a writer with records to write runs at hundreds of µs per ms.
     */
    static final double IDLE_MARGIN = 2.0;
    /** The threshold never goes below this (CPU ns per pause), so that a writer measured idle at 0 ns still settles. */
    static final long MIN_DRAINED_NS = 20_000;
    /** The idle rate is measured over this many pauses of {@link #SETTLE_NS}, and is their lower quartile (see {@link #idleRate}). */
    static final int IDLE_PAUSES = 40;

    /** Defeats dead-code elimination of the calls. */
    static volatile Object sink;

    private InterceptedCallCpuTime() {}

    public static void main(String[] args) throws Exception {
        Args.main("InterceptedCallCpuTime", args, InterceptedCallCpuTime::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException, InterruptedException {
        Args o = Args.parse(args, Map.of("calls", "100000", "rounds", "7", "warmup-calls", "300000",
                "bodies", "passed,blocked", "jvm", "each", "out", ""));
        String[] bodies = o.get("bodies").split(",");
        for (String b : bodies) body(b);   // an unknown body is refused before any JVM starts
        int calls = o.integer("calls", 1, Integer.MAX_VALUE, "calls per round");
        int rounds = o.integer("rounds", 1, Integer.MAX_VALUE, "rounds");
        int warmUp = o.integer("warmup-calls", 0, Integer.MAX_VALUE, "calls");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "InterceptedCallCpuTime");
        out.put("date", Instant.now().toString());
        out.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        out.put("loadAverageBefore", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        String agent = System.getProperty("bench.agent", "detached");
        switch (o.get("jvm")) {
            case "each" -> {
                out.put("isolation", "a new JVM per body");
                out.putAll(measureIsolated(agent, bodies, calls, rounds, warmUp));
            }
            case "one" -> {
                out.put("isolation", "one JVM for all bodies, in the order given");
                out.putAll(measure(agent, bodies, calls, rounds, warmUp));
            }
            default -> throw new Args.BadOption("--jvm must be each (a new JVM per body) or one (all in this JVM), got '"
                    + o.get("jvm") + "'");
        }
        out.put("loadAverageAfter", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!o.get("out").isEmpty()) json.writeValue(new File(o.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    /**
     * Each body timed in a JVM of its own, started with this JVM's options (the agent too) and class path, as JMH forks per
     * benchmark: in one JVM the shared agent code was compiled with the profiles of the bodies that ran first, and the
     * body call site went megamorphic (trial11 grounding-cputime-order). A child with the agent writes its own audit file,
     * next to this JVM's ({@code tracegate.audit.path} plus {@code -<body>}), deleted when it ends, so no two agents append
     * to one file. This JVM measures nothing.
     */
    static Map<String, Object> measureIsolated(String agent, String[] bodies, int calls, int rounds, int warmUp)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ObjectMapper json = new ObjectMapper();
        List<Map<String, Object>> results = new ArrayList<>();
        for (String name : bodies) {
            Path result = Files.createTempFile("call-cpu-", ".json");
            Path audit = null;
            try {
                List<String> cmd = new ArrayList<>(List.of(java));
                for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
                    if (arg.startsWith("-Dtracegate.audit.path=")) {
                        audit = Path.of(arg.substring("-Dtracegate.audit.path=".length()) + "-" + name.strip());
                        arg = "-Dtracegate.audit.path=" + audit;
                    }
                    cmd.add(arg);
                }
                cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), InterceptedCallCpuTime.class.getName(),
                        "--bodies", name.strip(), "--calls", Integer.toString(calls), "--rounds", Integer.toString(rounds),
                        "--warmup-calls", Integer.toString(warmUp), "--jvm", "one", "--out", result.toString()));
                Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                int exit = p.waitFor();
                if (exit != 0) {
                    throw new IllegalStateException("the JVM timing body " + name.strip() + " exited with " + exit
                            + " (its error is above); command: " + String.join(" ", cmd));
                }
                JsonNode child = json.readTree(result.toFile());
                @SuppressWarnings("unchecked")
                Map<String, Object> m = json.convertValue(child.get("bodies").get(0), LinkedHashMap.class);
                // each JVM measured its own writer's idle rate and settled against it
                for (String k : new String[] {"writerIdleCpuNsPerMs", "settleDrainedBelowCpuNsPer5Ms"}) {
                    if (child.has(k)) m.put(k, child.get(k).numberValue());
                }
                results.add(m);
            } finally {
                Files.deleteIfExists(result);
                if (audit != null) Files.deleteIfExists(audit);
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("agent", agent);
        out.put("unit", "per call: CPU ns, allocated bytes (median of rounds)");
        out.put("calls", calls);
        out.put("rounds", rounds);
        out.put("bodies", results);
        return out;
    }

    /** One call of a body. */
    private interface Body {
        String call(SupportTools tools, String session);
    }

    private static Body body(String name) {
        switch (name.strip()) {
            case "passed": return (t, s) -> t.searchKb(s, "refund policy for damaged items", 5, "en");
            case "varied": {
                String[] queries = InterceptedCallBenchmark.queries();
                int[] next = {0};
                return (t, s) -> t.searchKb(s, queries[next[0]++ & (queries.length - 1)], 5, "en");
            }
            case "blocked": return (t, s) -> t.refund(s, "A-1234", 20.0);
            default: throw new Args.BadOption("unknown body '" + name + "' in --bodies; known: passed, varied, blocked");
        }
    }

    /**
     * Checks that this JVM runs as {@code agent} says, then measures each body.
     *
     * @param agent "detached" or "attached..." (the {@code bench.agent} property the JVM was launched with)
     */
    static Map<String, Object> measure(String agent, String[] bodies, int calls, int rounds, int warmUp) {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        if (!mx.isCurrentThreadCpuTimeSupported() || !mx.isThreadAllocatedMemorySupported()) {
            throw new IllegalStateException("this JVM cannot read per-thread CPU time and allocation");
        }
        SupportTools tools = new SupportTools();
        String session = "cpu-" + ProcessHandle.current().pid();
        boolean attached = agent.startsWith("attached");
        boolean blocked = !tools.refund(session, "A-1234", 20.0).equals("refunded");
        if (blocked != attached) {
            throw new IllegalStateException("-Dbench.agent=" + agent + " but a refund without approval was " + (blocked ? "" : "not ")
                    + "blocked: the agent is " + (blocked ? "" : "not ") + "active in this JVM");
        }
        int before = tools.searches();
        String found = tools.searchKb(session, "refund policy for damaged items", 5, "en");
        if (!found.equals("found 3 articles") || tools.searches() != before + 1) {
            throw new IllegalStateException("a search answered '" + found + "' and ran its tool body " + (tools.searches() - before)
                    + " times; the benchmark's passed call must pass (check the library in bench/agent)");
        }
        Thread writer = attached ? writerThread() : null;   // by its exact name (the start-up warm-up's writer has another)
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("agent", agent);
        out.put("unit", "per call: CPU ns, allocated bytes (median of rounds)");
        out.put("calls", calls);
        out.put("rounds", rounds);
        double idle = writer == null ? 0 : idleRate(mx, writer);
        long drained = drainedThreshold(idle);
        if (writer != null) {
            out.put("writerIdleCpuNsPerMs", Math.round(idle * 10) / 10.0);
            out.put("settleDrainedBelowCpuNsPer5Ms", drained);
        }
        List<Map<String, Object>> results = new ArrayList<>();
        for (String name : bodies) {
            Body b = body(name);
            int searchesBefore = tools.searches();
            for (int i = 0; i < warmUp; i++) sink = b.call(tools, session);
            settle(mx, writer, drained);
            double[] callerCpu = new double[rounds], callerAlloc = new double[rounds], writerCpu = new double[rounds],
                    writerAlloc = new double[rounds], wall = new double[rounds];
            long me = Thread.currentThread().getId();
            for (int r = 0; r < rounds; r++) {
                long c0 = mx.getCurrentThreadCpuTime(), a0 = mx.getThreadAllocatedBytes(me), t0 = System.nanoTime();
                long wc0 = writer == null ? 0 : mx.getThreadCpuTime(writer.getId());
                long wa0 = writer == null ? 0 : mx.getThreadAllocatedBytes(writer.getId());
                for (int i = 0; i < calls; i++) sink = b.call(tools, session);
                callerCpu[r] = (mx.getCurrentThreadCpuTime() - c0) / (double) calls;
                callerAlloc[r] = (mx.getThreadAllocatedBytes(me) - a0) / (double) calls;
                wall[r] = (System.nanoTime() - t0) / (double) calls;
                if (writer != null) {
                    settle(mx, writer, drained);
                    writerCpu[r] = (mx.getThreadCpuTime(writer.getId()) - wc0) / (double) calls;
                    writerAlloc[r] = (mx.getThreadAllocatedBytes(writer.getId()) - wa0) / (double) calls;
                }
            }
            int ran = tools.searches() - searchesBefore;
            int expected = name.strip().equals("blocked") ? 0 : warmUp + rounds * calls;
            if (ran != expected) {
                throw new IllegalStateException(name + ": the search tool body ran " + ran + " times, expected " + expected);
            }
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("body", name.strip());
            m.put("callerCpuNs", median(callerCpu));
            m.put("callerBytes", median(callerAlloc));
            if (writer != null) {
                m.put("writerCpuNs", median(writerCpu));
                m.put("writerBytes", median(writerAlloc));
                double[] total = new double[rounds];
                for (int r = 0; r < rounds; r++) total[r] = callerCpu[r] + writerCpu[r];
                m.put("totalCpuNs", median(total));
            }
            m.put("wallNs", median(wall));
            m.put("callerCpuNsByRound", rounded(callerCpu));
            if (writer != null) m.put("writerCpuNsByRound", rounded(writerCpu));
            results.add(m);
        }
        out.put("bodies", results);
        return out;
    }

    static Thread writerThread() {
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals(WRITER)) return t;
        }
        throw new IllegalStateException("the agent is attached but no thread is named " + WRITER + ": is the audit log off?");
    }

    /**
     * Waits until the writer's CPU clock stands nearly still for one pause, with the threshold derived from its idle
     * rate measured here first (about 0.2 s): the records so far are then written.
     */
    static void settle(com.sun.management.ThreadMXBean mx, Thread writer) {
        if (writer == null) return;
        settle(mx, writer, drainedThreshold(idleRate(mx, writer)));
    }

    /**
     * Waits until the writer's CPU clock advanced by less than {@code drainedNs} in one pause of {@link #SETTLE_NS} and it
     * is not runnable (it naps): on a loaded machine a writer with records still to write can be descheduled for a whole
     * pause, its clock then stands still too, but it stays runnable.
     */
    static void settle(com.sun.management.ThreadMXBean mx, Thread writer, long drainedNs) {
        if (writer == null) return;
        long last = mx.getThreadCpuTime(writer.getId());
        for (int i = 0; i < 2_000; i++) {
            LockSupport.parkNanos(SETTLE_NS);
            long now = mx.getThreadCpuTime(writer.getId());
            if (now - last < drainedNs && writer.getState() != Thread.State.RUNNABLE) return;
            last = now;
        }
        throw new IllegalStateException("the audit writer did not become idle within 10 s (drained = under " + drainedNs
                + " ns of its CPU per " + SETTLE_NS / 1_000_000 + " ms pause, " + IDLE_MARGIN + " x its idle rate measured at the start)");
    }

    /** The drained threshold per pause of {@link #SETTLE_NS}, from the writer's idle CPU per ms. */
    static long drainedThreshold(double idleCpuNsPerMs) {
        return Math.max(MIN_DRAINED_NS, Math.round(IDLE_MARGIN * idleCpuNsPerMs * SETTLE_NS / 1e6));
    }

    /**
     * The writer's CPU per millisecond while no call is made (its wake-ups from naps): the lower quartile of
     * {@link #IDLE_PAUSES} pauses of {@link #SETTLE_NS}, so that records still being written during the first pauses
     * (up to a quarter of them) and a neighbour's burst do not count. Call it shortly after calls were made: the writer
     * naps longer after a second of silence and is then cheaper, while the harnesses settle it right after their calls.
     */
    static double idleRate(com.sun.management.ThreadMXBean mx, Thread writer) {
        double[] rates = new double[IDLE_PAUSES];
        long c = mx.getThreadCpuTime(writer.getId()), t = System.nanoTime();
        for (int i = 0; i < IDLE_PAUSES; i++) {
            LockSupport.parkNanos(SETTLE_NS);
            long c1 = mx.getThreadCpuTime(writer.getId()), t1 = System.nanoTime();
            rates[i] = (c1 - c) / ((t1 - t) / 1e6);
            c = c1;
            t = t1;
        }
        Arrays.sort(rates);
        return rates[IDLE_PAUSES / 4];
    }

    static double median(double[] x) {
        double[] c = x.clone();
        Arrays.sort(c);
        double m = c.length % 2 == 1 ? c[c.length / 2] : (c[c.length / 2 - 1] + c[c.length / 2]) / 2;
        return Math.round(m * 10) / 10.0;
    }

    private static long[] rounded(double[] x) {
        long[] o = new long[x.length];
        for (int i = 0; i < x.length; i++) o[i] = Math.round(x[i]);
        return o;
    }
}
