package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit file moved away while the agent runs (logrotate's default create mode, or mv by hand): the writer notices
 * it within about a second and starts a new file at the path, whose header names the moved file's head; both files
 * verify, every record is in one of them, and equal values have equal digests in both (one salt).
 */
class AuditRotationTest {
    @TempDir Path dir;

    @Test
    void aMovedLogIsContinuedByANewFileThatNamesItsHead() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        Path rotated = dir.resolve("audit.jsonl.1");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        for (int i = 0; i < 50; i++) w.append(AuditRecord.of("s", i, "CALL", Decision.PASS).tool("t").args(java.util.Map.of("who", "ada")));
        waitFor(() -> countEvents(log) == 50);
        Files.move(log, rotated);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        int i = 50;
        while (!Files.exists(log)) {   // records keep coming while the writer has not noticed yet
            w.append(AuditRecord.of("s", i++, "CALL", Decision.PASS).tool("t").args(java.util.Map.of("who", "ada")));
            if (System.nanoTime() > deadline) throw new AssertionError("no new file after the move");
            Thread.sleep(20);
        }
        for (int k = 0; k < 50; k++) w.append(AuditRecord.of("s", i++, "CALL", Decision.PASS).tool("t").args(java.util.Map.of("who", "ada")));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();

        AuditVerification old = AuditVerifier.verify(rotated);
        AuditVerification now = AuditVerifier.verify(log);
        assertThat(old.status()).as(old.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(now.status()).as(now.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(countEvents(rotated) + countEvents(log)).as("every record in one of the files").isEqualTo(i);

        List<JsonNode> newRecords = LogFiles.records(log);
        JsonNode header = newRecords.get(0);
        assertThat(header.get("rec").asText()).isEqualTo("header");
        assertThat(header.get("continues").asText()).as("the moved file's head").isEqualTo(old.head());
        JsonNode firstHeader = LogFiles.records(rotated).get(0);
        assertThat(firstHeader.has("continues")).isFalse();
        assertThat(header.get("salt").asText()).isEqualTo(firstHeader.get("salt").asText());
        String digestBefore = lastEvent(rotated).get("args").get("who").asText();
        String digestAfter = lastEvent(log).get("args").get("who").asText();
        assertThat(digestAfter).as("the same value, the same digest in both files").isEqualTo(digestBefore).startsWith("sha256:");
        assertThat(LogFiles.records(log)).as("the new file's chain starts from genesis")
                .first().satisfies(h -> assertThat(h.get("prev").asText()).isEqualTo(AuditLines.GENESIS));
    }

    @Test
    void aLogThatStaysPutIsNotReopened() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        for (int i = 0; i < 30; i++) {
            w.append(AuditRecord.of("s", i, "CALL", Decision.PASS).tool("t"));
            Thread.sleep(50);   // 1.5 s: the writer has checked at least once
        }
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        assertThat(LogFiles.ofType(log, "header")).hasSize(1);
        assertThat(AuditVerifier.verify(log).records()).isEqualTo(30);
    }

    private static long countEvents(Path p) {
        if (!Files.exists(p)) return 0;
        return LogFiles.records(p).stream().filter(r -> r.get("rec").asText().equals("event")).count();
    }

    private static JsonNode lastEvent(Path p) {
        List<JsonNode> rs = LogFiles.records(p);
        for (int k = rs.size() - 1; k >= 0; k--) if (rs.get(k).get("rec").asText().equals("event")) return rs.get(k);
        throw new AssertionError("no event in " + p);
    }

    private static void waitFor(java.util.function.BooleanSupplier done) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!done.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out");
            Thread.sleep(10);
        }
    }
}
