package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.audit.AuditWriter.Admission;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.ConfigException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The writer groups records for up to {@code audit.max-delay} and producers never wake it: a record must still reach
 * the file by itself (the writer's own deadline, no later append, no close), and close must write a batch that is
 * still waiting for its deadline.
 */
class AuditWriterDelayTest {
    @TempDir Path dir;

    private static AuditRecord rec(String session, long seq) {
        return AuditRecord.of(session, seq, "CALL", Decision.PASS).tool("t").args(Map.of("k", seq));
    }

    /** The event records among the file's complete lines (a write in progress may have left a partial last line). */
    private static List<JsonNode> events(Path p) {
        List<JsonNode> out = new ArrayList<>();
        if (!Files.exists(p)) return out;
        try {
            String all = Files.readString(p, StandardCharsets.UTF_8);
            int end = all.lastIndexOf('\n');
            if (end < 0) return out;
            for (String line : all.substring(0, end).split("\n")) {
                JsonNode n = LogFiles.JSON.readTree(line);
                if (n.path("rec").asText().equals("event")) out.add(n);
            }
            return out;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Polls the file until it holds {@code n} events; the bound only stops a hung test, nothing is asserted about time. */
    private static List<JsonNode> awaitEvents(Path p, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            List<JsonNode> e = events(p);
            if (e.size() >= n) return e;
            if (System.nanoTime() > deadline) throw new AssertionError("the file holds " + e.size() + " events, expected " + n);
            Thread.sleep(5);
        }
    }

    @Test
    void aRecordAtALowRateReachesTheFileWithoutAnotherAppendOrAClose() throws Exception {
        Path p = dir.resolve("paced.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().maxDelay(20, TimeUnit.MILLISECONDS));
        try {
            for (int i = 0; i < 5; i++) {
                assertThat(w.append(rec("s", i))).isEqualTo(Admission.ACCEPTED);
                // nothing else happens until it is there: only the writer's own deadline can write it
                List<JsonNode> e = awaitEvents(p, i + 1);
                assertThat(e).hasSize(i + 1);
                assertThat(e.get(i).get("seq").asLong()).isEqualTo(i);
                assertThat(w.isHealthy()).isTrue();
            }
            assertThat(w.written()).isEqualTo(5);
            assertThat(AuditVerifier.verify(p).ok()).isTrue();
        } finally {
            assertThat(w.close(60, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(events(p)).hasSize(5);
    }

    @Test
    void closeWritesABatchThatIsStillWaitingForItsDeadline() throws Exception {
        Path p = dir.resolve("linger.jsonl");
        // the longest window: the records are appended and the writer closed well inside it on any machine that is not
        // stalled for a second; should it be, the window ends first and the records are written anyway
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().maxDelay(1, TimeUnit.SECONDS));
        for (int i = 0; i < 100; i++) assertThat(w.append(rec("s", i))).isEqualTo(Admission.ACCEPTED);
        assertThat(w.close(60, TimeUnit.SECONDS)).isTrue();

        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.records()).isEqualTo(100);
        List<JsonNode> e = events(p);
        assertThat(e).hasSize(100);
        for (int i = 0; i < 100; i++) assertThat(e.get(i).get("seq").asLong()).isEqualTo(i);
        assertThat(w.written()).isEqualTo(100);
        assertThat(w.dropped() + w.lost() + w.refused()).isZero();
        assertThat(w.head()).isNotNull();
    }

    @Test
    void theDelayOutsideOneMillisecondToOneSecondIsRefusedWithTheRange() {
        AuditWriter.Settings s = AuditWriter.Settings.defaults();
        assertThat(s.maxDelayNanos).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        assertThatThrownBy(() -> s.maxDelay(0, TimeUnit.MILLISECONDS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from 1 ms to 1 s");
        assertThatThrownBy(() -> s.maxDelay(2, TimeUnit.SECONDS)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("from 1 ms to 1 s");
        assertThat(s.maxDelay(1, TimeUnit.SECONDS).maxDelayNanos).isEqualTo(TimeUnit.SECONDS.toNanos(1));
    }

    @Test
    void theConfigurationKeySetsTheDelayAndRefusesOneOutsideItsRange() {
        AgentConfig defaults = AgentConfig.load(null, Map.of(), Map.of(), Set.of());
        assertThat(AuditWriter.Settings.from(defaults).maxDelayNanos).isEqualTo(TimeUnit.MILLISECONDS.toNanos(100));
        AgentConfig c = AgentConfig.load(null, Map.of("TRACEGATE_AUDIT_MAX_DELAY", "20ms"), Map.of(), Set.of());
        assertThat(c.auditMaxDelay().toMillis()).isEqualTo(20);
        assertThat(AuditWriter.Settings.from(c).maxDelayNanos).isEqualTo(TimeUnit.MILLISECONDS.toNanos(20));
        assertThatThrownBy(() -> AgentConfig.load(null, Map.of(), Map.of("tracegate.audit.max-delay", "2s"), Set.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("audit.max-delay")
                .hasMessageContaining("2s")
                .hasMessageContaining("to 1s");
    }
}
