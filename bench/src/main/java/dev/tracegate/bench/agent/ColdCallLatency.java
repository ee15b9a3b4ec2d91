package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import example.host.SupportTools;
import org.HdrHistogram.Histogram;

import java.io.File;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Latency of one intercepted tool call made with cold data caches and TLB (run this JVM with {@code -javaagent}), or of
 * the same call without the agent, beside the same call made hot, in one run.
 *
 * <p>Each sample first evicts the data caches: it reads one long per cache line of a buffer of {@code --evict} bytes,
 * by default twice the largest cache that {@code /sys/devices/system/cpu/cpu0/cache/index*}{@code /size} reports
 * ({@code 2x}; the last-level cache, shared by both cores of this VM), which also walks every 4 KiB page of it and so
 * flushes the TLB; a size such as {@code 2M} (twice the L2 of this VM) evicts the core's own caches only. It then times one call ({@code System.nanoTime} before and after: the clock's own 20-30 ns is in every figure,
 * see {@code InterceptedCallLatency}'s clock floor) into the {@code cold} histogram, makes {@code --hot-calls} more
 * calls back to back and times the last {@code --hot-timed} of them one by one into the {@code hot} histogram. Cold and
 * hot calls so alternate within each sample: a neighbour's load on the shared machine falls on both, which is what
 * makes their difference readable when a paced run's is not. The instruction cache and branch predictors are not
 * flushed on purpose: only the eviction loop runs between the calls, so the figure is the data-side part of what a
 * paced call pays (InterceptedCallLatency at 1,000 calls/s, where other threads run in between, pays both sides).
 *
 * <p>A sample starts every {@code --interval-us} (1 ms) at the earliest, spinning until then, so that the calls (at
 * most {@code 1 + --hot-calls} per interval) stay within what the audit writer writes: a writer that falls behind fills
 * its queue, and with {@code audit.on-full: block} the hot calls would time the wait for room instead of the call.
 *
 * <p>Allocation per call is read with the thread's allocation counter around the hot calls of every sample.
 *
 * <p>With the agent attached, measuring starts once the audit writer has written the warm-up's records (as in
 * {@link InterceptedCallLatency}); the writer then wakes every {@code audit.max-delay} (100 ms by default) during the
 * evictions, not during the timed calls but for the rare one it overlaps.
 *
 * <p>Usage: {@code java [-javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml
 * -Dtracegate.audit.path=$(mktemp -d)/audit.jsonl -Dbench.agent=attached] -cp benchmarks.jar
 * dev.tracegate.bench.agent.ColdCallLatency [--samples 2000] [--warmup-calls 200000] [--evict 2x|SIZE]
 * [--hot-calls 20] [--hot-timed 5] [--interval-us 1000] [--out file.json]}
 */
public final class ColdCallLatency {
    private static final long HIGHEST = 60_000_000_000L;
    /** Longs per 64-byte cache line: the eviction reads one of each. */
    private static final int LINE_LONGS = 8;

    /** Defeats dead-code elimination of the eviction walk and the calls. */
    static volatile long sink;
    static volatile Object out;

    private ColdCallLatency() {}

    public static void main(String[] args) throws Exception {
        Args.main("ColdCallLatency", args, ColdCallLatency::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException {
        Args o = Args.parse(args, Map.of("samples", "2000", "warmup-calls", "200000", "evict", "2x",
                "hot-calls", "20", "hot-timed", "5", "interval-us", "1000", "out", ""));
        int samples = o.integer("samples", 1, Integer.MAX_VALUE, "samples");
        int warm = o.integer("warmup-calls", 0, Integer.MAX_VALUE, "calls");
        int hotCalls = o.integer("hot-calls", 1, Integer.MAX_VALUE, "calls");
        int hotTimed = o.integer("hot-timed", 1, Integer.MAX_VALUE, "calls");
        long interval = o.integer("interval-us", 0, 60_000_000, "microseconds") * 1_000L;
        if (hotTimed > hotCalls) {
            throw new Args.BadOption("--hot-timed must be between 1 and --hot-calls (" + hotCalls + "), got " + hotTimed);
        }
        long cache = largestCacheBytes();
        String evict = o.get("evict").strip();
        long evictBytes;
        try {
            evictBytes = evict.endsWith("x") ? (long) (cache * Double.parseDouble(evict.substring(0, evict.length() - 1))) : sizeBytes(evict);
        } catch (NumberFormatException e) {
            evictBytes = -1;
        }
        if (evictBytes < 64 || evictBytes / 8 > Integer.MAX_VALUE - 8) {
            throw new Args.BadOption("--evict must be 64 bytes to 16 GiB (a size such as 2M, or a multiple of the last-level"
                    + " cache such as 2x), got '" + evict + "'");
        }
        long[] buffer = new long[(int) (evictBytes / 8)];
        for (int i = 0; i < buffer.length; i += 512) buffer[i] = i;   // commit every page before timing anything

        String agent = System.getProperty("bench.agent", "detached");
        SupportTools tools = new SupportTools();
        String session = "cold-" + ProcessHandle.current().pid();
        boolean attached = !tools.refund(session, "A-1234", 20.0).equals("refunded");
        if (attached != agent.startsWith("attached")) {
            throw new IllegalStateException("-Dbench.agent=" + agent + " but the agent is " + (attached ? "" : "not ") + "active in this JVM");
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Thread writer = attached ? InterceptedCallCpuTime.writerThread() : null;
        long drained = attached ? InterceptedCallCpuTime.drainedThreshold(InterceptedCallCpuTime.idleRate(mx, writer)) : 0;
        int searches = tools.searches();
        for (int i = 0; i < warm; i++) out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
        for (int i = 0; i < 20; i++) evict(buffer);   // the eviction loop compiled before the first sample
        if (attached) InterceptedCallCpuTime.settle(mx, writer, drained);

        Histogram cold = new Histogram(HIGHEST, 3);
        Histogram hot = new Histogram(HIGHEST, 3);
        Histogram eviction = new Histogram(HIGHEST, 3);
        long me = Thread.currentThread().getId();
        long allocated = 0;
        long t0 = System.nanoTime();
        long due = System.nanoTime();
        for (int s = 0; s < samples; s++) {
            due += interval;
            while (System.nanoTime() < due) Thread.onSpinWait();   // keeps the call rate within the audit writer's
            long e0 = System.nanoTime();
            evict(buffer);
            long start = System.nanoTime();
            out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
            long end = System.nanoTime();
            cold.recordValue(end - start);
            eviction.recordValue(start - e0);
            long a0 = mx.getThreadAllocatedBytes(me);
            for (int i = 0; i < hotCalls - hotTimed; i++) out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
            for (int i = 0; i < hotTimed; i++) {
                long h0 = System.nanoTime();
                out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
                hot.recordValue(System.nanoTime() - h0);
            }
            allocated += mx.getThreadAllocatedBytes(me) - a0;
        }
        long wall = System.nanoTime() - t0;
        int ran = tools.searches() - searches;
        if (ran != warm + samples * (1 + hotCalls)) {
            throw new IllegalStateException("the search tool body ran " + ran + " times, expected " + (warm + samples * (1 + hotCalls))
                    + ": the benchmark's passed call must pass (check the library in bench/agent)");
        }
        Map<String, Object> res = new LinkedHashMap<>();
        res.put("harness", "ColdCallLatency");
        res.put("date", Instant.now().toString());
        res.put("agent", agent);
        res.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        res.put("loadAverageAfter", ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        res.put("largestCacheBytes", cache);
        res.put("evictedBytes", (long) buffer.length * 8);
        res.put("samples", samples);
        res.put("intervalUs", interval / 1_000);
        res.put("coldNs", percentiles(cold));
        res.put("hotNs", percentiles(hot));
        res.put("coldMinusHotP50Ns", cold.getValueAtPercentile(50) - hot.getValueAtPercentile(50));
        res.put("evictionNs", percentiles(eviction));
        res.put("bytesPerHotCall", Math.round(allocated / (double) (samples * hotCalls) * 10) / 10.0);
        res.put("seconds", Math.round(wall / 1e7) / 100.0);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!o.get("out").isEmpty()) json.writeValue(new File(o.get("out")), res);
        System.out.println(json.writeValueAsString(res));
    }

    /** Reads one long of every cache line of {@code buffer}, so the lines a call touched before are gone from every level. */
    static void evict(long[] buffer) {
        long sum = 0;
        for (int i = 0; i < buffer.length; i += LINE_LONGS) sum += buffer[i];
        sink = sum;
    }

    /**
     * The largest data or unified cache of cpu0 in bytes (the last level), from sysfs; 32 MiB when sysfs says nothing, more
     * than the last level of any machine this runs on.
     */
    static long largestCacheBytes() {
        long largest = 0;
        for (int i = 0; i < 8; i++) {
            Path dir = Path.of("/sys/devices/system/cpu/cpu0/cache/index" + i);
            try {
                if (!Files.isDirectory(dir) || Files.readString(dir.resolve("type")).strip().equals("Instruction")) continue;
                largest = Math.max(largest, sizeBytes(Files.readString(dir.resolve("size")).strip()));
            } catch (IOException | RuntimeException e) {
                throw new IllegalStateException("cannot read the cache size from " + dir + ": " + e, e);
            }
        }
        return largest == 0 ? 32L << 20 : largest;
    }

    /** A sysfs cache size such as {@code 32K}, {@code 1024K} or {@code 32M}, in bytes. */
    static long sizeBytes(String size) {
        char unit = Character.toUpperCase(size.charAt(size.length() - 1));
        long shift = switch (unit) {
            case 'K' -> 10;
            case 'M' -> 20;
            case 'G' -> 30;
            default -> -1;
        };
        if (shift < 0) return Long.parseLong(size);
        return Long.parseLong(size.substring(0, size.length() - 1)) << shift;
    }

    static Map<String, Object> percentiles(Histogram h) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("min", h.getMinValue());
        p.put("p50", h.getValueAtPercentile(50));
        p.put("p90", h.getValueAtPercentile(90));
        p.put("p99", h.getValueAtPercentile(99));
        p.put("max", h.getMaxValue());
        p.put("count", h.getTotalCount());
        return p;
    }
}
