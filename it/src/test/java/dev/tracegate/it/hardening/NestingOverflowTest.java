package dev.tracegate.it.hardening;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A StackOverflowError that unwinds through a framework's woven tool path (LangChain4j's ToolService, a Spring AI
 * ToolCallback, the MCP client) must not leave the thread marked as inside a tool call: every later call on it would
 * run unsupervised. The app (demoapp.overflow, no tracegate import) overflows from 60 stack depths and after each
 * overflow calls a tool a contract forbids, on the same thread. With a small stack (-Xss256k) the overflows also reach
 * into the audit log's hand-off: a producer that died there between claiming a queue slot and filling it once left the
 * writer waiting on that slot for ever, and every later record was lost (1-2 records of the 60 calls).
 */
class NestingOverflowTest {
    private static final String APP = "demoapp.overflow.NestingOverflowApp";

    @TempDir Path dir;

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"langchain4j, default", "springai, default", "mcp, default", "langchain4j, 256k", "springai, 256k", "mcp, 256k"})
    void aForbiddenToolIsStillBlockedAfterEveryStackOverflowThroughTheFramework(String framework, String stack) throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"),
                "library: so\ncontracts:\n  - id: so.never\n    guarantee: G !call(forbidden)\n    message: never call forbidden\n");
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tg.yaml"), "libraries: [" + lib + "]\naudit.path: " + audit + "\nview: off\nfail: closed\n");
        Forked.Output r = Forked.run(command("config=" + config, framework, stack));
        assertThat(r.stdout()).as(r.toString()).contains(framework + " overflow: blocked=60 ran=0");
        assertThat(r.stdout()).as("the first refusal names the contract").contains("first answer: ").contains("never call forbidden");
        long forbiddenCalls = Files.readAllLines(audit).stream()
                .filter(l -> l.contains("\"tool\":\"forbidden\"") && l.contains("\"kind\":\"call\"")).count();
        assertThat(forbiddenCalls).as("one audit record per forbidden call").isEqualTo(60);
    }

    private static List<String> command(String agentOptions, String framework, String stack) throws IOException {
        // the app lives with the tests (target/test-classes), beside the apps' usual class path
        String cp = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath() + File.pathSeparator + Forked.appClasspath();
        List<String> c = new ArrayList<>(List.of(Forked.java()));
        if (!stack.equals("default")) c.add("-Xss" + stack);
        c.addAll(List.of("-javaagent:" + Forked.agentJar() + "=" + agentOptions, "-cp", cp, APP, framework));
        return c;
    }
}
