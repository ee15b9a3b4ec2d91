package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
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
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's start says, as {@code check} does, which guarantee an event tracegate cannot refuse (a tool result, a user
 * message) can make fail: an operator who never ran {@code check} learned it only from the first session it happened
 * in, when the contract was already violated for good there.
 */
class EnvironmentFailureWarningTest {
    @TempDir Path dir;

    @Test
    void theStartWarnsAboutAGuaranteeAResultCanMakeFailAndNotAboutAGuardedOne() throws Exception {
        Path lib = Files.writeString(dir.resolve("pii.yaml"), """
                library: pii
                contracts:
                  - id: pii.no-iban
                    guarantee: G(returned(lookup_customer) -> !category(iban))
                    strategy: redact
                    message: No IBAN to the model.
                  - id: pii.no-iban-sent
                    guarantee: G(call(send_email) -> !category(iban))
                    strategy: redact
                    message: No IBAN in an e-mail.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        ContractSupervisor s = null;
        try {
            s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
            Thread analysis = s.analysisThread();
            analysis.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(analysis.isAlive()).as("the background analysis ended").isFalse();
        } finally {
            AgentLog.captureForTest(null);
            if (s != null) s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
        String said = err.toString(StandardCharsets.UTF_8);
        String warned = "[tracegate] WARN library analysis: " + lib + ":3: contract pii.no-iban's guarantee"
                + " (G(returned(lookup_customer) -> !category(iban))) can be made to fail by an event the agent does not control";
        assertThat(said.lines().filter(l -> l.startsWith(warned)).count()).as(said).isEqualTo(1);
        assertThat(said).as("with the fix, as check gives it").contains("assume: G(returned(lookup_customer) -> !category(iban)), strategy: suppress")
                .as("a guard on the agent's own call is not noted").doesNotContain("contract pii.no-iban-sent's guarantee");
    }
}
