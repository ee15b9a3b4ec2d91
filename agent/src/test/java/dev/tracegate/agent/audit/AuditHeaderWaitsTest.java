package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * trial31: with the agent in {@code JAVA_TOOL_OPTIONS} every JVM starts it, and {@code jps -l}, run while the service was
 * down, appended a {@code header} record (a segment of nothing) to the service's audit log. A writer that opens a file
 * which already holds a log now writes this run's header with its first record, so a run that records nothing leaves the
 * file as it was; a run that records writes the header first, as before, and the log verifies.
 */
class AuditHeaderWaitsTest {
    @TempDir Path dir;

    private static AuditRecord record(String session, int seq) {
        return AuditRecord.of(session, seq, "CALL", Decision.PASS).ts(1_700_000_000_000L + seq).tool("lookup").id("c" + seq);
    }

    private static void run(Path p, AuditRecord... records) {
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        assertThat(w.isHealthy()).isTrue();
        for (AuditRecord r : records) assertThat(w.append(r)).isEqualTo(AuditWriter.Admission.ACCEPTED);
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
    }

    private static List<JsonNode> lines(Path p) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new java.util.ArrayList<>();
        for (String l : Files.readAllLines(p)) out.add(json.readTree(l));
        return out;
    }

    @Test
    void aRunThatRecordsNothingLeavesAnExistingLogAsItWasAndTheNextRunsHeaderComesFirst() throws Exception {
        Path p = dir.resolve("audit.jsonl");
        run(p, record("s1", 1));   // the service
        String before = Files.readString(p);

        run(p);                    // jps under JAVA_TOOL_OPTIONS: no event
        run(p);
        assertThat(Files.readString(p)).as("a run that records nothing writes nothing to the service's log").isEqualTo(before);

        run(p, record("s2", 1), record("s2", 2));   // the service again
        List<JsonNode> all = lines(p);
        assertThat(all).extracting(n -> n.path("rec").asText()).containsExactly("header", "event", "header", "event", "event");
        JsonNode header = all.get(2);
        assertThat(header.path("format").asText()).isEqualTo("tracegate-audit/3");
        assertThat(header.path("personalData").asText()).isEqualTo("salted-sha256");
        assertThat(header.path("salt").asText()).hasSize(32);
        assertThat(header.has("created")).isTrue();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.ok()).as(v.describe()).isTrue();
        assertThat(v.describe()).startsWith("ok: 5 records (3 events), chain intact");
    }

    @Test
    void aRunThatRecordsNothingOnANewPathStillWritesAHeaderSoTheFileVerifies() throws Exception {
        // a new file: without its header it would be empty, which audit verify refuses ("missing header: the file is empty")
        Path p = dir.resolve("new/audit.jsonl");
        run(p);
        assertThat(lines(p)).extracting(n -> n.path("rec").asText()).containsExactly("header");
        assertThat(AuditVerifier.verify(p).ok()).isTrue();
    }

    @Test
    void aRecordAfterALogMovedAwayBeforeAnyRecordStartsTheNewFileWithItsHeader() throws Exception {
        Path p = dir.resolve("audit.jsonl");
        run(p, record("s1", 1));
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        Path moved = dir.resolve("audit.jsonl.1");
        Files.move(p, moved);
        // the writer follows a move within about a second; records appended after it go to the new file
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(p) && System.nanoTime() < deadline) Thread.sleep(50);
        assertThat(w.append(record("s2", 1))).isEqualTo(AuditWriter.Admission.ACCEPTED);
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        assertThat(lines(moved)).extracting(n -> n.path("rec").asText()).as("the moved file got nothing of this run")
                .containsExactly("header", "event");
        assertThat(lines(p)).extracting(n -> n.path("rec").asText()).containsExactly("header", "event");
        assertThat(lines(p).get(0).path("continues").asText()).isEqualTo(AuditVerifier.verify(moved).head());
        assertThat(AuditVerifier.verify(p).ok()).isTrue();
    }
}
