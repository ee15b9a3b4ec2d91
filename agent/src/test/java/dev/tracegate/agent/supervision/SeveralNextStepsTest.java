package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.BlockText;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
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
 * When several contracts refuse one call or answer, the model is told every one's next step, once each, in contract
 * order (trial9 multi-block-next: an erased subject without consent was told only P1's "ask for consent", so a model
 * following it would be refused again by P4, whose "do not process that person's data" was dropped).
 */
class SeveralNextStepsTest {
    @TempDir Path dir;

    @Test
    void aCallOrAnAnswerRefusedByTwoContractsCarriesBothNextSteps() throws Exception {
        Path lib = dir.resolve("two.yaml");
        Files.writeString(lib, """
                library: two
                contracts:
                  - id: two.consent
                    guarantee: G !call(lookup)
                    message: No consent.
                    next: Ask the customer for consent first.
                  - id: two.erased
                    guarantee: G(call(lookup) -> !arg_matches(who, "eve"))
                    message: Eve asked for erasure.
                    next: Do not process that person's data
                  - id: two.same
                    guarantee: G !call(lookup)
                    message: Also no.
                    next: Ask the customer for consent first.
                  - id: two.quiet
                    guarantee: G !assistant
                    message: No answers.
                    next: Stay silent.
                  - id: two.no-eve
                    guarantee: G(assistant -> !output_matches("eve"))
                    message: Eve is erased.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log + ",block.style=exception", Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);

        ToolDecision d = s.onToolCall(new ToolCall("lc4j", "c1", "lookup", "{\"who\":\"eve\"}", "t1"));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(d.instead()).isEqualTo("Ask the customer for consent first. Do not process that person's data");
        assertThat(BlockText.of("the call to lookup", d.contract(), d.reason(), d.instead()))
                .contains("(contract two.consent): No consent.").contains("two.erased: Eve asked for erasure.")
                .endsWith("Instead: Ask the customer for consent first. Do not process that person's data");

        ToolDecision one = s.onToolCall(new ToolCall("lc4j", "c2", "lookup", "{\"who\":\"ann\"}", "t2"));
        assertThat(one.instead()).as("one next step, however many contracts give it").isEqualTo("Ask the customer for consent first.");

        MessageDecision answer = s.onAssistantMessage(new Message("lc4j", "c3", "I wrote to eve"));
        assertThat(answer.text()).endsWith("Instead: Stay silent.").doesNotContain("Stay silent. Stay silent.");
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }
}
