package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import example.host.SupportTools;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * CPU time of the agent's audit writer thread ({@code tracegate-audit}) while one caller thread makes intercepted
 * tool calls at a paced rate, as an LLM agent calls tools, and while it makes none; the per-thread clocks
 * ({@code ThreadMXBean}) give figures that hold on a loaded machine. {@link InterceptedCallCpuTime} times calls
 * back to back, where the writer never sleeps; at a paced rate its wake-ups and its small writes are most of its cost.
 *
 * <p>Each paced phase calls {@code SupportTools.searchKb} (a passed call: a CALL and a RETURN record) at the rate
 * for {@code --seconds}, the caller parked between calls as a service thread waits for its next request, then
 * reads the audit file until both records of every call are in it. Its window runs from the first call to that
 * moment, so it holds all the writer's work for the phase's calls and the writer's naps meanwhile. Phase 0 is
 * silence: after one second of calls at 100 per second, the writer's CPU in the first second without calls and in
 * the two seconds after that. Beside CPU it reads the writer's wake-ups (voluntary context switches) and write
 * system calls from {@code /proc/self/task/<tid>} where Linux gives them.
 *
 * <p>Usage (a fresh audit file; the agent attached as {@code bench/run.sh} attaches it):
 * {@code rm -f /tmp/audit-rate.jsonl; java -javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml
 * -Dtracegate.audit.path=/tmp/audit-rate.jsonl -cp bench/target/benchmarks.jar dev.tracegate.bench.agent.WriterCpuAtRate
 * [--rates 0,10,100,1000,10000] [--seconds 5] [--warmup-calls 20000] [--out file.json] 2> /dev/null}
 */
public final class WriterCpuAtRate {
    /** Defeats dead-code elimination of the calls. */
    static volatile Object sink;

    private final com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    private final SupportTools tools = new SupportTools();
    private final String session = "rate-" + ProcessHandle.current().pid();
    private final Thread writer;
    private final Path writerTask;   // /proc/self/task/<tid> of the writer; null: not found
    private final LineCounter file;

    private WriterCpuAtRate(Path audit) {
        if (tools.refund(session, "A-1234", 20.0).equals("refunded")) {
            throw new IllegalStateException("a refund without approval was not blocked: the agent is not attached to this JVM;"
                    + " run it with -javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml");
        }
        if (!mx.isCurrentThreadCpuTimeSupported()) throw new IllegalStateException("this JVM cannot read per-thread CPU time");
        this.writer = InterceptedCallCpuTime.writerThread();
        this.writerTask = nativeTask(InterceptedCallCpuTime.WRITER);
        this.file = new LineCounter(audit);
    }

    public static void main(String[] args) throws Exception {
        Args.main("WriterCpuAtRate", args, WriterCpuAtRate::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args o = Args.parse(args, Map.of("rates", "0,10,100,1000,10000", "seconds", "5",
                "warmup-calls", "20000", "out", ""));
        int[] rates = o.integers("rates", 0, 1_000_000_000, "calls per second (0: a silent phase)");
        double seconds = o.positive("seconds", 86_400, "seconds per phase");
        int warm = o.integer("warmup-calls", 0, Integer.MAX_VALUE, "calls");
        String audit = System.getProperty("tracegate.audit.path", "");
        if (audit.isBlank()) {
            throw new IllegalStateException("set -Dtracegate.audit.path=<a new file>: the harness reads the audit file to see when"
                    + " every call's records were written");
        }
        WriterCpuAtRate h = new WriterCpuAtRate(Path.of(audit));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "WriterCpuAtRate");
        out.put("date", Instant.now().toString());
        out.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        out.put("loadAverageBefore", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        out.put("unit", "writer CPU: ns per call and us per second of the window; wake-ups and writes per second;"
                + " caller CPU: ns per call, of the call alone and of the whole thread (with its pacing)");
        out.put("writerThreadFound", h.writerTask != null);
        h.warmUp(warm);
        List<Object> phases = new ArrayList<>();
        for (int rate : rates) {
            phases.add(rate == 0 ? h.silence() : h.paced(rate, seconds));
        }
        out.put("phases", phases);
        out.put("loadAverageAfter", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!o.get("out").isEmpty()) json.writeValue(new File(o.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    private void call() {
        sink = tools.searchKb(session, "refund policy for damaged items", 5, "en");
    }

    /** JIT-compiles the call and the writer's path, then waits until the writer wrote it all. */
    private void warmUp(int calls) {
        long lines = file.lines();
        for (int i = 0; i < calls; i++) call();
        waitForLines(lines + 2L * calls);
        LockSupport.parkNanos(1_500_000_000L);   // past the writer's first second of silence, whatever its pacing
    }

    /** Calls at {@code rate} per second for {@code seconds}, then waits until the file holds their records. */
    private Map<String, Object> paced(int rate, double seconds) {
        long calls = Math.max(1, Math.round(rate * seconds));
        long interval = 1_000_000_000L / rate;
        long lines = file.lines();
        Counters w0 = counters();
        long callerThread0 = mx.getCurrentThreadCpuTime();
        long inCalls = 0;
        long start = System.nanoTime();
        for (long i = 0; i < calls; i++) {
            long due = start + i * interval;
            for (long now = System.nanoTime(); now < due; now = System.nanoTime()) LockSupport.parkNanos(due - now);
            long c0 = mx.getCurrentThreadCpuTime();
            call();
            inCalls += mx.getCurrentThreadCpuTime() - c0;
        }
        long lastCall = System.nanoTime();
        long callerThread = mx.getCurrentThreadCpuTime() - callerThread0;
        waitForLines(lines + 2 * calls);
        long end = System.nanoTime();
        Counters w = counters().minus(w0);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rate", rate);
        m.put("calls", calls);
        m.put("achievedRate", round(calls / ((lastCall - start) / 1e9)));
        m.put("windowMs", round((end - start) / 1e6));
        m.put("writtenMsAfterLastCall", round((end - lastCall) / 1e6));
        m.put("writerCpuNsPerCall", round(w.cpuNs / (double) calls));
        m.put("writerCpuUsPerSecond", round(w.cpuNs / 1e3 / ((end - start) / 1e9)));
        w.putRates(m, end - start);
        m.put("callerCpuNsPerCall", round(inCalls / (double) calls));
        m.put("callerThreadCpuNsPerCall", round(callerThread / (double) calls));
        LockSupport.parkNanos(1_000_000_000L);   // the next phase starts after a second of silence, not in this one's tail
        return m;
    }

    /** One second of 100 calls per second, then the writer's cost in the first second of silence and in the two after it. */
    private Map<String, Object> silence() {
        long lines = file.lines();
        long start = System.nanoTime();
        for (int i = 0; i < 100; i++) {
            long due = start + i * 10_000_000L;
            for (long now = System.nanoTime(); now < due; now = System.nanoTime()) LockSupport.parkNanos(due - now);
            call();
        }
        long quiet = System.nanoTime();
        Counters a = counters();
        LockSupport.parkNanos(quiet + 1_000_000_000L - System.nanoTime());
        long oneSecond = System.nanoTime();
        Counters b = counters();
        LockSupport.parkNanos(oneSecond + 2_000_000_000L - System.nanoTime());
        long threeSeconds = System.nanoTime();
        Counters c = counters();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("rate", 0);
        Map<String, Object> first = new LinkedHashMap<>();
        Counters f = b.minus(a);
        first.put("writerCpuUsPerSecond", round(f.cpuNs / 1e3 / ((oneSecond - quiet) / 1e9)));
        f.putRates(first, oneSecond - quiet);
        Map<String, Object> steady = new LinkedHashMap<>();
        Counters s = c.minus(b);
        steady.put("writerCpuUsPerSecond", round(s.cpuNs / 1e3 / ((threeSeconds - oneSecond) / 1e9)));
        s.putRates(steady, threeSeconds - oneSecond);
        m.put("firstSecond", first);
        m.put("afterOneSecond", steady);
        waitForLines(lines + 200);   // all written by now; checked so that a lost record does not pass unseen
        return m;
    }

    private void waitForLines(long expected) {
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (long n = file.lines(); n < expected; n = file.lines()) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("the audit file has " + n + " lines, expected at least " + expected
                        + " after 60 s: is -Dtracegate.audit.path the file this agent writes?");
            }
            LockSupport.parkNanos(2_000_000);
        }
    }

    /** The writer thread's CPU time and, where Linux gives them, its voluntary context switches and write system calls. */
    private static final class Counters {
        final long cpuNs, wakeups, writes;

        Counters(long cpuNs, long wakeups, long writes) {
            this.cpuNs = cpuNs;
            this.wakeups = wakeups;
            this.writes = writes;
        }

        Counters minus(Counters o) {
            return new Counters(cpuNs - o.cpuNs, wakeups < 0 ? -1 : wakeups - o.wakeups, writes < 0 ? -1 : writes - o.writes);
        }

        void putRates(Map<String, Object> m, long windowNs) {
            double s = windowNs / 1e9;
            if (wakeups >= 0) m.put("writerWakeupsPerSecond", round(wakeups / s));
            if (writes >= 0) m.put("writerWritesPerSecond", round(writes / s));
        }
    }

    private Counters counters() {
        long cpu = mx.getThreadCpuTime(writer.getId());
        if (writerTask == null) return new Counters(cpu, -1, -1);
        return new Counters(cpu, procField(writerTask.resolve("status"), "voluntary_ctxt_switches:"),
                procField(writerTask.resolve("io"), "syscw:"));
    }

    private static long procField(Path file, String name) {
        try {
            for (String line : Files.readAllLines(file)) {
                if (line.startsWith(name)) return Long.parseLong(line.substring(name.length()).strip());
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
    }

    /** The /proc task directory of the thread whose native name is {@code name} (Linux names Java threads), or null. */
    private static Path nativeTask(String name) {
        Path tasks = Path.of("/proc/self/task");
        if (!Files.isDirectory(tasks)) return null;
        try (Stream<Path> s = Files.list(tasks)) {
            for (Path t : (Iterable<Path>) s::iterator) {
                try {
                    if (Files.readString(t.resolve("comm")).strip().equals(name)) return t;
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException e) {
            return null;
        }
        return null;
    }

    /** Counts the lines of a growing file, reading only what was appended since the last count. */
    private static final class LineCounter {
        private final Path path;
        private final ByteBuffer buffer = ByteBuffer.allocate(1 << 16);
        private long position;
        private long lines;

        LineCounter(Path path) { this.path = path; }

        long lines() {
            if (!Files.exists(path)) return lines;
            try (FileChannel ch = FileChannel.open(path, StandardOpenOption.READ)) {
                if (ch.size() < position) {   // a new file at the path (moved away): count it from its start
                    position = 0;
                }
                while (true) {
                    buffer.clear();
                    int n = ch.read(buffer, position);
                    if (n <= 0) break;
                    for (int i = 0; i < n; i++) if (buffer.get(i) == '\n') lines++;
                    position += n;
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read the audit file " + path, e);
            }
            return lines;
        }
    }

    private static double round(double x) {
        return Math.round(x * 10) / 10.0;
    }
}
