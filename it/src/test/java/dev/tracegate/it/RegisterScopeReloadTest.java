package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code register.path} across hot reloads that change the gdpr section's scope (agent/CONFIG.md): a reload behaves as a
 * restart with the new library would. From session to global, the file is opened at the reload and the erasures of new
 * sessions are written to it (before, nothing was written until a restart); from global back to session, new sessions
 * neither write it nor are blocked by what it holds, and the file stays as it was. One forked JVM (the real agent jar,
 * hot-reload every 100 ms) runs demoapp.register.ScopeApp, which takes its steps from standard input, so the library is
 * swapped between steps.
 */
class RegisterScopeReloadTest {
    private static final String APP = "demoapp.register.ScopeApp";

    @TempDir Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void aReloadToGlobalScopeStartsWritingTheRegisterFileAndOneBackToSessionScopeStopsIt() throws Exception {
        Path library = dir.resolve("shop.yaml");
        writeAtomically(library, shop("session"));
        Path register = dir.resolve("gdpr-register.jsonl");
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr, %s]
                audit:
                  path: %s
                register:
                  path: %s
                hot-reload: 100ms
                configured-methods:
                  - {class: "demoapp.register.ScopeApp$Privacy", method: erase, kind: erasure, session-param: 0, subject-param: 1}
                  - {class: "demoapp.register.ScopeApp$Mail", method: lookup, kind: tool, session-param: 0}
                """.formatted(library, audit, register));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(ForkedJvm.java(), ForkedJvm.agent("config=" + config), "-cp", classpath, APP)
                .redirectError(err.toFile()).start();
        try (Writer in = new OutputStreamWriter(p.getOutputStream(), StandardCharsets.UTF_8);
             BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            Steps steps = new Steps(in, out);
            assertThat(steps.run("erase:conv-A:carl@example.com")).as(steps.toString()).isTrue();
            awaitStderr(err, "register.path " + register + " is not used");
            assertThat(lines(register)).as("scope: session at start: not written").isEmpty();

            writeAtomically(library, shop("global"));
            awaitStderr(err, "libraries reloaded (version 2)");
            awaitStderr(err, "GDPR register restored from " + register + ": 0 erasures and 0 consents");
            assertThat(steps.run("erase:conv-B:dan@example.com")).isTrue();
            assertThat(lines(register)).as("written from the reload on: " + Files.readString(err)).hasSize(1)
                    .allSatisfy(l -> assertThat(l).startsWith("{\"op\":\"erase\",\"subject\":\"dan@example.com\""));
            assertThat(steps.run("lookup:conv-C:dan@example.com")).as("erased in the register: P4 blocks").isFalse();
            awaitStderr(err, "BLOCK configured session=conv-C tool=lookup contract=gdpr.P4-erasure");
            assertThat(steps.run("lookup:conv-C:carl@example.com")).as("carl was erased in conv-A only (session scope): "
                    + steps).isTrue();

            writeAtomically(library, shop("session"));
            awaitStderr(err, "libraries reloaded (version 3)");
            awaitStderr(err, "register.path " + register + " is not written by sessions that start now");
            assertThat(steps.run("erase:conv-D:eve@example.com")).isTrue();
            assertThat(steps.run("lookup:conv-D:eve@example.com")).as("erased in its own session").isFalse();
            assertThat(steps.run("lookup:conv-E:dan@example.com")).as("session scope: the register's erasures do not block").isTrue();
            assertThat(lines(register)).as("not written under scope: session").hasSize(1);
        } finally {
            assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the application ends when its input does").isTrue();
        }
        assertThat(Files.readString(audit)).as("replay --register starts from the file where the reload read it").contains("\"rec\":\"register\"");
        ForkedJvm.Result verified = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify",
                audit.toString()));
        assertThat(verified.exit()).as(verified.toString()).isZero();
    }

    private static String shop(String scope) {
        return """
                library: shop
                gdpr:
                  scope: %s
                  purposes:
                    marketing: [email]
                    support: [email]
                  consent-purposes: [marketing]
                  subject-fields: [email]
                  tools:
                    lookup: [support]
                contracts:
                  - id: shop.no-transfer
                    guarantee: G !call(transfer)
                    message: Transfers are not allowed here.
                """.formatted(scope);
    }

    /** As an operator should: a new file renamed over the old one, so a check never sees it half-written. */
    private static void writeAtomically(Path file, String text) throws IOException {
        Path next = Files.writeString(file.resolveSibling(file.getFileName() + ".next"), text);
        Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
    }

    private static List<String> lines(Path file) throws IOException {
        return Files.exists(file) ? Files.readAllLines(file) : List.of();
    }

    /**
     * Waits for the agent to say {@code text} (a reload takes two checks of 100 ms, more on a loaded machine; and since
     * d3b54a3 the agent's lines reach standard error through its printer thread, so a line said before a step returned
     * may be written just after it).
     */
    private static void awaitStderr(Path err, String text) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.readString(err).contains(text)) {
            if (System.nanoTime() > deadline) throw new AssertionError("the agent never said '" + text + "':\n" + Files.readString(err));
            Thread.sleep(50);
        }
    }
}
