package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.config.PersonalData;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * trial44 03: the heap ran out once while the writer thread encoded a record (the application had exhausted it; the JVM
 * and the application survived). Before, the thread stopped for good and under {@code fail: closed} every later tool
 * call was refused until a restart; now it is an outage that ends: the log is written again, the loss counted.
 */
class AuditWriterOutOfMemoryTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    @Test
    void aHeapExhaustedOnceIsAnOutageThatEndsNotTheWritersEnd() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path p = dir.resolve("audit.jsonl");
        Object heavy = new Object() {
            @Override public String toString() { throw new OutOfMemoryError("Java heap space"); }
        };
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR)
                .fail(FailPolicy.CLOSED).retry(1, 20, TimeUnit.MILLISECONDS));
        w.append(AuditRecord.of("s", 0, "CALL", Decision.PASS).tool("a"));
        w.append(AuditRecord.of("s", 1, "CALL", Decision.PASS).tool("oom").args(Map.of("x", heavy)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (w.lastError() == null) {
            if (System.nanoTime() > deadline) throw new AssertionError("the writer never met the error");
            Thread.sleep(5);
        }
        while (!w.isHealthy()) {
            if (System.nanoTime() > deadline) throw new AssertionError("the writer never came back: " + w.lastError());
            Thread.sleep(5);
        }
        assertThat(w.append(AuditRecord.of("s", 2, "CALL", Decision.PASS).tool("c"))).isEqualTo(AuditWriter.Admission.ACCEPTED);
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();

        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        List<JsonNode> ev = LogFiles.ofType(p, "event");
        assertThat(ev).extracting(e -> e.get("tool").asText()).contains("a", "c").doesNotContain("oom");
        assertThat(LogFiles.droppedCount(p, "")).as("the record lost to the heap is counted in the log").isGreaterThanOrEqualTo(1);
        assertThat(w.lost()).isGreaterThanOrEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("ERROR the audit writer ran out of heap")
                .doesNotContain("report this as a bug");
    }
}
