package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import example.host.SupportTools;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;

/**
 * Latency percentiles of an intercepted tool call (run this JVM with {@code -javaagent}) or of the
 * same call without the agent, at a fixed arrival rate, recorded with HdrHistogram from each call's
 * due time (no coordinated omission) and, beside it, from its actual start.
 *
 * <p>Beside them it records the platform's own stalls: while the thread spins between calls it reads the
 * clock back to back, and a gap of more than 5 µs between two reads is time the thread lost to something
 * else (an interrupt, the hypervisor, another thread on its core). A stall that lands inside a call adds
 * its whole length to that call, so with stalls of S µs at R per second a call of d µs has about R * d
 * chances in a million to be S µs slower: read the tail against them.
 *
 * <p>{@code --wait park} waits for each call's due time parked instead of spinning, as a service's thread waits
 * for its next request: the call then starts on a core that ran other things meanwhile (caches, branch
 * predictors), which is what a paced call costs in production; stalls cannot be seen from a parked thread, so
 * that run has no stall summary.
 *
 * <p>With the agent attached, measuring starts once the audit writer has written the warm-up's records (its CPU
 * clock stands still, as {@link InterceptedCallCpuTime} settles it), not while it drains them on the other core.
 *
 * <p>Usage: {@code java -javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml
 * -Dbench.agent=attached -cp benchmarks.jar dev.tracegate.bench.agent.InterceptedCallLatency
 * [--rate calls/s] [--seconds s] [--warmup-calls n] [--wait spin|park] [--out file.json]}
 */
public final class InterceptedCallLatency {
    private static final long HIGHEST = 60_000_000_000L;
    /** A gap between two clock reads of the idle thread longer than this is a stall of the platform. */
    static final long STALL_NS = 5_000;

    private InterceptedCallLatency() {}

    public static void main(String[] args) throws Exception {
        Args.main("InterceptedCallLatency", args, InterceptedCallLatency::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args o = Args.parse(args, Map.of("rate", "1000", "seconds", "5", "warmup-calls", "20000", "wait", "spin", "out", ""));
        boolean park = switch (o.get("wait")) {
            case "spin" -> false;
            case "park" -> true;
            default -> throw new Args.BadOption("--wait must be spin or park, got '" + o.get("wait") + "'");
        };
        // at least 1 ns between two calls: the interval is whole nanoseconds
        int rate = o.integer("rate", 1, 1_000_000_000, "calls per second");
        double seconds = o.positive("seconds", 86_400, "seconds of measurement");
        o.atLeastOne(seconds, rate, "call");
        int warm = o.integer("warmup-calls", 0, Integer.MAX_VALUE, "calls");
        String agent = System.getProperty("bench.agent", "detached");
        SupportTools tools = new SupportTools();
        String session = "latency-" + ProcessHandle.current().pid();
        boolean blocked = !tools.refund(session, "A-1234", 20.0).equals("refunded");
        if (blocked != agent.startsWith("attached")) {
            throw new IllegalStateException("-Dbench.agent=" + agent + " but the agent is " + (blocked ? "" : "not ") + "active in this JVM");
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Thread writer = blocked ? InterceptedCallCpuTime.writerThread() : null;
        // measured now, with only the check's records to write, so the warm-up's backlog cannot pass for idle
        long drained = blocked ? InterceptedCallCpuTime.drainedThreshold(InterceptedCallCpuTime.idleRate(mx, writer)) : 0;
        for (int i = 0; i < warm; i++) tools.searchKb(session, "refund policy for damaged items", 5, "en");
        // The writer is slower than back-to-back calls: after the warm-up up to a full queue of records is still being
        // written on the other core. Measuring then would time the first calls against that; wait until it is idle.
        long drainNs = 0;
        if (blocked) {
            long t0 = System.nanoTime();
            InterceptedCallCpuTime.settle(mx, writer, drained);
            drainNs = System.nanoTime() - t0;
        }
        Histogram fromDue = new Histogram(HIGHEST, 3);
        Histogram service = new Histogram(HIGHEST, 3);
        Histogram stalls = new Histogram(HIGHEST, 3);
        long idleNs = 0;
        long interval = 1_000_000_000L / rate;
        long total = (long) (seconds * rate);
        long start = System.nanoTime() + 1_000_000;
        for (long i = 0; i < total; i++) {
            long due = start + i * interval;
            long now = System.nanoTime();
            long idleFrom = now;
            if (park) {
                while (now < due) {
                    LockSupport.parkNanos(due - now);
                    now = System.nanoTime();
                }
            } else {
                for (long read = now; now < due; read = now) {
                    Thread.onSpinWait();
                    now = System.nanoTime();
                    if (now - read > STALL_NS) stalls.recordValue(now - read);
                }
                idleNs += now - idleFrom;
            }
            tools.searchKb(session, "refund policy for damaged items", 5, "en");
            long end = System.nanoTime();
            fromDue.recordValue(end - due);
            service.recordValue(end - now);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "InterceptedCallLatency");
        out.put("agent", agent);
        out.put("rate", rate);
        out.put("wait", park ? "park" : "spin");
        out.put("calls", total);
        if (blocked) out.put("writerDrainAfterWarmUpMs", Math.round(drainNs / 1e5) / 10.0);   // waited before the first measured call
        out.put("fromDueTimeNs", percentiles(fromDue));
        out.put("serviceTimeNs", percentiles(service));
        if (!park) out.put("platformStallsNs", stallSummary(stalls, idleNs, service.getMean()));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!o.get("out").isEmpty()) json.writeValue(new File(o.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    /**
     * The stalls the idle thread saw: how many per second of idle time, their percentiles, and the share of
     * calls one would land in by chance (stalls per second times the mean service time), in parts per million.
     */
    static Map<String, Object> stallSummary(Histogram stalls, long idleNs, double meanServiceNs) {
        Map<String, Object> p = percentiles(stalls);
        double perSecond = idleNs == 0 ? 0 : stalls.getTotalCount() * 1e9 / idleNs;
        p.put("thresholdNs", STALL_NS);
        p.put("perSecond", Math.round(perSecond * 10) / 10.0);
        p.put("callsHitPerMillion", Math.round(perSecond * meanServiceNs / 1e9 * 1e6));
        return p;
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("p50", h.getValueAtPercentile(50));
        p.put("p90", h.getValueAtPercentile(90));
        p.put("p99", h.getValueAtPercentile(99));
        p.put("p99.9", h.getValueAtPercentile(99.9));
        p.put("max", h.getMaxValue());
        p.put("count", h.getTotalCount());
        return p;
    }
}
