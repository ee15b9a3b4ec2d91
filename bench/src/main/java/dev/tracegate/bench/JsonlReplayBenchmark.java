package dev.tracegate.bench;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceReader;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Offline replay from a JSONL trace file, one operation per event (so the score is events per second):
 * the matchers' {@link TraceReader} parses the next line, the library's grounding grounds it and the
 * engine decides it. {@code replay} uses the engine's {@link Replay} (one per session, every contract's
 * verdict after every event); {@code monitor} is the loop of the {@code replay} command line
 * ({@link SessionMonitor#step} on the event's session, enforcing); {@code read} is the parsing alone.
 * At the end of the file the reader starts over, with fresh sessions. The traces ({@link JsonlTraces}):
 * {@code small} events or the AgentDojo runs; the libraries: the built-in {@code gdpr} or
 * {@code injection} with the bench's policy sections.
 * <p>
 * The forks pre-touch their heap ({@code -XX:+AlwaysPreTouch}, as bench/run.sh passes it): without it a short fork
 * measures G1's first pass over a fresh heap, where every page the loop allocates into is touched for the first time,
 * which on session 24's VM cost about 15 us of CPU a page and made the rows 3-4 times lower for old and new code alike
 * (perf24c, bench/README.md). The first-touch cost of a fresh JVM stays in the replay command's own rows.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g", "-XX:+AlwaysPreTouch"})
public class JsonlReplayBenchmark {

    /** A JSONL trace file read event by event, over and over. */
    @State(Scope.Thread)
    public static class Source {
        /** small: generated support-desk sessions of small events; agentdojo: the AgentDojo dataset's runs. */
        @Param({"small", "agentdojo"})
        public String trace = "small";

        Path dir;
        Path file;
        TraceReader reader;
        /** Completed passes over the file; a consumer starts fresh sessions when it changes. */
        long passes;
        /** The event {@link #next()} returned last. */
        Event last;

        /**
         * Opens {@code <trace>.jsonl} from the directory {@code -Dbench.traces} names (written by
         * {@link JsonlTraces#main}, as bench/run.sh does once for all forks), else writes it into a
         * temporary directory of its own, removed at the end of the trial.
         */
        @Setup(Level.Trial)
        public void setUp() throws IOException {
            String shared = System.getProperty("bench.traces", "");
            if (!shared.isEmpty()) {
                Path f = Path.of(shared, trace + ".jsonl");
                if (!Files.isRegularFile(f)) {
                    throw new IllegalStateException("-Dbench.traces=" + shared + " has no " + trace + ".jsonl; write it with "
                            + "java -cp benchmarks.jar dev.tracegate.bench.JsonlTraces --out " + shared);
                }
                open(f);
                return;
            }
            dir = Files.createTempDirectory("tracegate-bench-jsonl");
            open(JsonlTraces.write(trace, dir));
        }

        /** Reads {@code file} (written by {@link JsonlTraces#write}); the caller keeps it. */
        void open(Path file) throws IOException {
            this.file = file;
            reader = TraceReader.open(file, TraceReader.Mode.LENIENT);
        }

        /** The next event of the file, starting over after its last one. */
        public Event next() {
            try {
                Event e = reader.next();
                if (e == null) {
                    if (reader.events() == 0) throw new IllegalStateException(file + " holds no event");
                    reader.close();
                    reader = TraceReader.open(file, TraceReader.Mode.LENIENT);
                    passes++;
                    e = reader.next();
                }
                last = e;
                return e;
            } catch (IOException ex) {
                throw new UncheckedIOException(ex);
            }
        }

        @TearDown(Level.Trial)
        public void tearDown() throws IOException {
            reader.close();
            if (dir == null) return;
            try (Stream<Path> s = Files.walk(dir)) {
                for (Path p : s.sorted(Comparator.reverseOrder()).toList()) Files.delete(p);
            }
        }
    }

    /** The library the events are decided against, with per-session replays and a monitor. */
    @State(Scope.Thread)
    public static class Checker {
        /** gdpr or injection (each with the bench's policy sections). */
        @Param({"gdpr", "injection"})
        public String library = "gdpr";

        Library lib;
        final Map<String, Replay<Event>> replays = new HashMap<>();
        SessionMonitor<Event> monitor;
        Worker worker;
        long pass = -1;

        @Setup(Level.Trial)
        public void setUp() {
            lib = JsonlTraces.library(library);
        }

        /** The event decided by a {@link Replay} of its session; null for an END event (which ends the session's replay). */
        public Replay.Step replay(Event e, long sourcePass) {
            if (sourcePass != pass) {
                replays.clear();
                pass = sourcePass;
            }
            if (e.kind() == EventKind.END) {
                Replay<Event> r = replays.remove(e.session());
                if (r != null) r.end();
                return null;
            }
            Replay<Event> r = replays.get(e.session());
            if (r == null) {
                r = lib.replay(e.session());
                replays.put(e.session(), r);
            }
            return r.next(e, e.controlledByAgent(), true);
        }

        /** The event decided as the replay command line does: the monitor's step on its session, enforcing. */
        public Decision monitor(Event e, long sourcePass) {
            if (sourcePass != pass) {
                // a fresh monitor per pass, so every pass starts from the same empty sessions
                monitor = lib.newMonitor(new SessionMonitor.Options(Integer.MAX_VALUE, true), r -> {});
                worker = monitor.newWorker();
                pass = sourcePass;
            }
            Session s = monitor.session(e.session());
            if (e.kind() == EventKind.END) {
                monitor.end(s);
                return null;
            }
            return monitor.step(s, e, e.controlledByAgent(), true, worker);
        }
    }

    @Benchmark
    public Event read(Source src) {
        return src.next();
    }

    @Benchmark
    public Replay.Step replay(Source src, Checker c) {
        return c.replay(src.next(), src.passes);
    }

    @Benchmark
    public Decision monitor(Source src, Checker c) {
        return c.monitor(src.next(), src.passes);
    }
}
