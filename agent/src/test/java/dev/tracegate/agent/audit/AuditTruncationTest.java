package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The audit file cut under the running writer (logrotate's copytruncate: copy, then truncate in place) and the file moved
 * away during a disk-full outage (trial44 01 and 02): in both, the file at the path must stay verifiable and its header
 * must name the last line the writer wrote before, so that {@code audit verify old new} can link them.
 */
class AuditTruncationTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    @Test
    void aCopyTruncatedLogStartsANewSegmentAtOffsetZeroThatContinuesTheCopy() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path log = dir.resolve("audit.jsonl");
        Path copy = dir.resolve("audit.jsonl.1");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        int i = 0;
        for (; i < 50; i++) w.append(rec(i));
        waitFor(() -> countEvents(log) == 50);
        Files.copy(log, copy);                                   // what logrotate copytruncate does
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (Files.size(log) == 0 || countEvents(log) == 0) {   // records keep coming, one batch at a time
            w.append(rec(i++));
            if (System.nanoTime() > deadline) throw new AssertionError("nothing written after the truncation");
            Thread.sleep(20);
        }
        for (int k = 0; k < 20; k++) w.append(rec(i++));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();

        byte[] bytes = Files.readAllBytes(log);
        assertThat(bytes[0]).as("no hole of NUL bytes at the start").isEqualTo((byte) '{');
        AuditVerification now = AuditVerifier.verify(log);
        assertThat(now.status()).as(now.describe()).isEqualTo(AuditVerification.Status.OK);
        AuditVerification old = AuditVerifier.verify(copy);
        assertThat(old.status()).as(old.describe()).isEqualTo(AuditVerification.Status.OK);
        JsonNode header = LogFiles.records(log).get(0);
        assertThat(header.get("rec").asText()).isEqualTo("header");
        assertThat(header.get("continues").asText()).as("the last line written before the truncation: the copy's head")
                .isEqualTo(old.head());
        assertThat(countEvents(copy) + countEvents(log) + dropped(log, AuditWriter.TRUNCATED_REASON))
                .as("every record in one of the files or counted").isEqualTo(i);
        assertThat(w.written() + w.lost()).isEqualTo(i);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("WARN the audit log " + log + " was truncated under the writer")
                .contains("copytruncate").contains("create mode");
        assertThat(now.describe()).contains("copytruncate: the file was truncated under the running writer");
    }

    @Test
    void aHoleLeftByAWriteJustAfterTheTruncationIsCutWhenTheFileIsOpenedAgain() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        FileAuditSink sink = new FileAuditSink(log);
        AuditSink.Opened o = sink.open();
        String header = "{\"prev\":\"" + AuditLines.GENESIS + "\",\"rec\":\"header\"}\n";
        o.out.write(header.getBytes(StandardCharsets.US_ASCII));
        o.out.flush();
        assertThat(sink.truncated(true)).isFalse();
        try (FileChannel ch = FileChannel.open(log, StandardOpenOption.WRITE)) {
            ch.truncate(0);
        }
        byte[] line = "{\"rec\":\"event\"}\n".getBytes(StandardCharsets.US_ASCII);
        o.out.write(line);   // the writer's next write, at its old offset: a hole before it
        o.out.flush();
        assertThat(Files.size(log)).isEqualTo(header.length() + line.length);
        assertThat(sink.truncated(false)).as("sizes alone cannot tell: the file is as long as the writer's offset").isFalse();
        assertThat(sink.truncated(true)).as("its first byte is NUL").isTrue();
        o.out.close();
        AuditSink.Opened again = sink.open();
        assertThat(again.truncatedBytes).isEqualTo(header.length() + line.length);
        assertThat(again.lastLine).isNull();
        assertThat(Files.size(log)).as("the hole and what followed it cut: the new segment starts at offset 0").isZero();
        again.out.close();
    }

    @Test
    void verifySaysAFileThatStartsWithNulBytesWasTruncatedUnderARunningWriter() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        try (OutputStream out = Files.newOutputStream(log)) {
            out.write(new byte[4096]);
            out.write("{\"prev\":\"x\",\"rec\":\"event\"}\n".getBytes(StandardCharsets.US_ASCII));
        }
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
        assertThat(v.describe()).contains("line 1").contains("4096 NUL bytes")
                .contains("truncated under a running writer (copytruncate)").contains("create mode");
    }

    @Test
    void aLogMovedAwayDuringADiskFullOutageIsContinuedByTheFileThatReplacesIt() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path log = dir.resolve("audit.jsonl");
        Path archived = dir.resolve("archive.jsonl");
        SmallDisk disk = new SmallDisk(6000);
        AuditWriter w = AuditWriter.start(new FileAuditSink(log, disk::wrap),
                AuditWriter.Settings.defaults().fail(FailPolicy.OPEN).retry(1, 20, TimeUnit.MILLISECONDS));
        long seq = 0;
        while (w.isHealthy()) {
            w.append(rec(seq++));
            if (seq % 8 == 0) Thread.sleep(1);   // small batches, so that one fails half-way
        }
        Thread.sleep(100);                       // retries that reopen the full file and fail again
        Files.move(log, archived);               // the operator frees the disk by moving the full log away
        disk.budget.set(1 << 20);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        // the reopen that ends the outage creates the new file (or, should the writer have been healthy again on the old
        // file at the move, its once-a-second move check does: the header must name the same head either way)
        while (!Files.exists(log) || !w.isHealthy()) {
            w.append(rec(seq++));
            if (System.nanoTime() > deadline) throw new AssertionError("no new file after the outage: " + err.toString(StandardCharsets.UTF_8));
            Thread.sleep(20);
        }
        for (int k = 0; k < 20; k++) w.append(rec(seq++));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();

        AuditVerification old = AuditVerifier.verify(archived);
        assertThat(old.status()).as(old.describe()).isIn(AuditVerification.Status.OK, AuditVerification.Status.TRUNCATED);
        AuditVerification now = AuditVerifier.verify(log);
        assertThat(now.status()).as(now.describe()).isEqualTo(AuditVerification.Status.OK);
        JsonNode header = LogFiles.records(log).get(0);
        assertThat(header.has("continues")).as("the new file's header: " + header).isTrue();
        assertThat(header.get("continues").asText()).as("the head of the last complete line in the moved file").isEqualTo(old.head());
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("was moved away").contains("a new file there continues it");
        assertThat(old.records() + countEvents(log) + dropped(log, "io-error")).as("every record in a file or counted")
                .isEqualTo(seq);
    }

    private static AuditRecord rec(long i) {
        return AuditRecord.of("s", i, "CALL", Decision.PASS).tool("t").args(java.util.Map.of("who", "ada"));
    }

    private static long countEvents(Path p) {
        if (!Files.exists(p)) return 0;
        return LogFiles.records(p).stream().filter(r -> r.get("rec").asText().equals("event")).count();
    }

    private static long dropped(Path p, String reason) {
        return LogFiles.records(p).stream().filter(r -> r.get("rec").asText().equals("dropped"))
                .filter(r -> r.get("reason").asText().equals(reason)).mapToLong(r -> r.get("count").asLong()).sum();
    }

    private static void waitFor(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("timed out");
            Thread.sleep(10);
        }
    }
}
