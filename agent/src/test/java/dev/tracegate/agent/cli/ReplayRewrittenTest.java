package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial15 replay-silent-on-redirect-redact: the audit log holds a redirected or redacted event as rewritten (the target's
 * call, the call without the removed field, the masked answer), which the contracts that acted let pass, so replay
 * reported them as never violated while it reported blocks and suppressions. Replay now names every contract that acted
 * online, from the record's decision and fired contracts. Oracle: the online supervisor's own decisions on one session.
 */
class ReplayRewrittenTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: r
            contracts:
              - id: r.transfer-cap
                guarantee: G(call(transfer) -> arg(transfer, amount) <= 100)
                strategy: redirect
                redirect-to: hold_transfer
                message: Transfers above 100 are held.
              - id: r.note-no-email
                guarantee: G(call(update_note) -> !category(email))
                strategy: redact
                message: Notes carry no e-mail address.
              - id: r.no-delete-note
                guarantee: G(call(update_note) -> !arg_matches(update_note, note, "DELETE"))
                message: Notes are not deleted.
              - id: r.answer-no-iban
                guarantee: G(assistant -> !category(iban))
                strategy: redact
                message: Answers carry no IBAN.
            """;

    @Test
    void replayOfAnEnforcedLogNamesEveryContractThatActedOnlineWhereItActed() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        // what the agent did online, per contract: the kind of its first action
        Map<String, String> online = new LinkedHashMap<>();
        Object previous = Dispatcher.swapTools(Map.of("transfer", new Object(), "hold_transfer", new Object(), "update_note", new Object()));
        try {
            ToolDecision d = s.onToolCall(new ToolCall("springai", "t1", "transfer", "{\"amount\":500}", "c1"));
            online.put(d.contract(), d.kind().name());
            d = s.onToolCall(new ToolCall("springai", "t1", "update_note", "{\"note\":\"call back\",\"email\":\"ada@example.com\"}", "c2"));
            online.put(d.contract(), d.kind().name());
            d = s.onToolCall(new ToolCall("springai", "t1", "update_note", "{\"note\":\"DELETE\"}", "c3"));
            online.put(d.contract(), d.kind().name());
            MessageDecision m = s.onAssistantMessage(new Message("springai", "t1", "Your IBAN is DE89370400440532013000."));
            online.put(m.contract(), m.kind().name());
        } finally {
            Dispatcher.swapTools(previous);
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(online).containsExactly(Map.entry("r.transfer-cap", "REDIRECT"), Map.entry("r.note-no-email", "REDACT"),
                Map.entry("r.no-delete-note", "BLOCK"), Map.entry("r.answer-no-iban", "REPLACE"));

        CliRun text = CliRun.of("replay", lib.toString(), log.toString(), "--no-progress");
        String out = text.out() + text.err();
        // each contract that acted online has its line, at the record where it acted
        assertThat(text.out()).as(out)
                .containsPattern("r.transfer-cap: redirected at audit.jsonl:\\d+ \\(seq 1, call hold_transfer\\) online")
                .containsPattern("r.note-no-email: redacted at audit.jsonl:\\d+ \\(seq 2, call update_note\\) online")
                .containsPattern("r.no-delete-note: violated first at audit.jsonl:\\d+ \\(seq 3, call update_note\\)")
                .containsPattern("r.answer-no-iban: redacted at audit.jsonl:\\d+ \\(seq 4, assistant\\) online");

        JsonNode contracts = new ObjectMapper().readTree(CliRun.of("replay", lib.toString(), log.toString(), "--no-progress", "--format", "json").out())
                .path("sessions").get(0).path("contracts");
        Map<String, JsonNode> byId = new LinkedHashMap<>();
        contracts.forEach(c -> byId.put(c.path("id").asText(), c));
        for (String id : List.of("r.transfer-cap", "r.note-no-email", "r.answer-no-iban")) {
            assertThat(byId.get(id).path("firstRewritten").asText()).as(id + " " + contracts).isNotEmpty();
            assertThat(byId.get(id).path("rewritten").asInt()).as(id).isEqualTo(1);
        }
        assertThat(byId.get("r.no-delete-note").path("firstRewritten").isNull()).isTrue();
        assertThat(byId.get("r.no-delete-note").path("events").asInt()).isEqualTo(1);
        assertThat(text.out()).as(out).containsPattern("r.note-no-email: redacted at audit.jsonl:\\d+ \\(seq 2, call update_note\\) online"
                + " \\(the log holds the rewritten event, which passes here\\)");
        assertThat(byId.get("r.note-no-email").path("rewrittenRefusedHere").asInt()).isZero();

        // trial19 06: a what-if replay with a stricter variant that refuses the rewritten call too said "which passes here"
        // on the line beside its own "violated first at" for the same event
        Path stricter = Files.writeString(dir.resolve("stricter.yaml"), LIBRARY.replace(
                "guarantee: G(call(update_note) -> !category(email))", "guarantee: G(call(update_note) -> !arg_matches(update_note, note, \"call\"))"));
        CliRun whatIf = CliRun.of("replay", stricter.toString(), log.toString(), "--no-progress");
        assertThat(whatIf.out()).as(whatIf.out() + whatIf.err())
                .containsPattern("r.note-no-email: violated first at audit.jsonl:\\d+ \\(seq 2, call update_note\\)")
                .containsPattern("r.note-no-email: redacted at audit.jsonl:\\d+ \\(seq 2, call update_note\\) online"
                        + " \\(the log holds the rewritten event, which these libraries refuse too\\)")
                .doesNotContain("which passes here\n  r.note-no-email").doesNotContainPattern("r.note-no-email: redacted.*passes here");
        JsonNode strict = new ObjectMapper().readTree(CliRun.of("replay", stricter.toString(), log.toString(), "--no-progress", "--format", "json").out())
                .path("sessions").get(0).path("contracts");
        strict.forEach(c -> {
            if (c.path("id").asText().equals("r.note-no-email")) assertThat(c.path("rewrittenRefusedHere").asInt()).as(c.toString()).isEqualTo(1);
        });
    }
}
