package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;

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
 * The engine step's cost in this thread's CPU time as well as wall-clock time, per event, over
 * rounds of a million steps. On a machine shared with other work, wall-clock figures (JMH's) include
 * time the thread spent descheduled; CPU time does not, so the two side by side show how much of a
 * JMH score is the machine's load. Not a replacement for JMH: no blackhole, one thread, medians of
 * few rounds.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.tracegate.bench.StepCpuTime [--contracts 1,10,100]
 * [--rounds 7] [--events 1000000] [--trace-lengths 100,10000,1000000] [--shots 30] [--window 10000] [--out file.json]}
 */
public final class StepCpuTime {
    /**
     * Events timed per trace-length shot by default. The thread CPU clock is a system call here (two reads cost 550-650 ns
     * of CPU), so 100-event windows (about 2 µs) carried some 6 ns/event of clock and a shot-to-shot spread several times
     * the ±10% the rows are read against (trial11 cpu-window-clock); over 10,000 events the clock is 0.06 ns/event.
     */
    static final int WINDOW = 10_000;

    private StepCpuTime() {}

    public static void main(String[] args) throws Exception {
        Args.main("StepCpuTime", args, StepCpuTime::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("contracts", "1,10,100", "rounds", "7", "events", "1000000",
                "trace-lengths", "100,10000,1000000", "shots", "30", "window", Integer.toString(WINDOW), "out", ""));
        int[] contracts = a.integers("contracts", 1, Workload.MAX_CONTRACTS, "contracts (the workload's first N, see Workload)");
        int rounds = a.integer("rounds", 1, Integer.MAX_VALUE, "rounds");
        int events = a.integer("events", 1, Integer.MAX_VALUE, "events per round");
        int[] lengths = a.integers("trace-lengths", 1, Integer.MAX_VALUE, "events");
        int shots = a.integer("shots", 1, Integer.MAX_VALUE, "shots");
        int window = a.integer("window", 1, Integer.MAX_VALUE, "events");
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) throw new IllegalStateException("this JVM cannot read thread CPU time");
        List<Object> runs = new ArrayList<>();
        for (int n : contracts) runs.add(run(threads, n, rounds, events));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "StepCpuTime");
        out.put("environment", Environment.describe());
        out.put("runs", runs);
        out.put("traceLength", traceLengths(threads, lengths, shots, window));
        out.put("alongOneTrace", alongOneTrace(threads, 1_000_000, 50_000));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!a.get("out").isEmpty()) json.writeValue(new File(a.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    static Map<String, Object> run(ThreadMXBean threads, int contracts, int rounds, int events) {
        ContractSet set = Workload.compile(contracts);
        Workload.Traffic t = Workload.ordered(set, 1024, 0, 42);
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = monitor.newWorker();
        Session s = monitor.session("cpu");
        long[][] ev = t.valuations();
        boolean[] agent = t.agent();
        int refused = steps(monitor, s, w, ev, agent, 3 * events); // JIT warm-up
        double[] cpu = new double[rounds];
        double[] wall = new double[rounds];
        for (int r = 0; r < rounds; r++) {
            long c0 = threads.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            refused += steps(monitor, s, w, ev, agent, events);
            wall[r] = (double) (System.nanoTime() - t0) / events;
            cpu[r] = (double) (threads.getCurrentThreadCpuTime() - c0) / events;
        }
        if (refused != 0) throw new IllegalStateException(refused + " events were refused; the workload should pass");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("contracts", contracts);
        m.put("eventsPerRound", events);
        m.put("cpuNsPerEventMedian", median(cpu));
        m.put("wallNsPerEventMedian", median(wall));
        m.put("cpuNsPerEvent", round(cpu));
        m.put("wallNsPerEvent", round(wall));
        return m;
    }

    /**
     * CPU time per event of the {@code window} events that follow {@code length} events of history on a fresh session
     * (10 contracts), over {@code shots} shots: the median, the 10th and 90th percentiles and the fastest shot, after the
     * clock's own cost (the median of an empty window, two back-to-back reads, taken before every shot) is taken off. As
     * in {@link TraceLengthBenchmark}, the history is the prelude and then a cycle of {@link TraceLengthBenchmark#WINDOW}
     * events that pass in any state after it, and the window is a whole number of cycles, so the timed events are the same
     * for every length; a window of W events after L events covers the session's lengths L to L + W. Every shot does the
     * same untimed work before its window: one loop of the longest length's events that steps the timed session's
     * history and, interleaved evenly, the rest on another session (see {@link #interleave}), then
     * {@link TraceLengthBenchmark#SETTLE} events on a scratch session; and the rows take turns shot by shot, in an order
     * that rotates, so that no row is measured later in the run or always right after another. (Before, each row ran all
     * its shots in a row, in order of length, and the untimed work before a shot was its own history: on a loaded machine
     * the first events after a long loop cost more, whatever session they go to, so the difference measured the harness,
     * not the session's length.)
     */
    static List<Object> traceLengths(ThreadMXBean threads, int[] lengths, int shots, int window) {
        ContractSet set = Workload.compile(10);
        Workload.Traffic prelude = Workload.prelude(set);
        Workload.Traffic cycle = Workload.commutative(set, TraceLengthBenchmark.WINDOW, 11);
        if (window <= 0 || window % cycle.length() != 0) {
            throw new Args.BadOption("--window must be a positive multiple of " + cycle.length() + " (the cycle the history repeats), got " + window);
        }
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = monitor.newWorker();
        Session warm = monitor.session("warm");
        int refused = steps(monitor, warm, w, prelude.valuations(), prelude.agent(), prelude.length());
        refused += steps(monitor, warm, w, cycle.valuations(), cycle.agent(), 300_000);
        List<Object> out = new ArrayList<>();
        int n = 0;
        int maxLength = Arrays.stream(lengths).max().orElse(0);
        // The last row is a control: a session with only its prelude, after the same untimed work (the
        // longest history, on another session). The length rows should cost what it costs.
        int[] rows = Arrays.copyOf(lengths, lengths.length + 1);
        rows[lengths.length] = -maxLength;
        for (int length : rows) {
            if (Math.abs(length) % cycle.length() != 0) throw new Args.BadOption("--trace-lengths must be multiples of " + cycle.length() + ", got " + Math.abs(length));
        }
        long[][] cpu = new long[rows.length][shots];
        long[] floor = new long[rows.length * shots];
        for (int k = 0; k < shots; k++) {
            for (int j = 0; j < rows.length; j++) {
                int row = (j + k) % rows.length;
                boolean control = rows[row] < 0;
                int history = Math.abs(rows[row]);
                Session other = monitor.session("other-" + n++);
                Session s = monitor.session("trace-" + n++);
                refused += steps(monitor, other, w, prelude.valuations(), prelude.agent(), prelude.length());
                refused += steps(monitor, s, w, prelude.valuations(), prelude.agent(), prelude.length());
                int from = interleave(monitor, s, other, w, cycle, control ? 0 : history - prelude.length(), maxLength - prelude.length());
                monitor.end(other);
                refused += steps(monitor, warm, w, cycle.valuations(), cycle.agent(), TraceLengthBenchmark.SETTLE);
                long e0 = threads.getCurrentThreadCpuTime();
                floor[k * rows.length + j] = threads.getCurrentThreadCpuTime() - e0;   // an empty window: the clock alone
                long c0 = threads.getCurrentThreadCpuTime();
                refused += steps(monitor, s, w, cycle.valuations(), cycle.agent(), from, window);
                cpu[row][k] = threads.getCurrentThreadCpuTime() - c0;
                monitor.end(s);
            }
        }
        double clock = median(Arrays.stream(floor).asDoubleStream().toArray());
        for (int row = 0; row < rows.length; row++) {
            boolean control = rows[row] < 0;
            int history = Math.abs(rows[row]);
            double[] perEvent = new double[shots];
            for (int k = 0; k < shots; k++) perEvent[k] = (cpu[row][k] - clock) / window;
            Arrays.sort(perEvent);
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("contracts", 10);
            m.put("traceLength", control ? prelude.length() : history);
            if (control) m.put("control", "timed session has only its prelude, after the same untimed loop (" + history + " events, all on another session)");
            m.put("window", window);
            m.put("shots", shots);
            m.put("clockFloorNs", clock);
            m.put("cpuNsPerEventMedian", median(perEvent));
            m.put("cpuNsPerEventP10", round2(perEvent[(int) Math.floor(0.1 * (shots - 1))]));
            m.put("cpuNsPerEventP90", round2(perEvent[(int) Math.ceil(0.9 * (shots - 1))]));
            m.put("cpuNsPerEventMin", round2(perEvent[0]));
            out.add(m);
        }
        if (refused != 0) throw new IllegalStateException(refused + " events were refused; the workload should pass");
        return out;
    }

    /**
     * One session stepped {@code length} events in blocks of {@code block} events, each block timed with
     * the thread's CPU clock, with no switch of loop or stream in between (10 contracts): if a step's
     * cost grew with the session's history, later blocks would cost more.
     */
    static Map<String, Object> alongOneTrace(ThreadMXBean threads, int length, int block) {
        ContractSet set = Workload.compile(10);
        Workload.Traffic prelude = Workload.prelude(set);
        Workload.Traffic history = Workload.ordered(set, 1024, 0, 42);
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = monitor.newWorker();
        Session warm = monitor.session("warm");
        int refused = steps(monitor, warm, w, history.valuations(), history.agent(), 3_000_000);
        Session s = monitor.session("long");
        refused += steps(monitor, s, w, prelude.valuations(), prelude.agent(), prelude.length());
        int blocks = length / block;
        double[] cpu = new double[blocks];
        int from = 0;
        for (int b = 0; b < blocks; b++) {
            long c0 = threads.getCurrentThreadCpuTime();
            refused += steps(monitor, s, w, history.valuations(), history.agent(), from, block);
            cpu[b] = (double) (threads.getCurrentThreadCpuTime() - c0) / block;
            from = (from + block) % history.length();
        }
        if (refused != 0) throw new IllegalStateException(refused + " events were refused; the workload should pass");
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("contracts", 10);
        m.put("length", length);
        m.put("block", block);
        m.put("firstBlockCpuNsPerEvent", Math.round(cpu[0] * 100) / 100.0);
        m.put("lastBlockCpuNsPerEvent", Math.round(cpu[blocks - 1] * 100) / 100.0);
        m.put("firstHalfMedian", median(Arrays.copyOfRange(cpu, 0, blocks / 2)));
        m.put("secondHalfMedian", median(Arrays.copyOfRange(cpu, blocks / 2, blocks)));
        m.put("cpuNsPerEventByBlock", round(cpu));
        return m;
    }

    /**
     * Steps {@code total} events of the cycle, {@code mine} of them on {@code s} and the rest on
     * {@code other}, spread evenly in one loop with the last one on {@code s} when {@code mine > 0}
     * (each session runs through the cycle from its start); returns where {@code s}'s cycle stopped.
     * Every trace length then runs the same loop, with the same switches of session, before its shot.
     */
    private static int interleave(SessionMonitor<long[]> m, Session s, Session other, Worker w, Workload.Traffic cycle,
                                  int mine, int total) {
        long[][] ev = cycle.valuations();
        boolean[] agent = cycle.agent();
        int es = 0;
        int eo = 0;
        int refused = 0;
        for (int i = 0; i < total; i++) {
            boolean toS = (long) (i + 1) * mine / total > (long) i * mine / total;
            if (toS) {
                if (m.step(s, ev[es], agent[es], true, w) != Decision.PASS) refused++;
                if (++es == ev.length) es = 0;
            } else {
                if (m.step(other, ev[eo], agent[eo], true, w) != Decision.PASS) refused++;
                if (++eo == ev.length) eo = 0;
            }
        }
        if (refused != 0) throw new IllegalStateException("history was refused");
        return es;
    }

    private static int steps(SessionMonitor<long[]> m, Session s, Worker w, long[][] ev, boolean[] agent, int n) {
        return steps(m, s, w, ev, agent, 0, n);
    }

    private static int steps(SessionMonitor<long[]> m, Session s, Worker w, long[][] ev, boolean[] agent, int from, int n) {
        int refused = 0;
        int e = from;
        for (int i = 0; i < n; i++) {
            if (m.step(s, ev[e], agent[e], true, w) != Decision.PASS) refused++;
            if (++e == ev.length) e = 0;
        }
        return refused;
    }

    static double median(double[] xs) {
        double[] c = xs.clone();
        Arrays.sort(c);
        int n = c.length;
        return Math.round(((n & 1) == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2) * 100) / 100.0;
    }

    private static double round2(double x) {
        return Math.round(x * 100) / 100.0;
    }

    private static double[] round(double[] xs) {
        double[] c = new double[xs.length];
        for (int i = 0; i < xs.length; i++) c[i] = Math.round(xs[i] * 100) / 100.0;
        return c;
    }
}
