package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A conversation whose slow tool call is running when {@code sessions.max} needs room keeps its session while another
 * session has nothing in flight (agent/CONFIG.md, sessions.max). Before, the bound ended the least recently used session
 * although its buildReport ran: the report's result opened a new session and the sendMoney after it was refused for want
 * of the balance read before the report. One forked JVM (the real agent jar, configured methods) runs
 * demoapp.inflight.ReportApp, which takes its steps from standard input, so the report's call stays in flight while
 * other conversations come.
 */
class InFlightEvictionEndToEndTest {
    private static final String APP = "demoapp.inflight.ReportApp";

    @TempDir Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aSlowToolCallKeepsItsSessionWhenTheBoundNeedsRoom() throws Exception {
        Path library = Files.writeString(dir.resolve("bank.yaml"), """
                library: bank
                contracts:
                  - id: bank.balance-first
                    guarantee: G(call(sendMoney) -> O returned(getBalance))
                    message: Read the balance first.
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit:
                  path: %s
                  personal-data: clear
                sessions:
                  max: 2
                configured-methods:
                  - {class: "demoapp.inflight.ReportApp$Bank", method: "*", kind: tool, session-param: 0}
                """.formatted(library, audit));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(ForkedJvm.java(), ForkedJvm.agent("config=" + config), "-cp", classpath, APP)
                .redirectError(err.toFile()).start();
        try (Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            Steps steps = new Steps(in, out);
            assertThat(steps.run("balance:conv1")).as(steps.toString()).isTrue();
            assertThat(steps.run("start-report:conv1")).as(steps.toString()).isTrue();
            Thread.sleep(20);   // the sessions' last use is kept in milliseconds: conv1 is strictly the least recently used
            assertThat(steps.run("lookup:conv2")).isTrue();
            assertThat(steps.run("lookup:conv3")).as("a third conversation: the bound (2) ends a session").isTrue();
            steps.run("finish-report");   // buildReport returns: its RETURN
            assertThat(steps.run("send:conv1")).as("the balance read before the report is still in conv1's session: %s%n%s",
                    steps, Files.readString(err)).isTrue();
        } finally {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the application ends when its input does").isTrue();
        }
        assertThat(Files.readString(err)).contains("WARN sessions.max (2) reached: session conv2, the least recently used with no tool"
                + " call in flight, was ended to make room");
        List<String> records = Files.readAllLines(audit);
        assertThat(records.stream().filter(l -> l.contains("\"kind\":\"end\"") && l.contains("\"session\":\"conv2\"")).count())
                .as("conv2, with nothing in flight, made the room").isEqualTo(1);
        assertThat(records.stream().filter(l -> l.contains("\"kind\":\"end\"") && l.contains("\"session\":\"conv1\"")).count())
                .as("conv1 ended once, at exit").isEqualTo(1);
        assertThat(records.stream().filter(l -> l.contains("\"session\":\"conv1\"") && l.contains("\"seq\":1,")).count())
                .as("one conv1 session: one record with seq 1").isEqualTo(1);
        ForkedJvm.Result verified = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify",
                audit.toString()));
        assertThat(verified.exit()).as(verified.toString()).isZero();
    }
}
