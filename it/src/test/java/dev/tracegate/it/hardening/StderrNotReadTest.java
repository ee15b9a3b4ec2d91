package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The agent never waits for standard error on a tool call's thread (trial22, finding 08). Before, each BLOCK line was
 * written on the calling thread: with standard error a pipe nobody reads (a stalled log shipper, a parent that does
 * not drain its child), the host hung after about 64 KB of lines. The app (demoapp.stderr, no tracegate import) makes
 * blocked calls of a configured method, one session each ({@code s0}, {@code s1}, ...), so that the lines' order shows.
 */
class StderrNotReadTest {
    private static final String APP = "demoapp.stderr.BlockedCallsApp";
    /** Far more BLOCK lines (about 190 bytes each) than a pipe (64 KB) and the agent's queue (4096 lines) hold. */
    private static final int CALLS = 10_000;
    /** Only to stop a hung test: the calls take well under a second. */
    private static final long PATIENCE_SECONDS = 120;
    private static final Pattern BLOCK = Pattern.compile("\\[tracegate] BLOCK configured session=s(\\d+) tool=transfer contract=t\\.none ");

    @TempDir Path dir;

    @Test
    void blockedCallsReturnWhileStandardErrorIsNotReadAndTheLinesFollowInOrderWithTheDropsSaidOnceItIs() throws Exception {
        Process p = new ProcessBuilder(command(CALLS)).start();   // stdout, stderr and stdin are pipes; stderr is not read yet
        try {
            CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> firstLine(p.getInputStream()));
            String said;
            try {
                said = first.get(PATIENCE_SECONDS, TimeUnit.SECONDS);
            } catch (TimeoutException e) {
                fail("the blocked calls did not return in " + PATIENCE_SECONDS + " s while standard error was not read");
                return;
            }
            Matcher m = Pattern.compile("calls returned: " + CALLS + " stderr lines dropped: (\\d+)").matcher(said);
            assertThat(m.matches()).as("every call returned: " + said).isTrue();
            long dropped = Long.parseLong(m.group(1));
            assertThat(dropped).as("a pipe nobody reads and a full queue: lines are dropped and counted (MBean StderrLinesDropped)").isPositive();

            CompletableFuture<String> err = CompletableFuture.supplyAsync(() -> all(p.getErrorStream()));
            p.getOutputStream().write("end\n".getBytes(StandardCharsets.UTF_8));
            p.getOutputStream().close();
            assertThat(p.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the JVM ends once standard error is read").isTrue();
            assertThat(p.exitValue()).isZero();
            String stderr = err.get(PATIENCE_SECONDS, TimeUnit.SECONDS);

            List<Integer> sessions = blockedSessions(stderr);
            assertThat(sessions.size() + dropped).as("each BLOCK line is written or counted as dropped").isEqualTo(CALLS);
            for (int i = 0; i < sessions.size(); i++) {
                if (sessions.get(i) != i) fail("BLOCK line " + i + " is of session s" + sessions.get(i) + ": the lines written are the first calls', in order");
            }
            String note = "[tracegate] WARN " + dropped + " lines dropped: standard error did not take the agent's lines as fast as they came";
            assertThat(stderr).as("the loss is said once, after the lines written before it").contains(note);
            assertThat(stderr.indexOf(note)).isGreaterThan(stderr.lastIndexOf("[tracegate] BLOCK "));
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void withStandardErrorReadEveryLineIsWrittenInOrderBeforeTheJvmEnds() throws Exception {
        int calls = 2_000;   // fewer than the queue holds: none can be dropped, however slow the file
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(command(calls)).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(dir.resolve("stdout.txt").toFile()).start();
        assertThat(p.waitFor(PATIENCE_SECONDS, TimeUnit.SECONDS)).as("the JVM ends").isTrue();
        String stdout = Files.readString(dir.resolve("stdout.txt"));
        assertThat(stdout).contains("calls returned: " + calls + " stderr lines dropped: 0");
        // the app ends right after its calls: the lines still queued then are written at the exit
        List<Integer> sessions = blockedSessions(Files.readString(err));
        assertThat(sessions).as(Files.readString(err)).hasSize(calls);
        for (int i = 0; i < calls; i++) {
            if (sessions.get(i) != i) fail("BLOCK line " + i + " is of session s" + sessions.get(i) + ": the lines come in the calls' order");
        }
        assertThat(Files.readString(err)).doesNotContain("dropped");
    }

    private List<String> command(int calls) throws IOException {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), "library: t\ncontracts:\n  - id: t.none\n    guarantee: G !call(transfer)\n"
                + "    message: Transfers are not allowed from this assistant; a person in the payments team makes them after a review.\n");
        Path config = Files.writeString(dir.resolve("tg.yaml"), "libraries: [" + lib + "]\naudit.path: " + dir.resolve("audit.jsonl") + "\n"
                + "configured-methods:\n  - {class: demoapp.stderr.BlockedCallsApp$Bank, method: transfer, kind: tool, tool-name: transfer, session-param: 0}\n");
        // the app lives with the tests (target/test-classes), beside the apps' usual class path
        String cp = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath() + File.pathSeparator + Forked.appClasspath();
        return List.of(Forked.java(), "-javaagent:" + Forked.agentJar() + "=config=" + config, "-cp", cp, APP, String.valueOf(calls));
    }

    private static List<Integer> blockedSessions(String stderr) {
        List<Integer> sessions = new ArrayList<>();
        Matcher m = BLOCK.matcher(stderr);
        while (m.find()) sessions.add(Integer.parseInt(m.group(1)));
        return sessions;
    }

    private static String firstLine(InputStream in) {
        try {
            StringBuilder b = new StringBuilder();
            for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) b.append((char) c);
            return b.toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String all(InputStream in) {
        try {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }
}
