package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The JVM's exit while a call waits for the escalation approver (trial16 sigterm-waits-for-escalation): the shutdown
 * refuses the escalation at once, as escalate.timeout would, says so on standard error, and ends the session with its
 * END record, instead of holding the exit until the timeout (60 s here; the old agent exited when it ran out).
 */
class ShutdownEscalationTest {
    @TempDir Path dir;

    @Test
    void anEscalationStillWaitingAtExitIsRefusedAtOnceAndItsSessionEnds() throws Exception {
        Files.writeString(dir.resolve("pay.yaml"), """
                library: pay
                contracts:
                  - id: pay.approve-wires
                    guarantee: G !call(wire)
                    strategy: escalate
                    message: Wires need approval.
                    next: Ask a human.
                """);
        Path log = dir.resolve("audit.jsonl");
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + dir.resolve("pay.yaml") + "]\n"
                + "audit.path: " + log + "\n"
                + "audit.personal-data: clear\n"
                + "warmup: false\n"
                + "escalate.approver: example.shutdown.PendingEscalation$SlowApprover\n"
                + "escalate.timeout: 60s\n"
                + "configured-methods:\n"
                + "  - {class: example.shutdown.PendingEscalation, method: wire, kind: tool, session-param: 0}\n");
        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + yaml, "example.shutdown.PendingEscalation", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("exiting while the call waits for its approver");
        assertThat(run.err()).as("one line says why the waiting call was refused")
                .contains("WARN the JVM is shutting down: 1 escalated call was still waiting for the approver"
                        + " example.shutdown.PendingEscalation$SlowApprover and is refused now, as escalate.timeout (60 s) would refuse it");
        List<JsonNode> events = WarmupTest.records(log, "event");
        assertThat(events).extracting(e -> e.path("session").asText() + " " + e.path("kind").asText() + " " + e.path("decision").asText())
                .containsExactly("conv-1 call escalate", "conv-1 end end");
        assertThat(events.get(0).path("message").asText()).contains("Refused: the JVM is shutting down")
                .doesNotContain("did not answer within");
        assertThat(events.get(0).has("approved")).isFalse();
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
    }
}
