package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.BlockText;
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
 * When several contracts refuse one call, each one's reason is a sentence of its own in the text the model gets
 * (trial21 12: two contracts that could not evaluate a call ran together as "... so it refuses it un.each: tracegate
 * could not ..."; a message without a final full stop was glued to the next contract's id the same way).
 */
class SeveralReasonsTest {
    @TempDir Path dir;

    @Test
    void eachRefusingContractsReasonIsItsOwnSentence() throws Exception {
        Path lib = dir.resolve("un.yaml");
        Files.writeString(lib, """
                library: un
                contracts:
                  - id: un.budget
                    guarantee: G(sum(pay, amount) <= 100)
                  - id: un.each
                    guarantee: G(call(pay) -> arg(pay, amount) <= 50)
                  - id: un.quiet
                    guarantee: G !call(mail)
                    message: no mail today
                  - id: un.never
                    guarantee: G(call(mail) -> !arg_matches(to, "eve"))
                    message: not to eve
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log + ",block.style=exception", Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);

        ToolDecision d = s.onToolCall(new ToolCall("lc4j", "c1", "pay", "{\"amount\":\"0x10\"}", "t1"));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        String text = BlockText.of("the call to pay", d.contract(), d.reason(), d.instead());
        assertThat(text).startsWith("tracegate blocked the call to pay (contract un.budget): tracegate could not check this call"
                        + " against this contract, so it refuses it. un.each: tracegate could not check this call against this"
                        + " contract, so it refuses it (unevaluable: ")
                .doesNotContain("refuses it un.each");

        ToolDecision m = s.onToolCall(new ToolCall("lc4j", "c2", "mail", "{\"to\":\"eve\"}", "t1"));
        assertThat(BlockText.of("the call to mail", m.contract(), m.reason(), m.instead()))
                .startsWith("tracegate blocked the call to mail (contract un.quiet): no mail today. un.never: not to eve");
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }

    /** A sentence the agent appends to a message without a final full stop (here: why the redirect could not run) is its own. */
    @Test
    void aSentenceAppendedToAMessageWithoutAFullStopIsNotGluedToIt() throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), """
                library: r
                contracts:
                  - id: r.external-mail
                    guarantee: G !call(send_email)
                    strategy: redirect
                    redirect-to: drft_email
                    message: external mail is drafted, not sent
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        dev.tracegate.agent.core.AgentLog.captureForTest(new java.io.PrintStream(new java.io.ByteArrayOutputStream(), true));
        Object previous = dev.tracegate.agent.bootstrap.Dispatcher.swapTools(Map.of("send_email", new Object(), "draft_email", new Object()));
        try {
            ToolDecision d = s.onToolCall(new ToolCall("langchain4j", "s1", "send_email", "{\"to\":\"x@gmail.com\"}", "c1"));
            assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
            assertThat(d.reason()).startsWith("r.external-mail: external mail is drafted, not sent. It could not be redirected to drft_email:");
        } finally {
            dev.tracegate.agent.bootstrap.Dispatcher.swapTools(previous);
            dev.tracegate.agent.core.AgentLog.captureForTest(null);
        }
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }
}
