package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every byte of a small log, changed or cut, against what the position alone says the verifier must report. */
class AuditTamperSweepTest {
    @TempDir Path dir;

    private byte[] log;
    private int[] lineStarts;   // start offset of each line, plus the file length at the end

    @BeforeEach
    void writeLog() throws Exception {
        Path p = dir.resolve("small.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults());
        for (int i = 0; i < 6; i++) {
            w.append(AuditRecord.of("s" + (i % 2), i, i % 2 == 0 ? "CALL" : "RETURN", Decision.PASS)
                    .tool("t").args(Map.of("n", i, "who", "person " + i)).result("r" + i).atoms("a", "b"));
        }
        w.close();
        log = Files.readAllBytes(p);
        int lines = 0;
        for (byte b : log) if (b == '\n') lines++;
        lineStarts = new int[lines + 1];
        int k = 1;
        for (int i = 0; i < log.length; i++) if (log[i] == '\n') lineStarts[k++] = i + 1;
    }

    /** The 1-based line holding byte {@code offset}. */
    private int lineOf(int offset) {
        int line = 0;
        while (line + 1 < lineStarts.length && lineStarts[line + 1] <= offset) line++;
        return line + 1;
    }

    private static AuditVerification verify(byte[] bytes) throws Exception {
        return AuditVerifier.verify(new java.io.ByteArrayInputStream(bytes));
    }

    @Test
    void cuttingTheLogAtAnyByteGivesACleanPrefixNeverTampering() throws Exception {
        for (int cut = 0; cut <= log.length; cut++) {
            AuditVerification v = verify(Arrays.copyOf(log, cut));
            int complete = 0;
            while (complete + 1 < lineStarts.length && lineStarts[complete + 1] <= cut) complete++;
            long events = Math.max(0, complete - 1);   // every line after the header is an event here
            if (cut == 0) {
                assertThat(v.status()).isEqualTo(AuditVerification.Status.BAD);
                assertThat(v.reason()).isEqualTo("missing header: the file is empty");
            } else if (lineStarts[complete] == cut) {
                assertThat(v.status()).as("cut at %d", cut).isEqualTo(AuditVerification.Status.OK);
                assertThat(v.records()).isEqualTo(events);
            } else {
                assertThat(v.status()).as("cut at %d", cut).isEqualTo(AuditVerification.Status.TRUNCATED);
                assertThat(v.records()).isEqualTo(events);
                assertThat(v.badLine()).isEqualTo(complete + 1);
            }
        }
    }

    @Test
    void changingAnyOneByteIsReportedOnTheLineThatHoldsIt() throws Exception {
        Random random = new Random(42);
        for (int at = 0; at < log.length; at++) {
            if (log[at] == '\n') continue;
            byte[] copy = log.clone();
            byte b;
            do {
                b = (byte) (0x20 + random.nextInt(0x5f));   // printable ASCII, never a line end
            } while (b == log[at]);
            copy[at] = b;
            AuditVerification v = verify(copy);
            assertThat(v.status()).as("byte %d", at).isEqualTo(AuditVerification.Status.BAD);
            assertThat(v.badLine()).as("byte %d (%s)", at, v.reason()).isEqualTo(lineOf(at));
        }
    }
}
