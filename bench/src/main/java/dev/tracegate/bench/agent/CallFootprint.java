package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.sun.management.HotSpotDiagnosticMXBean;
import example.host.SupportTools;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How many 4 KiB pages of memory one intercepted tool call touches (run this JVM with {@code -javaagent}), or the same
 * call without the agent, by kind of memory: the Java heap, the JIT's code cache, class metadata, the JVM's and C
 * library's code, the rest. A paced call on a VM whose host leaves the core's caches and TLB cold in between pays
 * about one page walk per distinct page it touches (with nested paging on a VM, a walk of both the guest's and the
 * host's tables), so this count is the footprint that sets the paced p99.9 ({@link ColdCallLatency} times it, this
 * counts it); unlike a time, it does not move with the host's load.
 *
 * <p>How: the kernel's accessed bits. Writing {@code 1} to {@code /proc/self/clear_refs} clears the accessed bit of
 * every page of this process (and flushes the TLB); reading {@code /proc/self/smaps} then gives, per mapping, how much
 * of it was {@code Referenced} since. Each sample measures twice, in alternation: clear, no call, read (what this
 * harness and the JVM's other threads touch anyway: the clear's and the read's own code and buffers, a compiler or GC
 * thread now and then); and clear, one call, read. The call's footprint is the difference of the two medians, per kind
 * and in all. Threads other than the caller count too when they run in the window (the audit writer wakes once per
 * {@code audit.max-delay}, 100 ms, and rarely falls in a window of about a millisecond); the medians pass over them.
 * Linux only; the process must be allowed to write its own {@code clear_refs} (its owner may).
 *
 * <p>Kinds, from each mapping in {@code smaps}: {@code javaHeap} the anonymous mappings that together make the heap's
 * reservation ({@code MaxHeapSize}); {@code classMetadata} the compressed class space ({@code CompressedClassSpaceSize})
 * and the CDS archive ({@code classes.jsa}); {@code codeCache} anonymous executable mappings (the JIT's compiled code
 * and stubs); {@code nativeLibraries} shared objects ({@code libjvm.so}, {@code libc.so}, ...); {@code otherNative}
 * the rest (metaspace beyond class space, thread stacks, malloc arenas, the GC's own structures).
 *
 * <p>Usage: {@code java [-javaagent:agent/target/tracegate-agent.jar=config=bench/agent/tracegate.yaml
 * -Dtracegate.audit.path=$(mktemp -d)/audit.jsonl -Dbench.agent=attached] -cp benchmarks.jar
 * dev.tracegate.bench.agent.CallFootprint [--samples 200] [--warmup-calls 200000] [--pause-ms 3] [--out file.json]}
 */
public final class CallFootprint {
    static final String[] KINDS = {"javaHeap", "codeCache", "classMetadata", "nativeLibraries", "otherNative"};
    private static final int HEAP = 0, CODE = 1, METADATA = 2, LIBRARIES = 3, OTHER = 4;

    static volatile Object out;

    private CallFootprint() {}

    public static void main(String[] args) throws Exception {
        Args.main("CallFootprint", args, CallFootprint::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws Exception {
        Args o = Args.parse(args, Map.of("samples", "200", "warmup-calls", "200000", "pause-ms", "3", "out", ""));
        int samples = o.integer("samples", 1, Integer.MAX_VALUE, "samples");
        int warm = o.integer("warmup-calls", 0, Integer.MAX_VALUE, "calls");
        long pause = o.integer("pause-ms", 0, 60_000, "milliseconds");
        File clearRefs = new File("/proc/self/clear_refs");
        if (!clearRefs.canWrite()) {
            throw new IllegalStateException("CallFootprint needs Linux and write access to /proc/self/clear_refs (the kernel's"
                    + " accessed bits); this system has " + (clearRefs.exists() ? "it, not writable by this user" : "none"));
        }

        String agent = System.getProperty("bench.agent", "detached");
        SupportTools tools = new SupportTools();
        String session = "footprint-" + ProcessHandle.current().pid();
        boolean attached = !tools.refund(session, "A-1234", 20.0).equals("refunded");
        if (attached != agent.startsWith("attached")) {
            throw new IllegalStateException("-Dbench.agent=" + agent + " but the agent is " + (attached ? "" : "not ") + "active in this JVM");
        }
        int searches = tools.searches();
        for (int i = 0; i < warm; i++) out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
        HotSpotDiagnosticMXBean hs = ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
        long heapBytes = Long.parseLong(hs.getVMOption("MaxHeapSize").getValue());
        long classSpaceBytes = classSpaceBytes(hs);
        Thread.sleep(Math.max(200, 2 * pause));   // the warm-up's compilations and the writer's batch settle

        byte[] buffer = new byte[4 << 20];
        long[][] none = new long[KINDS.length + 1][samples];
        long[][] call = new long[KINDS.length + 1][samples];
        try (RandomAccessFile clear = new RandomAccessFile(clearRefs, "rw")) {
            for (int s = 0; s < samples; s++) {
                for (int withCall = 0; withCall < 2; withCall++) {
                    Thread.sleep(pause);
                    clear.seek(0);
                    clear.write('1');
                    if (withCall == 1) out = tools.searchKb(session, "refund policy for damaged items", 5, "en");
                    long[] kb = referencedKb(read("/proc/self/smaps", buffer), heapBytes, classSpaceBytes);
                    long[][] into = withCall == 1 ? call : none;
                    for (int k = 0; k <= KINDS.length; k++) into[k][s] = kb[k] / 4;
                }
            }
        }
        int ran = tools.searches() - searches;
        if (ran != warm + samples) {
            throw new IllegalStateException("the search tool body ran " + ran + " times, expected " + (warm + samples)
                    + ": the benchmark's passed call must pass (check the library in bench/agent)");
        }

        Map<String, Object> res = new LinkedHashMap<>();
        res.put("harness", "CallFootprint");
        res.put("date", Instant.now().toString());
        res.put("agent", agent);
        res.put("jvmArgs", ManagementFactory.getRuntimeMXBean().getInputArguments());
        res.put("samples", samples);
        res.put("pageBytes", 4096);
        Map<String, Object> perCall = new LinkedHashMap<>();
        for (int k = 0; k <= KINDS.length; k++) {
            String name = k == KINDS.length ? "all" : KINDS[k];
            Map<String, Object> row = new LinkedHashMap<>();
            long m0 = median(none[k]), m1 = median(call[k]);
            row.put("noCallPagesP50", m0);
            row.put("oneCallPagesP50", m1);
            row.put("callPages", m1 - m0);
            perCall.put(name, row);
        }
        res.put("pages", perCall);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!o.get("out").isEmpty()) json.writeValue(new File(o.get("out")), res);
        System.out.println(json.writeValueAsString(res));
    }

    /**
     * Referenced KiB by kind ({@link #KINDS} order, then all) from the text of {@code /proc/self/smaps}. The Java heap and
     * the compressed class space are each one reservation that the kernel may show as several adjacent mappings (committed
     * and not); a run of adjacent anonymous mappings right after the CDS archive is the class space, and one as large as
     * a reservation is taken for it (for the heap when both are as large, as with {@code -Xmx1g}).
     */
    static long[] referencedKb(String smaps, long heapBytes, long classSpaceBytes) {
        List<long[]> maps = new ArrayList<>();   // start, end, referenced KiB, kind (-1 anonymous data: decided below)
        long[] current = null;
        for (String line : smaps.split("\n")) {
            int dash = line.indexOf('-');
            int space = line.indexOf(' ');
            if (dash > 0 && space > dash && isHex(line, 0, dash) && isHex(line, dash + 1, space)) {
                String[] f = line.trim().split("\\s+", 6);
                String path = f.length > 5 ? f[5].trim() : "";
                long kind;
                if (path.endsWith(".jsa")) kind = METADATA;
                else if (path.contains(".so")) kind = LIBRARIES;
                else if (path.isEmpty() && f[1].indexOf('x') >= 0) kind = CODE;
                else if (path.isEmpty()) kind = -1;
                else kind = OTHER;
                current = new long[] {Long.parseUnsignedLong(line.substring(0, dash), 16),
                        Long.parseUnsignedLong(line.substring(dash + 1, space), 16), 0, kind};
                maps.add(current);
            } else if (current != null && line.startsWith("Referenced:")) {
                current[2] += Long.parseLong(line.substring("Referenced:".length()).replace("kB", "").trim());
            }
        }
        // runs of adjacent anonymous data mappings: the one as large as the heap's reservation is the heap
        for (int i = 0; i < maps.size(); ) {
            if (maps.get(i)[3] != -1) { i++; continue; }
            int j = i;
            while (j + 1 < maps.size() && maps.get(j + 1)[3] == -1 && maps.get(j + 1)[0] == maps.get(j)[1]) j++;
            long size = maps.get(j)[1] - maps.get(i)[0];
            // the class space is reserved right after the CDS archive's mappings; the heap may be as large as it
            boolean afterArchive = i > 0 && maps.get(i - 1)[3] == METADATA && maps.get(i - 1)[1] == maps.get(i)[0];
            long kind = afterArchive || (!near(size, heapBytes) && near(size, classSpaceBytes)) ? METADATA
                    : near(size, heapBytes) ? HEAP : OTHER;
            for (int k = i; k <= j; k++) maps.get(k)[3] = kind;
            i = j + 1;
        }
        long[] kb = new long[KINDS.length + 1];
        for (long[] m : maps) {
            kb[(int) m[3]] += m[2];
            kb[KINDS.length] += m[2];
        }
        return kb;
    }

    /** Within 2 MiB (the alignment the JVM rounds its reservations to). */
    private static boolean near(long size, long reserved) {
        return reserved > 0 && Math.abs(size - reserved) <= (2L << 20);
    }

    private static boolean isHex(String s, int from, int to) {
        if (to <= from) return false;
        for (int i = from; i < to; i++) {
            if (Character.digit(s.charAt(i), 16) < 0) return false;
        }
        return true;
    }

    private static long classSpaceBytes(HotSpotDiagnosticMXBean hs) {
        try {
            if (!Boolean.parseBoolean(hs.getVMOption("UseCompressedClassPointers").getValue())) return 0;
            return Long.parseLong(hs.getVMOption("CompressedClassSpaceSize").getValue());
        } catch (IllegalArgumentException absent) {
            return 0;
        }
    }

    private static String read(String path, byte[] buffer) throws IOException {
        try (FileInputStream in = new FileInputStream(path)) {
            int n = 0;
            for (int r; (r = in.read(buffer, n, buffer.length - n)) > 0; ) n += r;
            if (n == buffer.length) throw new IllegalStateException(path + " is larger than " + buffer.length + " bytes");
            return new String(buffer, 0, n, StandardCharsets.US_ASCII);
        }
    }

    static long median(long[] values) {
        long[] v = values.clone();
        Arrays.sort(v);
        return v[v.length / 2];
    }
}
