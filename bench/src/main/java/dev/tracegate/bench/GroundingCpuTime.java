package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link GroundingBenchmark}'s bodies timed with this thread's CPU clock: grounding + step per event,
 * for the same event stepped again and for a new event per operation, per library. On a shared machine
 * JMH's wall-clock scores include time spent waiting for a core; these do not. Not a replacement for
 * JMH: no blackhole beyond a static sink, one thread, medians of few rounds.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.tracegate.bench.GroundingCpuTime [--libraries support,gdpr,injection]
 * [--operations 20000] [--rounds 7] [--out file.json]}
 */
public final class GroundingCpuTime {
    private GroundingCpuTime() {}

    /** Operations run before timing each body, at least (so that even the cheapest body is compiled). */
    static int WARM_UP = 200_000;

    /** Defeats dead-code elimination of the bodies. */
    static volatile Object sink;

    /** One body: what it does per operation. */
    interface Body {
        Object run(int i);
    }

    public static void main(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("libraries", "support,gdpr,injection", "operations", "20000", "rounds", "7", "out", ""));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "GroundingCpuTime");
        out.put("environment", Environment.describe());
        out.put("runs", measure(a.get("libraries").split(","), a.integer("operations"), a.integer("rounds")));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!a.get("out").isEmpty()) json.writeValue(new File(a.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    /** Median CPU ns per operation of each body, per library. */
    static List<Map<String, Object>> measure(String[] libraries, int operations, int rounds) {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) throw new IllegalStateException("this JVM cannot read thread CPU time");
        GroundingBenchmark b = new GroundingBenchmark();
        List<Map<String, Object>> runs = new ArrayList<>();
        for (String library : libraries) {
            GroundingBenchmark.Subject s = new GroundingBenchmark.Subject();
            s.library = library.strip();
            s.setUp();
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("library", s.library);
            r.put("unit", "CPU ns per operation (median of rounds)");
            r.put("stepCall", median(threads, operations, rounds, i -> b.stepCall(s)));
            r.put("stepCallFresh", median(threads, operations, rounds, i -> b.stepCallFresh(s)));
            r.put("stepResult", median(threads, operations, rounds, i -> b.stepResult(s)));
            r.put("stepResultFresh", median(threads, operations, rounds, i -> b.stepResultFresh(s)));
            r.put("stepUser", median(threads, operations, rounds, i -> b.stepUser(s)));
            r.put("stepUserFresh", median(threads, operations, rounds, i -> b.stepUserFresh(s)));
            runs.add(r);
        }
        return runs;
    }

    static double median(ThreadMXBean threads, int operations, int rounds, Body body) {
        int warmUp = Math.max(3 * operations, WARM_UP);
        for (int i = 0; i < warmUp; i++) sink = body.run(i); // JIT warm-up
        double[] r = new double[rounds];
        for (int k = 0; k < rounds; k++) {
            long c0 = threads.getCurrentThreadCpuTime();
            for (int i = 0; i < operations; i++) sink = body.run(i);
            r[k] = (threads.getCurrentThreadCpuTime() - c0) / (double) operations;
        }
        Arrays.sort(r);
        return Math.round(r[rounds / 2] * 10) / 10.0;
    }
}
