package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.bootstrap.Dispatcher;
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
 * trial15 redirect-target-refused-unexplained: a redirect whose target another contract refuses is a block of the
 * original call (LIBRARY.md: "if that call itself passes; else block"), and the block said only the redirect contract's
 * message: neither the model, the stderr line nor the audit record told that the redirect was tried and which contract
 * refused its target. The reason now says so, and what the model is told to do instead does not send it to the target.
 */
class RedirectTargetRefusedTest {
    @TempDir Path dir;

    private record Run(List<ToolDecision> decisions, List<String> calls) {
    }

    private Run run(String library, ToolCall... calls) throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), library);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        Object previous = Dispatcher.swapTools(Map.of("transfer", new Object(), "hold_transfer", new Object(),
                "send_mail", new Object(), "draft_mail", new Object()));
        List<ToolDecision> decisions = new java.util.ArrayList<>();
        try {
            for (ToolCall c : calls) decisions.add(s.onToolCall(c));
        } finally {
            Dispatcher.swapTools(previous);
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        return new Run(decisions, Files.readAllLines(log).stream().filter(l -> l.contains("\"kind\":\"call\"")).toList());
    }

    private static final String HOLD = """
            library: r
            contracts:
              - id: r.transfer-cap
                guarantee: G(call(transfer) -> arg(transfer, amount) <= 100)
                strategy: redirect
                redirect-to: hold_transfer
                message: Transfers above 100 are held.
                next: Tell the user the transfer is held for review.
              - id: r.hold-cap
                guarantee: G(call(hold_transfer) -> arg(hold_transfer, amount) <= 1000)
                message: Holds above 1000 are not allowed.
            """;

    @Test
    void aRedirectWhoseTargetAnotherContractBlocksIsABlockThatNamesTheTargetAndTheContract() throws Exception {
        Run run = run(HOLD, new ToolCall("springai", "s1", "transfer", "{\"amount\":5000}", "c1"));
        ToolDecision d = run.decisions().get(0);
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(d.contract()).isEqualTo("r.transfer-cap");
        assertThat(d.reason()).startsWith("r.transfer-cap: Transfers above 100 are held.")
                .contains(" It could not be redirected to hold_transfer: r.hold-cap refuses that call too"
                        + " (r.hold-cap: Holds above 1000 are not allowed.).");
        // the contract's next ("the transfer is held") would be false here: nothing was held
        assertThat(d.instead()).isEqualTo("Tell the user the transfer is held for review. Do not call transfer again: it is refused,"
                + " and hold_transfer, which would run in its place, is refused too (r.hold-cap). Tell the user that this cannot be done now.");
        assertThat(run.calls()).hasSize(1);
        assertThat(run.calls().get(0)).contains("\"tool\":\"transfer\"").contains("\"decision\":\"block\"")
                .contains("could not be redirected to hold_transfer: r.hold-cap refuses that call too")
                // fired is the original call's: replay steps that call, where only the redirect contract refuses
                .contains("\"fired\":[\"r.transfer-cap\"]");
    }

    @Test
    void aRedirectWhoseTargetPassesIsUnchanged() throws Exception {
        Run run = run(HOLD, new ToolCall("springai", "s1", "transfer", "{\"amount\":500}", "c1"));
        ToolDecision d = run.decisions().get(0);
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
        assertThat(d.targetTool()).isEqualTo("hold_transfer");
        assertThat(d.reason()).doesNotContain("could not be redirected");
        assertThat(run.calls().get(0)).contains("\"tool\":\"hold_transfer\"").contains("\"decision\":\"redirect\"");
    }

    @Test
    void aTargetThatAContractWouldOnlyRedactCountsAsRefusedAndIsNamed() throws Exception {
        Run run = run("""
                library: srv
                contracts:
                  - id: srv.mail-draft
                    guarantee: G !call(send_mail)
                    strategy: redirect
                    redirect-to: draft_mail
                    message: Mails are drafted.
                  - id: srv.draft-no-iban
                    guarantee: G(call(draft_mail) -> !category(iban))
                    strategy: redact
                    message: Drafts carry no IBAN.
                """, new ToolCall("mcp-server", "s1", "send_mail", "{\"to\":\"a@b.c\",\"body\":\"pay to DE89370400440532013000\"}", "c1"),
                new ToolCall("mcp-server", "s1", "send_mail", "{\"to\":\"a@b.c\",\"body\":\"hello\"}", "c2"));
        ToolDecision d = run.decisions().get(0);
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(d.reason()).contains("It could not be redirected to draft_mail: srv.draft-no-iban refuses that call too (srv.draft-no-iban: Drafts carry no IBAN.");
        assertThat(d.instead()).contains("draft_mail, which would run in its place, is refused too (srv.draft-no-iban)");
        assertThat(run.decisions().get(1).kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
    }
}
