package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A JVM killed with SIGKILL while it writes leaves a log that verifies (perhaps cut short), and a restart continues it. */
class AuditKillTest {
    @TempDir Path dir;

    /** The child: writes records until it is killed. */
    public static final class Child {
        public static void main(String[] args) {
            AuditWriter w = AuditWriter.start(Path.of(args[0]), AuditWriter.Settings.defaults().queueSize(1024));
            for (long i = 0; ; i++) {
                w.append(AuditRecord.of("s" + (i % 4), i, "CALL", Decision.PASS).tool("t").args(Map.of("i", i, "pad", "x".repeat(200))));
            }
        }
    }

    @Test
    void aKilledWriterLeavesAVerifiableLogAndARestartContinuesTheChain() throws Exception {
        Path log = dir.resolve("killed.jsonl");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Child.class.getName(), log.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("child.out").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (!Files.exists(log) || Files.size(log) < 512 * 1024) {
                assertThat(child.isAlive()).as("child output: %s", readQuietly(dir.resolve("child.out").toFile())).isTrue();
                if (System.nanoTime() > deadline) throw new AssertionError("the child wrote too little");
                Thread.sleep(10);
            }
        } finally {
            child.destroyForcibly();   // SIGKILL: no shutdown hook, no flush
            child.waitFor();
        }
        AuditVerification killed = AuditVerifier.verify(log);
        assertThat(killed.status()).as(killed.describe()).isIn(AuditVerification.Status.OK, AuditVerification.Status.TRUNCATED);
        assertThat(killed.records()).isGreaterThan(100);

        AuditWriter again = AuditWriter.start(log, AuditWriter.Settings.defaults());
        again.append(AuditRecord.of("after-restart", 0, "USER", Decision.PASS));
        again.close();
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.records()).isEqualTo(killed.records() + 1);
        List<String> lines = LogFiles.lines(log);
        assertThat(lines.get(lines.size() - 1)).contains("\"session\":\"after-restart\"");
        assertThat(LogFiles.ofType(log, "header")).hasSize(2);
    }

    private static String readQuietly(File f) {
        try {
            return Files.readString(f.toPath());
        } catch (Exception e) {
            return "(none)";
        }
    }
}
