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
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Online, a call refused for an unevaluable argument weighs the strategies of every contract that some value of it
 * would fail, as replay names them all (trial13 unevaluable-blame-missing: with u.cap on redirect and u.neg on block,
 * only u.cap, which the "false" reading fails, was considered, so a block became a redirect).
 */
class UnevaluableStrategyTest {
    @TempDir Path dir;

    @Test
    void aBlockAmongTheContractsAnUnevaluableCallWouldFailBlocksIt() throws Exception {
        Path lib = Files.writeString(dir.resolve("un.yaml"), "library: un\ncontracts:\n"
                + "  - {id: u.cap, guarantee: \"G(call(pay) -> arg(pay, amount) <= 100)\", strategy: redirect, redirect-to: pay_small, message: cap}\n"
                + "  - {id: u.neg, guarantee: \"G(call(pay) -> !(arg(pay, amount) > 100))\", message: neg}\n");
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        ToolDecision d = s.onToolCall(new ToolCall("x", "s", "pay", "{\"amount\":\"lots\"}", null));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        // both are named, each saying that the amount could not be checked (their own messages would say it was too large)
        assertThat(d.reason()).contains("u.cap: tracegate could not check this call against this contract, so it refuses it")
                .contains("u.neg: tracegate could not check this call against this contract, so it refuses it");
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        assertThat(Files.readString(log)).contains("\"u.cap\"").contains("\"u.neg\"");
    }
}
