package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A redirect contract always blocks under configured methods (agent/CONFIG.md): before, neither check nor the start
 * said so, and the first sign was a block record where a redirect was written. Now the start says it, once per
 * contract, when the configuration's only instrumentation that can see the contract's tools is configured methods.
 */
class RedirectReachTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    private static final String LIBRARY = """
            library: ops
            contracts:
              - id: ops.no-delete
                guarantee: G !call(delete_account)
                strategy: redirect
                redirect-to: archive_account
                message: Accounts are archived, not deleted.
              - id: ops.no-wire
                guarantee: G (count(wire) <= 1)
                strategy: redirect
                redirect-to: hold_wire
                message: One wire per session.
              - id: ops.no-export
                guarantee: G !call(export)
                strategy: block
                message: No exports.
            """;

    /** Starts a supervisor with {@code yaml} (after the library and the audit path) and returns what it said on stderr. */
    private String start(String yaml) throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path lib = Files.writeString(dir.resolve("ops.yaml"), LIBRARY);
        Path log = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + "]\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n"
                + yaml);
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        return err.toString(StandardCharsets.UTF_8);
    }

    private static long lines(String said, String text) {
        return said.lines().filter(l -> l.contains(text)).count();
    }

    @Test
    void aRedirectContractWhoseToolsAreAllConfiguredMethodsIsSaidAtStartToBeBlockedNotRedirected() throws Exception {
        String said = start("""
                configured-methods:
                  - {class: acme.Accounts, method: delete_account, kind: tool}
                """);

        assertThat(said).contains("WARN contract ops.no-delete (" + dir.resolve("ops.yaml") + ":3) redirects to archive_account,"
                + " but its calls will be blocked, not redirected: every tool it names (delete_account) is a configured method"
                + " (acme.Accounts#delete_account at ");
        assertThat(said).contains("and a configured method can only run or refuse the method it sits on, never run another tool"
                + " in its place");
        assertThat(lines(said, "WARN contract ops.no-delete")).as("once:\n%s", said).isEqualTo(1);
        assertThat(said).as("wire is no configured method: a framework may see it").doesNotContain("contract ops.no-wire");
        assertThat(said).as("a block contract blocks anyway").doesNotContain("contract ops.no-export");
    }

    @Test
    void withNoFrameworkInstrumentationEveryRedirectContractIsSaid() throws Exception {
        String said = start("""
                instrumentations:
                  langchain4j: {enabled: false}
                  springai: {enabled: false}
                  mcp-server: {enabled: false}
                  mcp-client: {enabled: false}
                configured-methods:
                  - {class: acme.Registry, method: invoke, kind: tool, tool-name: 1}
                """);

        assertThat(said).contains("WARN contract ops.no-delete (").contains("WARN contract ops.no-wire (");
        assertThat(said).contains("redirects to hold_wire, but its calls will be blocked, not redirected: no framework"
                + " instrumentation is on (instrumentations langchain4j, springai, mcp-server, mcp-client are disabled), so only"
                + " configured methods see its calls");
        assertThat(said).doesNotContain("contract ops.no-export");
    }

    /**
     * A redirect contract that a hot reload adds is said too (before, only the start said it, so a contract added to a
     * running service's library blocked its calls without a word), once per contract per reload, after the reload's line.
     */
    @Test
    void aRedirectContractThatAHotReloadAddsIsSaidOncePerReload() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path lib = Files.writeString(dir.resolve("ops.yaml"), """
                library: ops
                contracts:
                  - id: ops.no-export
                    guarantee: G !call(export)
                    strategy: block
                    message: No exports.
                """);
        Path log = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + "]\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n"
                + "configured-methods:\n"
                + "  - {class: acme.Accounts, method: delete_account, kind: tool}\n");
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        try {
            assertThat(err.toString(StandardCharsets.UTF_8)).as("no redirect contract yet").doesNotContain("WARN contract ops.");

            Files.writeString(lib, LIBRARY);
            assertThat(s.reload()).isTrue();
            String said = err.toString(StandardCharsets.UTF_8);
            String reloaded = said.substring(said.indexOf("libraries reloaded (version 2)"));
            assertThat(reloaded).contains("WARN contract ops.no-delete (" + lib + ":3) redirects to archive_account,"
                    + " but its calls will be blocked, not redirected: every tool it names (delete_account) is a configured method"
                    + " (acme.Accounts#delete_account at ");
            assertThat(lines(said, "WARN contract ops.no-delete")).as("once:\n%s", said).isEqualTo(1);
            assertThat(said).as("wire is no configured method; export's contract blocks anyway")
                    .doesNotContain("contract ops.no-wire").doesNotContain("contract ops.no-export");

            Files.writeString(lib, LIBRARY + "    description: the same contracts, a new version\n");
            assertThat(s.reload()).isTrue();
            said = err.toString(StandardCharsets.UTF_8);
            assertThat(lines(said, "WARN contract ops.no-delete")).as("once more, for version 3:\n%s", said).isEqualTo(2);
        } finally {
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void aFrameworkThatMaySeeTheToolsOrNoConfiguredToolMethodSaysNothing() throws Exception {
        String said = start("""
                configured-methods:
                  - {class: acme.Registry, method: invoke, kind: tool, tool-name: 1}
                """);
        assertThat(said).as("a dispatcher names no tool at start; the frameworks are on").doesNotContain("WARN contract ops.");

        err.reset();
        said = start("instrumentations: {langchain4j: {enabled: false}}\n");
        assertThat(said).as("no configured method: the frameworks run redirects").doesNotContain("WARN contract ops.");
    }
}
