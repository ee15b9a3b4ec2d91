package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Latency percentiles of the engine step under a fixed arrival rate, recorded with HdrHistogram
 * without coordinated omission: event {@code i} is due at {@code start + i / rate}, and its latency
 * is measured from that due time, so a stall delays (and is charged to) every event queued behind it,
 * as callers would see it. The service time alone (from the actual start) is recorded beside it, as
 * is the floor of the clock itself (two back-to-back {@code nanoTime} reads), which bounds what any
 * percentile here can resolve.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.tracegate.bench.StepLatency [--contracts 1,10,100]
 * [--rate events/s] [--seconds s] [--out file.json]}
 */
public final class StepLatency {
    private static final long HIGHEST = 60_000_000_000L;

    private StepLatency() {}

    public static void main(String[] args) throws Exception {
        Args.main("StepLatency", args, StepLatency::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("contracts", "10", "rate", "100000", "seconds", "10",
                "warmup-events", "2000000", "out", ""));
        int[] contracts = a.integers("contracts", 1, Workload.MAX_CONTRACTS, "contracts (the workload's first N, see Workload)");
        // at least 1 ns between two events: the interval is whole nanoseconds
        int rate = a.integer("rate", 1, 1_000_000_000, "events per second");
        double seconds = a.positive("seconds", 86_400, "seconds of measurement per contract count");
        a.atLeastOne(seconds, rate, "event");
        int warmup = a.integer("warmup-events", 0, Integer.MAX_VALUE, "events");
        List<Object> runs = new ArrayList<>();
        for (int n : contracts) runs.add(run(n, rate, seconds, warmup));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "StepLatency");
        out.put("environment", Environment.describe());
        out.put("clockFloor", floor());
        out.put("runs", runs);
        String json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(out);
        if (a.get("out").isEmpty()) System.out.println(json);
        else {
            new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValue(new File(a.get("out")), out);
            System.out.println(json);
        }
    }

    static Map<String, Object> run(int contracts, int rate, double seconds, int warmupEvents) {
        ContractSet set = Workload.compile(contracts);
        Workload.Traffic t = Workload.ordered(set, 1024, 0, 42);
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = monitor.newWorker();
        Session s = monitor.session("latency");
        long[][] events = t.valuations();
        boolean[] agent = t.agent();
        int refused = 0;
        for (int i = 0; i < warmupEvents; i++) {
            int e = i & 1023;
            if (monitor.step(s, events[e], agent[e], true, w) != Decision.PASS) refused++;
        }
        Histogram fromDue = new Histogram(HIGHEST, 3);
        Histogram service = new Histogram(HIGHEST, 3);
        final long interval = 1_000_000_000L / rate;
        final long total = (long) (seconds * rate);
        final long start = System.nanoTime() + 1_000_000;
        int cursor = 0;
        for (long i = 0; i < total; i++) {
            final long due = start + i * interval;
            long now;
            while ((now = System.nanoTime()) < due) Thread.onSpinWait();
            Decision d = monitor.step(s, events[cursor], agent[cursor], true, w);
            final long end = System.nanoTime();
            cursor = (cursor + 1) & 1023;
            if (d != Decision.PASS) refused++;
            fromDue.recordValue(end - due);
            service.recordValue(end - now);
        }
        if (refused != 0) throw new IllegalStateException(refused + " events were refused; the workload should pass");
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("contracts", contracts);
        r.put("rate", rate);
        r.put("events", total);
        r.put("fromDueTimeNs", percentiles(fromDue));
        r.put("serviceTimeNs", percentiles(service));
        return r;
    }

    /** Percentiles of back-to-back clock reads: the resolution floor of every figure above. */
    static Map<String, Object> floor() {
        Histogram h = new Histogram(HIGHEST, 3);
        for (int i = 0; i < 2_000_000; i++) {
            long a = System.nanoTime();
            long b = System.nanoTime();
            h.recordValue(b - a);
        }
        return percentiles(h);
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("p50", h.getValueAtPercentile(50));
        p.put("p90", h.getValueAtPercentile(90));
        p.put("p99", h.getValueAtPercentile(99));
        p.put("p99.9", h.getValueAtPercentile(99.9));
        p.put("p99.99", h.getValueAtPercentile(99.99));
        p.put("max", h.getMaxValue());
        p.put("mean", Math.round(h.getMean() * 10) / 10.0);
        p.put("count", h.getTotalCount());
        return p;
    }
}
