package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The idle sweep ends only idle sessions (found by the online AgentDojo comparison: sessions were
 * never marked used, so the first sweep ended every live conversation and it went on from seq 1
 * with no history). A conversation that keeps calling survives several sweeps with its history;
 * one that went quiet is ended with an END record.
 */
class IdleSweepTest {
    @TempDir Path dir;

    @Test
    void aBusySessionSurvivesTheSweepAndAQuietOneIsEnded() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        // idle timeout 2 s: the sweep runs every second
        AgentConfig config = AgentConfig.load("libraries=sop-refund,audit.personal-data=clear,sessions.idle-timeout=2s,audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            s.onToolCall(new ToolCall("test", "quiet", "lookup", "{}", "q1"));
            // the busy session approves a refund first, then keeps calling every 100 ms
            assertThat(s.onToolCall(new ToolCall("test", "busy", "approve_refund", "{\"order\":7,\"amount\":40}", "b0")).kind())
                    .isEqualTo(ToolDecision.Kind.PROCEED);
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "busy", "approve_refund", "b0", "approved", false));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int calls = 0;
            // until the quiet session has been swept (bounded), and at least three sweeps have passed
            while ((!ended(log, "quiet") || calls < 35) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                calls++;
                // the refund needs the approval earlier in this session: it passes only if the history is still there
                assertThat(s.onToolCall(new ToolCall("test", "busy", "refund", "{\"order\":7,\"amount\":40}", "b" + calls)).kind())
                        .as("call %d of the busy session", calls).isEqualTo(ToolDecision.Kind.PROCEED);
            }
            assertThat(ended(log, "quiet")).as("the quiet session was ended by the sweep; audit log:%n%s", tail(log)).isTrue();
            assertThat(ended(log, "busy")).as("the busy session was not ended").isFalse();
        } finally {
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    private static String tail(Path log) throws Exception {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }

    private static boolean ended(Path log, String session) throws Exception {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return lines.stream().anyMatch(l -> l.contains("\"session\":\"" + session + "\"") && l.contains("\"kind\":\"end\""));
    }

}
