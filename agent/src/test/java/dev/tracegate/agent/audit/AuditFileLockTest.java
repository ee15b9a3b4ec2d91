package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two writers configured with one audit file (trial9 shared-audit-file-two-jvms: an MCP stdio server that inherits
 * its client's JAVA_TOOL_OPTIONS and configuration): the second finds the file locked and writes its own chain to a
 * sibling named after its process, so both logs verify instead of one spliced file that verifies for neither.
 */
class AuditFileLockTest {
    @TempDir Path dir;

    /** The other process: writes records to the file until its standard input ends, then closes the log. */
    public static final class Other {
        public static void main(String[] args) throws Exception {
            AuditWriter w = AuditWriter.start(Path.of(args[0]), AuditWriter.Settings.defaults());
            Thread stdin = new Thread(() -> {
                try (BufferedReader r = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))) {
                    while (r.readLine() != null) { /* until the parent closes it */ }
                } catch (Exception ignored) {
                    // the parent went away: stop as well
                }
            });
            stdin.start();
            for (long i = 0; stdin.isAlive(); i++) {
                w.append(AuditRecord.of("other", i, "CALL", Decision.PASS).tool("t"));
                Thread.sleep(1);
            }
            w.close();
        }
    }

    @Test
    void aSecondProcessWritesItsOwnChainBesideTheLockedFile() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process other = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Other.class.getName(), log.toString())
                .redirectErrorStream(true).redirectOutput(dir.resolve("other.out").toFile()).start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(log) || LogFiles.lines(log).size() < 20) {
                assertThat(other.isAlive()).as("the other process: %s", Files.exists(dir.resolve("other.out"))
                        ? Files.readString(dir.resolve("other.out")) : "").isTrue();
                if (System.nanoTime() > deadline) throw new AssertionError("the other process wrote too little");
                Thread.sleep(10);
            }
            FileAuditSink sink = new FileAuditSink(log);
            AuditWriter mine = AuditWriter.start(sink, AuditWriter.Settings.defaults());
            for (int i = 0; i < 200; i++) mine.append(AuditRecord.of("mine", i, "CALL", Decision.PASS).tool("t"));
            assertThat(mine.close(30, TimeUnit.SECONDS)).isTrue();
            assertThat(sink.current()).isEqualTo(FileAuditSink.sibling(log, ProcessHandle.current().pid()));

            AuditVerification own = AuditVerifier.verify(sink.current());
            assertThat(own.status()).as(own.describe()).isEqualTo(AuditVerification.Status.OK);
            assertThat(own.records()).isEqualTo(200);
        } finally {
            other.getOutputStream().close();
            assertThat(other.waitFor(60, TimeUnit.SECONDS)).isTrue();
            other.destroyForcibly();
        }
        AuditVerification shared = AuditVerifier.verify(log);
        assertThat(shared.status()).as(shared.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(LogFiles.lines(log)).noneMatch(l -> l.contains("\"session\":\"mine\""));
    }

    @Test
    void aSecondWriterOfTheSameJvmAlsoKeepsOffTheFile() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter first = AuditWriter.start(log, AuditWriter.Settings.defaults());
        FileAuditSink sink = new FileAuditSink(log);
        AuditWriter second = AuditWriter.start(sink, AuditWriter.Settings.defaults());
        for (int i = 0; i < 100; i++) {
            first.append(AuditRecord.of("first", i, "CALL", Decision.PASS).tool("t"));
            second.append(AuditRecord.of("second", i, "CALL", Decision.PASS).tool("t"));
        }
        first.close();
        second.close();
        for (Path p : new Path[] {log, sink.current()}) {
            AuditVerification v = AuditVerifier.verify(p);
            assertThat(v.status()).as(p + ": " + v.describe()).isEqualTo(AuditVerification.Status.OK);
            assertThat(v.records()).isEqualTo(100);
        }
        assertThat(sink.current()).isNotEqualTo(log);

        AuditWriter later = AuditWriter.start(log, AuditWriter.Settings.defaults());   // the lock went with the first writer
        later.append(AuditRecord.of("later", 0, "CALL", Decision.PASS).tool("t"));
        later.close();
        assertThat(AuditVerifier.verify(log).records()).isEqualTo(101);
    }

    /**
     * trial44 05: jcmd, jps or mvn run where JAVA_TOOL_OPTIONS names the agent, while the service holds the log, each left a
     * header-only audit.pid-N.jsonl in the audit volume for good. A second writer that records nothing now leaves no file and
     * says nothing about one; a second writer that records makes its file with its first record, says so once, and its file
     * verifies, as does the service's.
     */
    @Test
    void aSecondWriterMakesItsOwnFileOnlyWithItsFirstRecord() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter service = AuditWriter.start(log, AuditWriter.Settings.defaults());
        service.append(AuditRecord.of("service", 0, "CALL", Decision.PASS).tool("t"));
        Path own = FileAuditSink.sibling(log, ProcessHandle.current().pid());
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        dev.tracegate.agent.core.AgentLog.captureForTest(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            FileAuditSink idleSink = new FileAuditSink(log);
            AuditWriter idle = AuditWriter.start(idleSink, AuditWriter.Settings.defaults());
            assertThat(idle.isHealthy()).as(idle.lastError()).isTrue();
            assertThat(idleSink.current()).isEqualTo(own);
            assertThat(idle.close(30, TimeUnit.SECONDS)).isTrue();
            assertThat(idle.created()).isFalse();
            try (var files = Files.list(dir)) {
                assertThat(files.map(p -> p.getFileName().toString())).containsExactly("audit.jsonl");
            }
            assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("is being written by another process");

            FileAuditSink sink = new FileAuditSink(log);
            AuditWriter busy = AuditWriter.start(sink, AuditWriter.Settings.defaults());
            assertThat(Files.exists(own)).isFalse();
            for (int i = 0; i < 3; i++) busy.append(AuditRecord.of("busy", i, "CALL", Decision.PASS).tool("t"));
            assertThat(busy.close(30, TimeUnit.SECONDS)).isTrue();
            assertThat(busy.created()).isTrue();
            assertThat(sink.current()).isEqualTo(own);
            AuditVerification v = AuditVerifier.verify(own);
            assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
            assertThat(v.records()).isEqualTo(3);
            assertThat(LogFiles.lines(own).get(0)).contains("\"rec\":\"header\"");
            String said = err.toString(StandardCharsets.UTF_8);
            assertThat(said.split("is being written by another process", -1)).hasSize(2);
            assertThat(said).contains(own.toString());
        } finally {
            dev.tracegate.agent.core.AgentLog.captureForTest(null);
            service.close();
        }
        AuditVerification shared = AuditVerifier.verify(log);
        assertThat(shared.status()).as(shared.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(shared.records()).isEqualTo(1);
    }

    @Test
    void theSiblingKeepsTheExtensionLast() {
        assertThat(FileAuditSink.sibling(Path.of("/var/log/audit.jsonl"), 42)).isEqualTo(Path.of("/var/log/audit.pid-42.jsonl"));
        assertThat(FileAuditSink.sibling(Path.of("audit"), 7)).isEqualTo(Path.of("audit.pid-7"));
        assertThat(FileAuditSink.sibling(Path.of("logs/.audit"), 7)).isEqualTo(Path.of("logs/.audit.pid-7"));
    }
}
