package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.CallReach;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial9 redact-nested-whole-argument and redact-answer-other-category through the supervisor: the nested field goes, the
 * audit log records the call without it and the reason names its path; a call site that passes the host's own object
 * refuses with why; an answer keeps the e-mail address its card contract does not name.
 */
class RedactNestedSupervisionTest {
    @TempDir Path dir;
    private final ObjectMapper json = new ObjectMapper();

    private static final String TRIAL_CALL = "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\",\"city\":\"Leeds\"}}";

    /**
     * A call whose arguments could not be read (kept as {@code _raw}) has no field a redaction can remove: before,
     * the redaction removed {@code _raw} and the tool ran with every parameter null (trial43, the LOW beside 01). It is
     * blocked, and the reason says why it could not be redacted.
     */
    @Test
    void aCallWhoseArgumentsCouldNotBeReadIsBlockedNotRedactedToNothing() throws Exception {
        Path lib = dir.resolve("mail.yaml");
        Files.writeString(lib, """
                library: mail
                contracts:
                  - id: mail.no-email
                    guarantee: G(call(send) -> !category(email))
                    strategy: redact
                    message: No addresses in mails.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        ToolDecision readable = s.onToolCall(new ToolCall("x", "s1", "send", "{\"to\":\"ann@example.com\",\"body\":\"hi\"}", null));
        assertThat(readable.kind()).as("a readable call is redacted as before").isEqualTo(ToolDecision.Kind.REDACT);
        ToolDecision raw = s.onToolCall(new ToolCall("x", "s2", "send", "to ann@example.com: hi", null));
        assertThat(raw.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(raw.reason()).contains("It could not be redacted: its arguments could not be read as the tool's fields");
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(log)).contains("\"decision\":\"redact\"").contains("\"decision\":\"block\"");
    }

    @Test
    void theNestedFieldGoesAndTheAuditLogAndReasonSaySo() throws Exception {
        Path lib = dir.resolve("prof.yaml");
        Files.writeString(lib, """
                library: prof
                contracts:
                  - id: prof.no-card
                    guarantee: G(call(updateProfile) -> !category(payment_card))
                    strategy: redact
                    message: No cards in profiles.
                  - id: prof.no-card-answer
                    guarantee: G(assistant -> !category(payment_card))
                    strategy: redact
                    message: No cards in answers.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        ToolDecision d = s.onToolCall(new ToolCall("x", "s1", "updateProfile", TRIAL_CALL, null));
        assertThat(d.kind()).isEqualTo(ToolDecision.Kind.REDACT);
        assertThat(json.readTree(d.argumentsJson())).isEqualTo(json.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"city\":\"Leeds\"}}"));
        assertThat(d.reason()).contains("(profile.card)");

        CallReach record = new CallReach("a configured method (r.App$Crm.updateProfile) has no other tool to run instead", null, Map.of(),
                Map.of("profile", "a r.App$Profile parameter of r.App$Crm.updateProfile"));
        ToolDecision refused = s.onToolCall(new ToolCall("configured", "s2", "updateProfile", TRIAL_CALL, null, null, record));
        assertThat(refused.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(refused.reason()).contains("It could not be redacted: profile.card lies inside the argument profile, a r.App$Profile parameter"
                + " of r.App$Crm.updateProfile, whose parts cannot be removed one by one");

        MessageDecision answer = s.onAssistantMessage(new Message("x", "s3", "The card on file is 4111 1111 1111 1111, we write to ada@example.com."));
        assertThat(answer.text()).isEqualTo("The card on file is [redacted: payment_card], we write to ada@example.com.");
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        List<JsonNode> calls = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode n = json.readTree(line);
            if (n.path("rec").asText().equals("event") && n.path("kind").asText().equals("call")) calls.add(n);
        }
        assertThat(calls).extracting(n -> n.path("decision").asText()).containsExactly("redact", "block");
        assertThat(calls.get(0).path("args")).isEqualTo(json.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"city\":\"Leeds\"}}"));
    }
}
