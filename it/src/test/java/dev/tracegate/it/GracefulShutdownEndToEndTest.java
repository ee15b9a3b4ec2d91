package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service stopped with SIGTERM finishes the request in flight in its own shutdown hook (a graceful shutdown): that
 * hook's tool call is decided by the contracts with the conversation's history and recorded before the session's end,
 * because the agent's shutdown runs in a JVM hook slot after the application's hooks (ExitHook). Also when another agent
 * already holds the slot tracegate prefers (the last one, 9): tracegate takes the next free one and the other agent's
 * late hook still runs. Real agent jar, forked JVMs, SIGTERM.
 */
class GracefulShutdownEndToEndTest {

    private static final String APP = "demoapp.shutdown.GracefulShutdownApp";
    private static final String BLOCKED = "in the shutdown hook: tracegate blocked the call to search (contract shop.max-searches)";

    @TempDir
    Path dir;

    @Test
    @Timeout(600)   // only stops a hung run (two forked JVMs, each waited for up to 120 s)
    void theGracefulShutdownsCallIsDecidedWithItsHistoryAndRecordedBeforeTheEnd() throws Exception {
        Stopped s = runAndTerminate(ForkedJvm.java(), dir.resolve("alone"), List.of());
        assertThat(s.stdout()).as(s.toString()).contains(BLOCKED).doesNotContain("results for d");
        assertThat(s.stderr()).as(s.toString()).contains("the agent's shutdown runs in the JVM's hook slot 9");
        assertSupervisedAndRecorded(s);
    }

    @Test
    @Timeout(600)   // only stops a hung run
    void anotherAgentHoldingTheLastHookSlotMovesTracegateToTheNextOneAndBothRun() throws Exception {
        Path other = otherAgentJar();
        List<String> javas = new ArrayList<>(List.of(ForkedJvm.java()));
        if (ForkedJvm.java25Present()) javas.add(ForkedJvm.JAVA_25);
        for (String java : javas) {
            Stopped s = runAndTerminate(java, dir.resolve("taken-" + javas.indexOf(java)), List.of("-javaagent:" + other));
            assertThat(s.stdout()).as(s.toString()).contains("OTHER AGENT: holds hook slot 9").contains(BLOCKED)
                    .doesNotContain("results for d").contains("OTHER AGENT: its late hook ran");
            assertThat(s.stderr()).as(s.toString()).contains("the agent's shutdown runs in the JVM's hook slot 8")
                    .doesNotContain("an application shutdown hook instead");
            assertSupervisedAndRecorded(s);
        }
    }

    /** The fourth search, in the hook, blocked by the contract in conv-1 and recorded before conv-1's end; the log verifies. */
    private static void assertSupervisedAndRecorded(Stopped s) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> events = new ArrayList<>();
        for (String line : Files.readAllLines(s.audit(), StandardCharsets.UTF_8)) {
            JsonNode r = json.readTree(line);
            if (!r.path("rec").asText().equals("event") || r.path("kind").asText().equals("return")) continue;
            events.add(r.path("session").asText() + " " + r.path("kind").asText() + " " + r.path("decision").asText());
        }
        assertThat(events).as(s.toString())
                .containsExactly("conv-1 call pass", "conv-1 call pass", "conv-1 call pass", "conv-1 call block", "conv-1 end end");
        ForkedJvm.Result verify = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify",
                s.audit().toString()));
        assertThat(verify.exit()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).contains("chain intact");
    }

    private record Stopped(String stdout, String stderr, Path audit) {
        @Override
        public String toString() {
            return "--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Starts the app under tracegate (after {@code agentsBefore}), waits for READY, sends SIGTERM and waits for the exit. */
    private static Stopped runAndTerminate(String java, Path run, List<String> agentsBefore) throws Exception {
        Files.createDirectories(run);
        Path library = Files.writeString(run.resolve("shop.yaml"), """
                library: shop
                contracts:
                  - id: shop.max-searches
                    guarantee: G(count(search) <= 3)
                    message: At most three searches per conversation.
                """);
        Path audit = run.resolve("audit.jsonl");
        Path config = Files.writeString(run.resolve("tracegate.yaml"), "libraries: [" + library + "]\n"
                + "audit.path: " + audit + "\n"
                + "warmup: false\n"
                + "configured-methods:\n"
                + "  - {class: 'demoapp.shutdown.GracefulShutdownApp$Catalog', method: search, kind: tool, session-param: 0}\n");
        List<String> command = new ArrayList<>(List.of(java));
        command.addAll(agentsBefore);
        command.addAll(List.of(ForkedJvm.agent("config=" + config + ",debug=true"), "-cp", ForkedJvm.appClasspath(), APP));
        Path out = run.resolve("stdout.txt");
        Path err = run.resolve("stderr.txt");
        Process app = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            while (!Files.readString(out).contains("READY")) {   // the method's @Timeout stops a run that never gets there
                assertThat(app.isAlive()).as("app ended early:\n" + Files.readString(out) + Files.readString(err)).isTrue();
                Thread.sleep(20);
            }
            app.destroy();   // SIGTERM: the JVM runs its shutdown hooks
            assertThat(app.waitFor(120, TimeUnit.SECONDS)).as("app did not exit after SIGTERM").isTrue();
            return new Stopped(Files.readString(out), Files.readString(err), audit);
        } finally {
            app.destroyForcibly();
        }
    }

    /** A jar whose manifest names demoapp.shutdown.LateHookAgent, which the JVM then finds on the application's class path. */
    private Path otherAgentJar() throws IOException {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().put(new Attributes.Name("Premain-Class"), "demoapp.shutdown.LateHookAgent");
        Path jar = dir.resolve("other-agent.jar");
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(file, manifest)) {
            // the manifest is the whole jar
        }
        return jar;
    }
}
