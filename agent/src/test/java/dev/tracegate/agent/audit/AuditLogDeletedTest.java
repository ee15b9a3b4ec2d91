package dev.tracegate.agent.audit;

import dev.tracegate.agent.core.AgentLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial48 02: an audit log deleted under the writer, as {@code mv} to another file system and logrotate's
 * {@code compress} without {@code delaycompress} do after their copy, is said to be one (a WARN naming the loss and the
 * fix), not "moved away" as a rename within the file system is (an INFO line).
 */
class AuditLogDeletedTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    @Test
    void aDeletedLogIsAWarningAndARenamedOneIsNot() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(Path.of("/proc/self/fd")), "the process's open files are shown (Linux)");
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        long seq = 0;
        seq = writeUntilNewFile(w, log, seq, () -> Files.move(log, dir.resolve("audit.jsonl.1")));
        assertThat(said()).contains("was moved away; a new file there continues it").doesNotContain("was deleted while");
        seq = writeUntilNewFile(w, log, seq, () -> Files.delete(log));
        assertThat(said()).contains("WARN the audit log " + log + " was deleted while the agent wrote it")
                .contains("with logrotate, add delaycompress");
        w.append(AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("t"));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        assertThat(AuditVerifier.verify(log).ok()).isTrue();
    }

    private interface Step {
        void run() throws Exception;
    }

    /** Writes records until the writer has one on disk, does {@code step} to the file, and writes until a new file is there. */
    private static long writeUntilNewFile(AuditWriter w, Path log, long seq, Step step) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        w.append(AuditRecord.of("s", seq++, "CALL", Decision.PASS).tool("t"));
        while (!Files.exists(log) || !Files.readString(log).contains("\"seq\":" + (seq - 1) + ",")) {
            if (System.nanoTime() > deadline) throw new AssertionError("the writer did not write");
            Thread.sleep(10);
        }
        step.run();
        while (!Files.exists(log)) {   // the writer notices within about a second
            w.append(AuditRecord.of("s", seq++, "CALL", Decision.PASS).tool("t"));
            if (System.nanoTime() > deadline) throw new AssertionError("no new file");
            Thread.sleep(20);
        }
        return seq;
    }

    private String said() throws InterruptedException {
        for (int i = 0; i < 100 && !err.toString(StandardCharsets.UTF_8).contains("continues it"); i++) Thread.sleep(20);
        return err.toString(StandardCharsets.UTF_8);
    }
}
