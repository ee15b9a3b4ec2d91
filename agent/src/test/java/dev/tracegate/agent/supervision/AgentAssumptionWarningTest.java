package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's start warns, once per contract, about an assumption the agent's own calls can break (trial7 repro 8),
 * and the online semantics stay as DESIGN states them: the call that breaks it runs, and the contract is then IDLE.
 */
class AgentAssumptionWarningTest {
    @TempDir Path dir;

    @Test
    void theStartWarnsOncePerContractAndTheBreakingCallRuns() throws Exception {
        Path lib = Files.writeString(dir.resolve("ag2.yaml"), "library: ag2\ncontracts:\n  - id: ag2.pay-once\n"
                + "    assume: G !call(debug_mode)\n    guarantee: G(count(pay) <= 1)\n    message: one payment\n"
                + "  - id: ag2.env\n    assume: G !failed(lookup)\n    guarantee: G !call(wipe)\n");
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        ContractSupervisor s;
        try {
            s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        } finally {
            AgentLog.captureForTest(null);
        }
        String warned = "[tracegate] WARN " + lib + ":3: contract ag2.pay-once's assumption (G !call(debug_mode)) reads the agent's"
                + " own events (call(debug_mode)), so the agent can break the assumption and so escape the guarantee";
        assertThat(err.toString(StandardCharsets.UTF_8).lines().filter(l -> l.startsWith(warned)).count()).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("ag2.env's assumption");
        try {
            assertThat(s.onToolCall(new ToolCall("t", "c1", "pay", "{}", "1")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
            assertThat(s.onToolCall(new ToolCall("t", "c1", "debug_mode", "{}", "2")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
            assertThat(s.onToolCall(new ToolCall("t", "c1", "pay", "{}", "3")).kind())
                    .as("IDLE: the guarantee no longer binds, which is why the start warns").isEqualTo(ToolDecision.Kind.PROCEED);
        } finally {
            s.close();
            audit.close(10, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
