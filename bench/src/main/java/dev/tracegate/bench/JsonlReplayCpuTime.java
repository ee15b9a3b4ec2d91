package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The bodies of {@link JsonlReplayBenchmark} timed with this thread's CPU clock as well as the wall
 * clock, whole passes over each trace file: on a shared machine the CPU figure leaves out the time the
 * thread waited for a core. Not a replacement for JMH (no blackhole, medians of a few passes).
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.tracegate.bench.JsonlReplayCpuTime [--warmup-seconds 5]
 * [--passes 5] [--out file.json]}
 */
public final class JsonlReplayCpuTime {
    private JsonlReplayCpuTime() {}

    public static void main(String[] args) throws Exception {
        Args.main("JsonlReplayCpuTime", args, JsonlReplayCpuTime::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("warmup-seconds", "5", "passes", "5", "out", ""));
        a.integer("warmup-seconds", 0, 3600, "seconds of CPU time");   // checked here, read again per run
        a.integer("passes", 1, Integer.MAX_VALUE, "passes");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) throw new IllegalStateException("this JVM cannot read thread CPU time");
        Path dir = Files.createTempDirectory("tracegate-bench-jsonl-cpu");
        List<Object> runs = new ArrayList<>();
        try {
            for (String trace : new String[] {"small", "agentdojo"}) {
                Path file = JsonlTraces.write(trace, dir);
                runs.add(run(threads, file, trace, "read", null, a));
                for (String library : new String[] {"gdpr", "injection"}) {
                    runs.add(run(threads, file, trace, "replay", library, a));
                    runs.add(run(threads, file, trace, "monitor", library, a));
                }
                Files.delete(file);
            }
        } finally {
            Files.deleteIfExists(dir);
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "JsonlReplayCpuTime");
        out.put("environment", Environment.describe());
        out.put("runs", runs);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!a.get("out").isEmpty()) json.writeValue(new File(a.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    static Map<String, Object> run(ThreadMXBean threads, Path file, String trace, String body, String library, Args a) throws IOException {
        JsonlReplayBenchmark b = new JsonlReplayBenchmark();
        JsonlReplayBenchmark.Source src = new JsonlReplayBenchmark.Source();
        src.trace = trace;
        src.open(file);
        JsonlReplayBenchmark.Checker c = null;
        if (library != null) {
            c = new JsonlReplayBenchmark.Checker();
            c.library = library;
            c.setUp();
        }
        long warmupEnd = threads.getCurrentThreadCpuTime() + a.integer("warmup-seconds") * 1_000_000_000L;
        pass(b, src, c, body); // the first pass has one call more (see pass)
        while (threads.getCurrentThreadCpuTime() < warmupEnd) pass(b, src, c, body);
        int passes = a.integer("passes");
        double[] cpu = new double[passes];
        double[] wall = new double[passes];
        long events = 0;
        for (int p = 0; p < passes; p++) {
            long c0 = threads.getCurrentThreadCpuTime(), w0 = System.nanoTime();
            events = pass(b, src, c, body);
            cpu[p] = (threads.getCurrentThreadCpuTime() - c0) / (double) events;
            wall[p] = (System.nanoTime() - w0) / (double) events;
        }
        src.tearDown();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("trace", trace);
        m.put("body", body);
        m.put("library", library);
        m.put("eventsPerPass", events);
        m.put("cpuNsPerEvent", cpu);
        m.put("wallNsPerEvent", wall);
        m.put("cpuEventsPerSecondMedian", 1e9 / median(cpu));
        m.put("wallEventsPerSecondMedian", 1e9 / median(wall));
        System.err.printf("%-10s %-8s %-10s %,12.0f events/s CPU time %,12.0f events/s wall%n", trace, body,
                library == null ? "" : library, 1e9 / median(cpu), 1e9 / median(wall));
        return m;
    }

    /**
     * One pass over the file: events until the reader starts over, counting the call that started it
     * (it returns the first event of the next pass). So every pass after the first is exactly the
     * file's events.
     */
    private static long pass(JsonlReplayBenchmark b, JsonlReplayBenchmark.Source src, JsonlReplayBenchmark.Checker c, String body) {
        long start = src.passes;
        long n = 0;
        while (true) {
            switch (body) {
                case "read" -> b.read(src);
                case "replay" -> b.replay(src, c);
                default -> b.monitor(src, c);
            }
            n++;
            if (src.passes != start) return n;
        }
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
