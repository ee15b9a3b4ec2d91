package dev.tracegate.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditRecord;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.Decision;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code audit verify} of a rotated log's files, oldest first: each file's chain, and that each file continues the one
 * before it (its header's {@code continues} is the previous file's head), so a file removed from between them is found,
 * and a file that starts a chain of its own (a new run, or the files given newest first) is named as such.
 */
class AuditVerifyFilesTest {
    @TempDir Path dir;

    /** A log moved away twice while the writer runs: audit.jsonl.2 (oldest), audit.jsonl.1, audit.jsonl. */
    private Path[] rotated() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        int seq = 0;
        Path[] moved = {dir.resolve("audit.jsonl.2"), dir.resolve("audit.jsonl.1")};
        for (Path to : moved) {
            for (int i = 0; i < 20; i++) w.append(AuditRecord.of("s", seq++, "CALL", Decision.PASS).tool("t"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (!Files.exists(log) || Files.size(log) == 0 || !Files.readString(log).contains("\"seq\":" + (seq - 1) + ",")) {
                if (System.nanoTime() > deadline) throw new AssertionError("the writer did not write");
                Thread.sleep(10);
            }
            Files.move(log, to);
            while (!Files.exists(log)) {   // the writer notices the move within about a second
                w.append(AuditRecord.of("s", seq++, "CALL", Decision.PASS).tool("t"));
                if (System.nanoTime() > deadline) throw new AssertionError("no new file after the move");
                Thread.sleep(20);
            }
        }
        w.append(AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("t"));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        return new Path[] {moved[0], moved[1], log};
    }

    @Test
    void theFilesOfARotatedLogVerifyWithTheirLinks() throws Exception {
        Path[] f = rotated();
        CliRun r = CliRun.of("audit", "verify", f[0].toString(), f[1].toString(), f[2].toString());
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains(f[1] + ": continues " + f[0] + " (link intact)").contains(f[2] + ": continues " + f[1] + " (link intact)");

        CliRun gap = CliRun.of("audit", "verify", f[0].toString(), f[2].toString());
        assertThat(gap.code()).as("a file missing between them").isEqualTo(1);
        assertThat(gap.out()).contains(f[2] + ": link broken");

        CliRun swapped = CliRun.of("audit", "verify", f[1].toString(), f[0].toString());
        assertThat(swapped.code()).as("each file intact; no link claimed").isZero();
        assertThat(swapped.out()).contains(f[0] + ": starts a chain of its own");
        assertThat(swapped.out()).doesNotContain("link intact");
    }

    /**
     * trial44 02: a log moved away during a disk-full outage ends in the line the full disk cut; the file that continues
     * it names its last complete line, and verify checks that link (before, a truncated file got no link check at all).
     */
    @Test
    void aFileThatEndsInACutLineIsStillLinkedToTheFileThatContinuesIt() throws Exception {
        Path[] f = rotated();
        Path cut = dir.resolve("cut.jsonl");
        Files.writeString(cut, Files.readString(f[1]) + "{\"prev\":\"0123");   // the full disk's cut line after the head
        CliRun r = CliRun.of("audit", "verify", cut.toString(), f[2].toString());
        assertThat(r.out()).as(r.out() + r.err()).contains(cut + ": clean prefix").contains("last line truncated")
                .contains(f[2] + ": continues " + cut + " (link intact)");
        assertThat(r.code()).as("the cut line is still reported").isEqualTo(1);

        CliRun gap = CliRun.of("audit", "verify", f[0].toString() , f[2].toString());
        assertThat(gap.out()).contains(f[2] + ": link broken");
    }

    @Test
    void oneFileVerifiesAsBefore() throws Exception {
        Path[] f = rotated();
        CliRun r = CliRun.of("audit", "verify", f[2].toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).startsWith(f[2] + ": ok:").doesNotContain("link");
    }

    /**
     * trial23: a copy of a log the service was writing ended mid-line (the writer's batch is one write() a reader can see
     * half done), and verify called it a crash or a full disk. With --live that last line is being written, not checked.
     */
    @Test
    void liveTakesALastLineWithoutItsLineEndForOneBeingWritten() throws Exception {
        Path[] f = rotated();
        String whole = Files.readString(f[2]);
        Path copy = Files.writeString(dir.resolve("copy.jsonl"), whole.substring(0, whole.length() - 40));   // cut mid-line
        CliRun plain = CliRun.of("audit", "verify", copy.toString());
        assertThat(plain.code()).isEqualTo(1);
        assertThat(plain.out()).contains("last line truncated");
        CliRun live = CliRun.of("audit", "verify", "--live", copy.toString());
        assertThat(live.code()).as(live.out() + live.err()).isZero();
        assertThat(live.out()).startsWith(copy + ": ok: ").contains("chain intact up to the last complete line")
                .contains("has no line end yet: it is being written, not checked (--live)");
        // a complete file reads the same with --live, and a changed line still fails
        assertThat(CliRun.of("audit", "verify", "--live", f[2].toString()).out()).startsWith(f[2] + ": ok:").contains("chain intact; head");
        Path edited = Files.writeString(dir.resolve("edited.jsonl"), whole.replaceFirst("\"tool\":\"t\"", "\"tool\":\"u\""));
        assertThat(CliRun.of("audit", "verify", "--live", edited.toString()).code()).isEqualTo(1);
    }
}
