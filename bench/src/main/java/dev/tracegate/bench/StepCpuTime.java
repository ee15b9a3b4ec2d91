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
 * [--rounds 7] [--events 1000000] [--out file.json]}
 */
public final class StepCpuTime {
    private StepCpuTime() {}

    public static void main(String[] args) throws IOException {
        Args a = Args.parse(args, Map.of("contracts", "1,10,100", "rounds", "7", "events", "1000000", "out", ""));
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isCurrentThreadCpuTimeSupported()) throw new IllegalStateException("this JVM cannot read thread CPU time");
        List<Object> runs = new ArrayList<>();
        for (int n : a.integers("contracts")) runs.add(run(threads, n, a.integer("rounds"), a.integer("events")));
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "StepCpuTime");
        out.put("environment", Environment.describe());
        out.put("runs", runs);
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

    private static int steps(SessionMonitor<long[]> m, Session s, Worker w, long[][] ev, boolean[] agent, int n) {
        int refused = 0;
        for (int i = 0; i < n; i++) {
            int e = i & 1023;
            if (m.step(s, ev[e], agent[e], true, w) != Decision.PASS) refused++;
        }
        return refused;
    }

    static double median(double[] xs) {
        double[] c = xs.clone();
        Arrays.sort(c);
        int n = c.length;
        return Math.round(((n & 1) == 1 ? c[n / 2] : (c[n / 2 - 1] + c[n / 2]) / 2) * 100) / 100.0;
    }

    private static double[] round(double[] xs) {
        double[] c = new double[xs.length];
        for (int i = 0; i < xs.length; i++) c[i] = Math.round(xs[i] * 100) / 100.0;
        return c;
    }
}
