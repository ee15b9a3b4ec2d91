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
 * trial23 03: a tool call the application makes in its own shutdown hook (a graceful shutdown finishing the request in
 * flight after SIGTERM) is decided by the contracts with the session's history and recorded before the session's end,
 * under either failure policy. Before, the agent's shutdown ran beside the application's hooks and had ended the session
 * and closed the log: fail: closed refused the call as "the audit log is unavailable", fail: open ran the fourth search,
 * which the contract forbids, in a fresh session, unrecorded.
 */
class GracefulShutdownTest {
    @TempDir Path dir;

    @Test
    void aCallInTheApplicationsShutdownHookIsStillDecidedWithItsHistoryAndRecordedBeforeTheEnd() throws Exception {
        Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                contracts:
                  - id: shop.max-searches
                    guarantee: G(count(search) <= 3)
                    message: At most three searches per conversation.
                """);
        for (String fail : List.of("closed", "open")) {
            Path run = Files.createDirectories(dir.resolve(fail));
            Path log = run.resolve("audit.jsonl");
            Path yaml = Files.writeString(run.resolve("tracegate.yaml"), "libraries: [" + dir.resolve("shop.yaml") + "]\n"
                    + "fail: " + fail + "\n"
                    + "audit.path: " + log + "\n"
                    + "warmup: false\n"
                    + "configured-methods:\n"
                    + "  - {class: example.shutdown.GracefulShutdown, method: search, kind: tool, session-param: 0}\n");
            ForkedAgent.Run r = ForkedAgent.run(run, "config=" + yaml, "example.shutdown.GracefulShutdown", null, null,
                    "-Dgraceful.audit=" + log);
            assertThat(r.code()).as(fail + "\n" + r.err()).isZero();
            assertThat(r.out()).as(fail).contains("in the shutdown hook: tracegate blocked the call to search (contract shop.max-searches)")
                    .doesNotContain("results for d").doesNotContain("unavailable");
            List<JsonNode> events = WarmupTest.records(log, "event");
            assertThat(events).as(fail).extracting(e -> e.path("session").asText() + " " + e.path("kind").asText() + " " + e.path("decision").asText())
                    .filteredOn(s -> !s.contains(" return "))
                    .containsExactly("conv-1 call pass", "conv-1 call pass", "conv-1 call pass", "conv-1 call block", "conv-1 end end");
            AuditVerification v = AuditVerifier.verify(log);
            assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        }
    }
}
