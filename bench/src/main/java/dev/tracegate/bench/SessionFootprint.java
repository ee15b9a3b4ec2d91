package dev.tracegate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import org.openjdk.jol.info.GraphLayout;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;

/**
 * Retained memory per live session, two ways: (1) JOL walks the monitor's object graph with
 * {@code jolSessions} sessions and without, so the difference per session counts everything a
 * session keeps alive (its object, id string, state arrays, map node and table share, arena slot);
 * (2) the used heap after forced full collections, before and after creating {@code sessions}
 * sessions (run with enough heap, e.g. {@code -Xmx4g}). Session ids are 36-character UUID strings,
 * as services commonly use; each session has applied its prelude events.
 *
 * <p>Usage: {@code java -Xmx4g -cp benchmarks.jar dev.tracegate.bench.SessionFootprint
 * [--contracts 10] [--jol-sessions 10000] [--sessions 1000000] [--out file.json]}
 */
public final class SessionFootprint {
    private SessionFootprint() {}

    public static void main(String[] args) throws Exception {
        Args.main("SessionFootprint", args, SessionFootprint::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException, InterruptedException {
        Args a = Args.parse(args, Map.of("contracts", "10", "jol-sessions", "10000", "sessions", "1000000", "out", ""));
        // Records (the engine's Atom) hide their field offsets from Unsafe; JOL then computes them itself.
        if (System.getProperty("jol.magicFieldOffset") == null) System.setProperty("jol.magicFieldOffset", "true");
        int contracts = a.integer("contracts", 1, Workload.MAX_CONTRACTS, "contracts (the workload's first N, see Workload)");
        int jolSessions = a.integer("jol-sessions", 1, Integer.MAX_VALUE, "sessions");
        int sessions = a.integer("sessions", 1, Integer.MAX_VALUE, "sessions");
        ContractSet set = Workload.compile(contracts);
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "SessionFootprint");
        out.put("environment", Environment.describe());
        out.put("contracts", contracts);
        out.put("formulas", set.formulas().size());
        out.put("targetBytesPerSession", 256 + 16 * contracts);
        out.put("jol", jol(set, jolSessions));
        out.put("heap", heap(set, sessions));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!a.get("out").isEmpty()) json.writeValue(new File(a.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    static Map<String, Object> jol(ContractSet set, int n) {
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = monitor.newWorker();
        long empty = GraphLayout.parseInstance(monitor).totalSize();
        Session last = null;
        for (int i = 0; i < n; i++) last = open(monitor, w, i);
        GraphLayout full = GraphLayout.parseInstance(monitor);
        GraphLayout one = GraphLayout.parseInstance(last, monitor.snapshot(last));
        GraphLayout id = GraphLayout.parseInstance(last.id());
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("method", "JOL 0.17 GraphLayout of the monitor with " + n + " sessions minus without, divided by " + n);
        r.put("sessions", n);
        r.put("bytesPerSession", (double) (full.totalSize() - empty) / n);
        r.put("sessionObjectsBytes", one.totalSize());
        r.put("idStringBytes", id.totalSize());
        r.put("sessionObjects", one.toFootprint());
        return r;
    }

    static Map<String, Object> heap(ContractSet set, int n) throws InterruptedException {
        MemoryMXBean mx = ManagementFactory.getMemoryMXBean();
        long before = settledHeap(mx);
        SessionMonitor<long[]> monitor = new SessionMonitor<>(set, PregroundedEvents.INSTANCE,
                new SessionMonitor.Options(Math.max(n, 1) + 1, true), r -> {});
        Worker w = monitor.newWorker();
        for (int i = 0; i < n; i++) open(monitor, w, i);
        long after = settledHeap(mx);
        if (monitor.sessionCount() != n) throw new IllegalStateException("expected " + n + " live sessions, have " + monitor.sessionCount());
        Reference.reachabilityFence(monitor);
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("method", "MemoryMXBean heap used after System.gc() until stable, with " + n + " live sessions minus before creating the monitor");
        r.put("sessions", n);
        r.put("heapDeltaBytes", after - before);
        r.put("bytesPerSession", (double) (after - before) / n);
        return r;
    }

    private static Session open(SessionMonitor<long[]> monitor, Worker w, int i) {
        String id = UUID.nameUUIDFromBytes(("session-" + i).getBytes(StandardCharsets.UTF_8)).toString();
        Session s = monitor.session(id);
        Workload.Traffic prelude = PRELUDES.computeIfAbsent(monitor.contracts(), Workload::prelude);
        for (int e = 0; e < prelude.length(); e++) monitor.step(s, prelude.valuations()[e], prelude.agent()[e], true, w);
        return s;
    }

    private static final Map<ContractSet, Workload.Traffic> PRELUDES = new java.util.IdentityHashMap<>();

    /** Heap used once repeated full collections stop changing it (within 1 MB). */
    private static long settledHeap(MemoryMXBean mx) throws InterruptedException {
        long last = Long.MAX_VALUE;
        for (int i = 0; i < 10; i++) {
            System.gc();
            Thread.sleep(100);
            long used = mx.getHeapMemoryUsage().getUsed();
            if (Math.abs(used - last) < (1 << 20)) return used;
            last = used;
        }
        return last;
    }
}
