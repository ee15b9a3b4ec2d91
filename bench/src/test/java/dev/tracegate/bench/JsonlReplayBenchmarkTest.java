package dev.tracegate.bench;

import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One pass of the JSONL replay benchmark's bodies over each trace: every line is read as one event, every
 * event gets a decision, the engine's Replay and the command line's monitor loop decide alike (Replay is
 * the monitor's test oracle), the injection library blocks exactly the small trace's planted calls, and the
 * next pass starts from fresh sessions.
 */
class JsonlReplayBenchmarkTest {

    /** The events of one pass and, per event, the decision of each path. */
    record Pass(List<Event> events, List<Decision.Kind> replay, List<Decision.Kind> monitor, long lines) {}

    static Pass onePass(String trace, String library) throws IOException {
        JsonlReplayBenchmark b = new JsonlReplayBenchmark();
        JsonlReplayBenchmark.Source forReplay = source(trace);
        JsonlReplayBenchmark.Source forMonitor = source(trace);
        JsonlReplayBenchmark.Checker replayChecker = checker(library);
        JsonlReplayBenchmark.Checker monitorChecker = checker(library);
        // independent of the reader: the file's non-blank lines
        long lines;
        try (var s = Files.lines(forReplay.file)) {
            lines = s.filter(l -> !l.isBlank()).count();
        }
        List<Event> events = new ArrayList<>();
        List<Decision.Kind> replay = new ArrayList<>();
        List<Decision.Kind> monitor = new ArrayList<>();
        try {
            for (long i = 0; i < lines; i++) {
                Replay.Step step = b.replay(forReplay, replayChecker);
                Decision d = b.monitor(forMonitor, monitorChecker);
                events.add(forReplay.last);
                replay.add(step == null ? null : step.decision());
                monitor.add(d == null ? null : d.kind());
            }
            assertThat(forReplay.passes).isZero();
            // one more: the reader starts over, the first event is decided as in the first pass
            Replay.Step again = b.replay(forReplay, replayChecker);
            Decision againMonitor = b.monitor(forMonitor, monitorChecker);
            assertThat(forReplay.passes).isEqualTo(1);
            assertThat(again == null ? null : again.decision()).isEqualTo(replay.get(0));
            assertThat(againMonitor == null ? null : againMonitor.kind()).isEqualTo(monitor.get(0));
        } finally {
            forReplay.tearDown();
            forMonitor.tearDown();
        }
        return new Pass(events, replay, monitor, lines);
    }

    /** Each trace written once for the whole class (the AgentDojo import takes a few seconds). */
    @TempDir
    static Path dir;
    private static final java.util.Map<String, Path> FILES = new java.util.HashMap<>();

    static JsonlReplayBenchmark.Source source(String trace) throws IOException {
        Path file = FILES.get(trace);
        if (file == null) {
            file = JsonlTraces.write(trace, dir);
            FILES.put(trace, file);
        }
        JsonlReplayBenchmark.Source s = new JsonlReplayBenchmark.Source();
        s.trace = trace;
        s.open(file);
        return s;
    }

    @Test
    void theBenchmarkSetupWritesItsOwnTraceAndRemovesItAfterwards() throws IOException {
        JsonlReplayBenchmark.Source s = new JsonlReplayBenchmark.Source();
        s.setUp();
        assertThat(s.file).exists().hasFileName("small.jsonl");
        assertThat(new JsonlReplayBenchmark().read(s).session()).isEqualTo("shop-0");
        s.tearDown();
        assertThat(s.dir).doesNotExist();
    }

    static JsonlReplayBenchmark.Checker checker(String library) {
        JsonlReplayBenchmark.Checker c = new JsonlReplayBenchmark.Checker();
        c.library = library;
        c.setUp();
        return c;
    }

    @Test
    void withSharedTracesTheSetupReadsThemAndLeavesThemInPlace() throws IOException {
        Path small = source("small").file;
        System.setProperty("bench.traces", small.getParent().toString());
        try {
            JsonlReplayBenchmark.Source s = new JsonlReplayBenchmark.Source();
            s.setUp();
            assertThat(s.file).isEqualTo(small);
            assertThat(new JsonlReplayBenchmark().read(s).session()).isEqualTo("shop-0");
            s.tearDown();
            assertThat(small).exists();
            JsonlReplayBenchmark.Source missing = new JsonlReplayBenchmark.Source();
            missing.trace = "agentdojo";
            System.setProperty("bench.traces", small.getParent().resolve("elsewhere").toString());
            org.assertj.core.api.Assertions.assertThatThrownBy(missing::setUp).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("has no agentdojo.jsonl").hasMessageContaining("JsonlTraces --out");
        } finally {
            System.clearProperty("bench.traces");
        }
    }

    @ParameterizedTest
    @CsvSource({"small,gdpr", "small,injection", "agentdojo,gdpr", "agentdojo,injection"})
    void everyLineIsOneEventWithOneDecisionAndBothPathsAgree(String trace, String library) throws IOException {
        if (trace.equals("agentdojo")) {
            Path dataset = Path.of(System.getProperty("bench.agentdojo", JsonlTraces.DEFAULT_AGENTDOJO));
            org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(dataset.resolve("runs")),
                    "AgentDojo dataset not found at " + dataset + "; pass -Dbench.agentdojo=DIR to run this case");
        }
        Pass p = onePass(trace, library);
        if (trace.equals("small")) assertThat(p.lines).isEqualTo((long) JsonlTraces.SMALL_SESSIONS * JsonlTraces.SMALL_SESSION_EVENTS);
        else assertThat(p.lines).isGreaterThan(5_000);
        long ends = p.events.stream().filter(e -> e.kind() == EventKind.END).count();
        assertThat(p.replay.stream().filter(k -> k != null).count()).isEqualTo(p.lines - ends);
        assertThat(p.monitor).isEqualTo(p.replay);
        if (trace.equals("small") && library.equals("injection")) blocksExactlyThePlantedCalls(p);
        System.out.println(trace + " / " + library + ": " + p.lines + " events, decisions " + histogram(p.replay));
    }

    /** The injection library on the small trace blocks exactly the planted calls to an address only a tool result named. */
    static void blocksExactlyThePlantedCalls(Pass p) {
        List<String> blocked = new ArrayList<>();
        List<String> planted = new ArrayList<>();
        for (int i = 0; i < p.events.size(); i++) {
            Event e = p.events.get(i);
            if (p.replay.get(i) == Decision.Kind.BLOCK) blocked.add(e.session() + "#" + e.seq());
            if (e.kind() == EventKind.CALL && e.args().json().contains(JsonlTraces.UNTRUSTED)) planted.add(e.session() + "#" + e.seq());
            else assertThat(p.replay.get(i)).as("event %s", e).isIn(Decision.Kind.PASS, null);
        }
        assertThat(planted).hasSize(JsonlTraces.SMALL_SESSIONS / JsonlTraces.PLANT_EVERY);
        assertThat(blocked).isEqualTo(planted);
    }

    private static String histogram(List<Decision.Kind> kinds) {
        java.util.Map<Decision.Kind, Long> m = new java.util.EnumMap<>(Decision.Kind.class);
        for (Decision.Kind k : kinds) if (k != null) m.merge(k, 1L, Long::sum);
        return m.toString();
    }
}
