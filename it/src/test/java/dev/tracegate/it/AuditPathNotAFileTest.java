package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code audit.path} naming the null device, or another thing that is not a regular file (a named pipe), is accepted and
 * written as a stream, but keeps the log nowhere the agent can tell: the start says so once, naming the key, the value
 * and what it leaves (trial22: {@code /dev/null} was accepted without a word). Forked JVMs under the built agent jar.
 */
class AuditPathNotAFileTest {

    private static final String APP = "demoapp.langchain4j.LangChain4jApp";

    @TempDir
    Path dir;

    private ForkedJvm.Result run(Path auditPath) throws IOException {
        Path library = dir.resolve("no-iban.yaml");
        Files.writeString(library, String.join("\n",
                "tracegate: 1",
                "library: no-iban",
                "contracts:",
                "  - id: out.no-iban",
                "    guarantee: G(assistant -> !category(iban))",
                "    strategy: redact",
                "    message: The answer carried an IBAN.",
                ""));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + auditPath)), ForkedJvm.appClasspath(), APP, "lookup");
        assertThat(r.exit()).as(r.toString()).isZero();
        // it keeps running and supervising: the answer that quotes the IBAN is masked
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("ANSWER: done: {\"name\":\"Alice\",\"iban\":\"[redacted: iban]\"}");
        return r;
    }

    @Test
    void theNullDeviceIsSaidOnceToSwitchTheAuditLogOff() throws IOException {
        ForkedJvm.Result r = run(Path.of("/dev/null"));
        assertThat(r.stderr()).as(r.toString()).contains("[tracegate] WARN audit.path /dev/null is the null device: the audit log is"
                + " switched off. Every record (each decision, the hash chain) is discarded as it is written, so nothing is kept"
                + " and tracegate audit verify and replay have nothing to read");
        assertThat(ForkedJvm.count(r.stderr(), "audit.path /dev/null")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aNamedPipeIsSaidToKeepTheLogOnlyWhereItsReaderPutsIt() throws Exception {
        Path fifo = dir.resolve("audit.fifo");
        Process mkfifo = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mkfifo.waitFor(30, TimeUnit.SECONDS) && mkfifo.exitValue() == 0).as("mkfifo " + fifo).isTrue();
        ForkedJvm.Result r = run(fifo);
        assertThat(r.stderr()).as(r.toString()).contains("[tracegate] WARN audit.path " + fifo + " is a named pipe, not a file: the"
                + " audit log is written to it as a stream and kept only by whatever reads or stores it there");
        assertThat(ForkedJvm.count(r.stderr(), "audit.path " + fifo)).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aFileIsNotWarnedAbout() throws IOException {
        Path file = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = run(file);
        assertThat(r.stderr()).as(r.toString()).doesNotContain("audit.path");
        assertThat(Files.readString(file)).as(r.toString()).contains("\"rec\":\"header\"");
    }
}
