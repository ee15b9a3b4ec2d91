package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A tool call that comes after the agent's shutdown (its sessions ended, its audit log closed) is refused under
 * fail: closed with the reason that is true, the shutdown, not "the audit log is unavailable", which an alert on
 * outages fires on (trial23 03); under fail: open the contracts still decide it, as during an outage.
 */
class CallsAfterShutdownTest {
    @TempDir Path dir;

    private ContractSupervisor started(String fail) throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                contracts:
                  - id: shop.no-delete
                    guarantee: G !call(delete)
                    message: No deletes.
                """);
        Path log = dir.resolve(fail + ".jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",fail=" + fail + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        assertThat(s.onToolCall(new ToolCall("test", "a", "search", "{}", "c1")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        s.close();   // what the agent's shutdown does: end the sessions, then close the log
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        return s;
    }

    @Test
    void underFailClosedACallAfterTheShutdownIsRefusedNamingTheShutdown() throws Exception {
        ToolDecision d = started("closed").onToolCall(new ToolCall("test", "a", "search", "{}", "c2"));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(d.reason()).contains("the JVM is shutting down").contains("(fail: closed)").doesNotContain("unavailable");
    }

    @Test
    void underFailOpenTheContractsStillDecideACallAfterTheShutdown() throws Exception {
        ContractSupervisor s = started("open");
        assertThat(s.onToolCall(new ToolCall("test", "a", "search", "{}", "c2")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        ToolDecision d = s.onToolCall(new ToolCall("test", "a", "delete", "{}", "c3"));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(d.contract()).isEqualTo("shop.no-delete");
    }
}
