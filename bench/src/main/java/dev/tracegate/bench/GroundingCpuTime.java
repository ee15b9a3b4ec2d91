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
 * {@link GroundingBenchmark}'s bodies timed with this thread's CPU clock: grounding + step per event,
 * for the same event stepped again and for a new event per operation, per library. On a shared machine
 * JMH's wall-clock scores include time spent waiting for a core; these do not. Not a replacement for
 * JMH: no blackhole beyond a static sink, one thread, medians of few rounds. By default each (library, body)
 * runs in a new JVM, as JMH forks per parameter set; {@code --jvm one} runs all in this JVM, in the order given.
 *
 * <p>Usage: {@code java -cp benchmarks.jar dev.tracegate.bench.GroundingCpuTime [--libraries support,gdpr,injection]
 * [--bodies stepCall,stepCallFresh,...] [--operations 20000] [--rounds 7] [--jvm each|one] [--out file.json]}
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

    /** The bodies timed, in this order. */
    static final List<String> BODIES = List.of("stepCall", "stepCallFresh", "stepResult", "stepResultFresh", "stepUser", "stepUserFresh");

    public static void main(String[] args) throws Exception {
        Args.main("GroundingCpuTime", args, GroundingCpuTime::cli);
    }

    /** The harness; a bad option is refused ({@link Args.BadOption}) before anything is measured. */
    static void cli(String[] args) throws IOException, InterruptedException {
        Args a = Args.parse(args, Map.of("libraries", "support,gdpr,injection", "bodies", String.join(",", BODIES), "operations", "20000",
                "rounds", "7", "jvm", "each", "out", ""));
        String[] libraries = a.get("libraries").split(",");
        List<String> bodies = bodies(a.get("bodies"));
        int operations = a.integer("operations", 1, Integer.MAX_VALUE, "operations per round");
        int rounds = a.integer("rounds", 1, Integer.MAX_VALUE, "rounds");
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("harness", "GroundingCpuTime");
        out.put("environment", Environment.describe());
        List<Map<String, Object>> runs = switch (a.get("jvm")) {
            case "each" -> measureIsolated(libraries, bodies, operations, rounds);
            case "one" -> measure(libraries, bodies, operations, rounds);
            default -> throw new Args.BadOption("--jvm must be each (a new JVM per library and body) or one (all in this JVM),"
                    + " got '" + a.get("jvm") + "'");
        };
        out.put("isolation", a.get("jvm").equals("each") ? "a new JVM per library and body" : "one JVM for all, in the order given");
        out.put("runs", runs);
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        if (!a.get("out").isEmpty()) json.writeValue(new File(a.get("out")), out);
        System.out.println(json.writeValueAsString(out));
    }

    static List<String> bodies(String list) {
        List<String> out = new ArrayList<>();
        for (String b : list.split(",")) {
            if (!BODIES.contains(b.strip())) {
                throw new Args.BadOption("unknown body '" + b.strip() + "' in --bodies; known: " + String.join(", ", BODIES));
            }
            out.add(b.strip());
        }
        return out;
    }

    /**
     * Each (library, body) timed in a JVM of its own, started with this JVM's options and class path: in one JVM the
     * figures depended on what ran before (profiles of the shared grounding and engine code, a megamorphic body call).
     */
    static List<Map<String, Object>> measureIsolated(String[] libraries, List<String> bodies, int operations, int rounds)
            throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ObjectMapper json = new ObjectMapper();
        List<Map<String, Object>> runs = new ArrayList<>();
        for (String library : libraries) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("library", library.strip());
            r.put("unit", "CPU ns per operation (median of rounds)");
            for (String body : bodies) {
                Path result = Files.createTempFile("grounding-cpu-", ".json");
                try {
                    List<String> cmd = new ArrayList<>(List.of(java));
                    cmd.addAll(ManagementFactory.getRuntimeMXBean().getInputArguments());
                    cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), GroundingCpuTime.class.getName(),
                            "--libraries", library.strip(), "--bodies", body, "--operations", Integer.toString(operations),
                            "--rounds", Integer.toString(rounds), "--jvm", "one", "--out", result.toString()));
                    Process p = new ProcessBuilder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
                    int exit = p.waitFor();
                    if (exit != 0) {
                        throw new IllegalStateException("the JVM timing " + body + " with library " + library.strip() + " exited with "
                                + exit + " (its error is above); command: " + String.join(" ", cmd));
                    }
                    r.put(body, json.readTree(result.toFile()).get("runs").get(0).get(body).asDouble());
                } finally {
                    Files.deleteIfExists(result);
                }
            }
            runs.add(r);
        }
        return runs;
    }

    /** Median CPU ns per operation of each body, per library, all in this JVM in the order given. */
    static List<Map<String, Object>> measure(String[] libraries, List<String> bodies, int operations, int rounds) {
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
            for (String body : bodies) {
                Body run = switch (body) {
                    case "stepCall" -> i -> b.stepCall(s);
                    case "stepCallFresh" -> i -> b.stepCallFresh(s);
                    case "stepResult" -> i -> b.stepResult(s);
                    case "stepResultFresh" -> i -> b.stepResultFresh(s);
                    case "stepUser" -> i -> b.stepUser(s);
                    case "stepUserFresh" -> i -> b.stepUserFresh(s);
                    default -> throw new IllegalArgumentException("unknown body " + body);
                };
                r.put(body, median(threads, operations, rounds, run));
            }
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
