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
 * A fail: open start whose library did not load is watched (hot-reload, LibraryRecovery); when the fixed file loads while
 * the JVM runs the application's shutdown hooks, the agent registers its exit hook in a slot after theirs and supervises:
 * the call a graceful shutdown makes then is decided, and the audit log is drained and closed at the end (its block and
 * the session's end recorded, the chain verifies). Before session 16 Runtime.addShutdownHook threw "Shutdown in progress"
 * after the supervisor had been handed over: the recovery said "the supervisor could not be built", the supervisor ran
 * with no exit hook, and its audit log was never drained or closed (no end record).
 */
class RecoveryDuringShutdownTest {
    @TempDir Path dir;

    @Test
    void libraryFilesThatLoadDuringTheShutdownHooksAreSupervisedAndTheLogIsClosed() throws Exception {
        String library = """
                library: shop
                contracts:
                  - id: shop.no-search
                    guarantee: G !call(search)
                    message: No searches.
                """;
        Path shop = Files.writeString(dir.resolve("shop.yaml"), library.replace("G !call(search)", "G !call(search"));
        Path fixed = Files.writeString(dir.resolve("shop.yaml.new"), library);
        Path log = dir.resolve("audit.jsonl");
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + shop + "]\n"
                + "fail: open\n"
                + "hot-reload: 100ms\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n"
                + "configured-methods:\n"
                + "  - {class: example.shutdown.RecoveryInShutdown, method: search, kind: tool, session-param: 0}\n");
        ForkedAgent.Run r = ForkedAgent.run(dir, "config=" + yaml, "example.shutdown.RecoveryInShutdown", null, null,
                "-Drecovery.library=" + shop, "-Drecovery.fixed=" + fixed);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).as(r.err()).contains("before: results for a").contains("in the shutdown hook: ")
                .doesNotContain("results for b");
        assertThat(r.err()).contains("runs UNSUPERVISED because fail=open").contains("SUPERVISES from now on")
                .doesNotContain("could not be built").doesNotContain("Shutdown in progress");
        List<JsonNode> events = WarmupTest.records(log, "event");
        assertThat(events).as(r.err()).extracting(e -> e.path("session").asText() + " " + e.path("kind").asText() + " "
                        + e.path("decision").asText())
                .containsExactly("conv-1 call block", "conv-1 end end");
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
    }

    /**
     * The same with an escalate contract and escalate.approver: the approver's own shutdown hook (which refuses the
     * escalations still waiting as the JVM exits) cannot be registered while the JVM shuts down. Before, Approval's
     * constructor threw "Shutdown in progress" and the recovery said "the supervisor could not be built", so the hook's
     * call ran unsupervised and unrecorded; now the supervisor is built, and its escalation is refused at once without
     * asking the approver (which would allow it), as at any exit.
     */
    @Test
    void anEscalationApproverDoesNotKeepTheSupervisorFromBeingBuiltDuringTheShutdown() throws Exception {
        String library = """
                library: shop
                contracts:
                  - id: shop.ask-search
                    guarantee: G !call(search)
                    strategy: escalate
                    message: Searches need an approval.
                """;
        Path shop = Files.writeString(dir.resolve("shop.yaml"), library.replace("G !call(search)", "G !call(search"));
        Path fixed = Files.writeString(dir.resolve("shop.yaml.new"), library);
        Path log = dir.resolve("audit.jsonl");
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + shop + "]\n"
                + "fail: open\n"
                + "hot-reload: 100ms\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n"
                + "escalate.approver: example.shutdown.RecoveryInShutdown$Approver\n"
                + "configured-methods:\n"
                + "  - {class: example.shutdown.RecoveryInShutdown, method: search, kind: tool, session-param: 0}\n");
        ForkedAgent.Run r = ForkedAgent.run(dir, "config=" + yaml, "example.shutdown.RecoveryInShutdown", null, null,
                "-Drecovery.library=" + shop, "-Drecovery.fixed=" + fixed);
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).contains("SUPERVISES from now on").doesNotContain("could not be built").doesNotContain("Shutdown in progress");
        assertThat(r.out()).as(r.err()).contains("in the shutdown hook: ").doesNotContain("results for b");
        List<JsonNode> events = WarmupTest.records(log, "event");
        assertThat(events).as(r.err()).extracting(e -> e.path("session").asText() + " " + e.path("kind").asText() + " "
                        + e.path("decision").asText())
                .containsExactly("conv-1 call escalate", "conv-1 end end");
        assertThat(events.get(0).path("message").asText()).contains("the JVM is shutting down");
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
    }
}
