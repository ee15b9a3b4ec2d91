package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditTrace;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The verdicts an audit record carries are each contract's verdict on the session's prefix up to that event, as the
 * engine's offline replay computes them: across sessions whose contracts move through every verdict and back, so
 * that any shortcut in reading them (the supervisor remembers the verdicts of state vectors it has seen) shows.
 */
class RecordedVerdictsTest {
    @TempDir Path dir;

    private static final String[] TOOLS = {"a", "b", "c", "d", "e"};

    @Test
    void everyRecordCarriesTheReplayedVerdictsOfItsPrefix() throws Exception {
        Path lib = dir.resolve("moving.yaml");
        Files.writeString(lib, """
                library: moving
                contracts:
                  - id: answered
                    guarantee: G(call(a) -> F call(b))
                  - id: never-c
                    guarantee: G !call(c)
                  - id: some-d
                    guarantee: F call(d)
                  - id: b-after-a
                    guarantee: G(call(b) -> O call(a))
                  - id: e-then-a
                    guarantee: G(call(e) -> X call(a))
                  - id: guarded
                    assume: G !returned(c)
                    guarantee: G(call(d) -> Y returned(b))
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",mode=shadow,audit.personal-data=clear,audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        Random rnd = new Random(11);
        for (int i = 0; i < 600; i++) {
            String session = "s" + rnd.nextInt(4);
            String tool = TOOLS[rnd.nextInt(TOOLS.length)];
            s.onToolCall(new ToolCall("x", session, tool, "{}", null));
            if (rnd.nextInt(3) > 0) s.onToolResult(new ToolResult("x", session, tool, null, "ok", false));
        }
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();

        ObjectMapper json = new ObjectMapper();
        List<String> online = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode n = json.readTree(line);
            if (n.path("rec").asText().equals("event") && !n.path("kind").asText().equals("end")) {
                online.add(n.path("session").asText() + "#" + n.path("seq").asLong() + " " + n.path("verdicts").asText());
            }
        }
        Library library = Library.load(List.of(lib.toString()), null);
        Map<String, Replay<Event>> replays = new HashMap<>();
        List<String> offline = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        try (TraceReader in = AuditTrace.open(log, TraceReader.Mode.STRICT)) {
            for (Event e = in.next(); e != null; e = in.next()) {
                if (e.kind() == EventKind.END) continue;
                Replay<Event> replay = replays.computeIfAbsent(e.session(), library::replay);
                replay.next(e, e.controlledByAgent(), false);
                StringBuilder letters = new StringBuilder();
                for (Verdict v : replay.verdicts()) letters.append(v.name().charAt(0));
                offline.add(e.session() + "#" + e.seq() + " " + letters);
                seen.add(letters.toString());
            }
        }
        assertThat(online).hasSize(offline.size()).containsExactlyElementsOf(offline);
        assertThat(seen).as("the sessions went through many verdict combinations").hasSizeGreaterThan(8);
    }
}
