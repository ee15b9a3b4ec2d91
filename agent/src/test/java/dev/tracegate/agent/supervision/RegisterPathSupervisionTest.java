package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The supervisor with {@code register.path}: a new supervisor (a restarted JVM) starts from what the previous one
 * recorded, a hot reload goes on writing to the same file, a write the file refuses is counted under the failure policy,
 * and {@code scope: session} leaves the file alone.
 */
class RegisterPathSupervisionTest {
    @TempDir Path dir;

    private static final String SHOP = """
            library: shop
            contracts:
              - {id: shop.no-transfer, guarantee: "G !call(transfer)"}
            gdpr:
            %s  purposes:
                marketing: [email]
                support: [email]
              consent-purposes: [marketing]
              subject-fields: [email]
              tools:
                sendNewsletter: [marketing]
                lookup: [support]
            """;

    private record Running(ContractSupervisor supervisor, AuditWriter audit, SupervisorMetrics metrics) {
        void stop() {
            supervisor.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
    }

    private Running start(Path lib, Path register, String more) {
        AgentConfig config = AgentConfig.load("libraries=gdpr;" + lib + ",audit.path=" + dir.resolve("audit.jsonl")
                + (register == null ? "" : ",register.path=" + register) + more, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(dir.resolve("audit.jsonl"), AuditWriter.Settings.from(config));
        SupervisorMetrics metrics = new SupervisorMetrics();
        return new Running(new ContractSupervisor(config, audit, metrics, null), audit, metrics);
    }

    private static ToolDecision.Kind call(ContractSupervisor s, String session, String tool, String email) {
        return s.onToolCall(new ToolCall("x", session, tool, "{\"email\":\"" + email + "\"}", null)).kind();
    }

    /**
     * trial26 06: a consent tool whose call fails (its handler threw: the RETURN is an error; or it answered an MCP error
     * result) records no consent, neither in the register nor in the file, as a configured consent method that throws
     * records none; the same call that succeeds records it, and a withdrawal counts at its call whatever follows.
     */
    @Test
    void aConsentToolGrantCountsAtItsSuccessfulReturnOnly() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted("")
                + "  consent-tools:\n    grant_consent: {subject: email, purposes: purpose, granted: granted}\n");
        Path register = dir.resolve("register.jsonl");
        Running one = start(lib, register, "");
        ContractSupervisor s = one.supervisor();
        String grant = "{\"email\":\"ada@example.com\",\"purpose\":\"marketing\"}";
        assertThat(s.onToolCall(new ToolCall("mcp-server", "conv-A", "grant_consent", grant, "7")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).as("before the grant returned").isEqualTo(ToolDecision.Kind.BLOCK);
        s.onToolResult(new ToolResult("mcp-server", "conv-A", "grant_consent", "7", "consent store unavailable", true));
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).as("after the grant failed").isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(call(s, "conv-B", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(Files.exists(register) ? Files.readAllLines(register) : java.util.List.of()).as("nothing in the file").isEmpty();
        assertThat(s.onToolCall(new ToolCall("mcp-server", "conv-A", "grant_consent", grant, "8")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        s.onToolResult(new ToolResult("mcp-server", "conv-A", "grant_consent", "8", "consent recorded", false));
        assertThat(call(s, "conv-B", "sendNewsletter", "ada@example.com")).as("after a grant that succeeded").isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(s.onToolCall(new ToolCall("mcp-server", "conv-A", "grant_consent",
                "{\"email\":\"ada@example.com\",\"purpose\":\"marketing\",\"granted\":false}", "9")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-B", "sendNewsletter", "ada@example.com")).as("a withdrawal counts at its call").isEqualTo(ToolDecision.Kind.BLOCK);
        s.onToolResult(new ToolResult("mcp-server", "conv-A", "grant_consent", "9", "withdrawal not stored", true));
        one.stop();
        assertThat(Files.readAllLines(register)).hasSize(2);
        assertThat(Files.readAllLines(register).get(0)).startsWith("{\"op\":\"consent\",\"subject\":\"ada@example.com\"");
        assertThat(Files.readAllLines(register).get(1)).startsWith("{\"op\":\"withdraw\"");
    }

    @Test
    void aNewSupervisorStartsFromTheFileAndAReloadGoesOnWritingToIt() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        Path register = dir.resolve("register.jsonl");
        Running one = start(lib, register, "");
        one.supervisor().onConsent(new Consent("web-1", "ada@example.com", "marketing", true));
        one.supervisor().onErasure(new Erasure("conv-B", "bob@example.com"));
        one.stop();

        Running two = start(lib, register, "");
        ContractSupervisor s = two.supervisor();
        assertThat(call(s, "conv-C", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-C", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        Files.writeString(lib, SHOP.formatted("").replace("G !call(transfer)", "G !call(wire)"));
        assertThat(s.reload()).isTrue();
        assertThat(call(s, "conv-D", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);   // the new version's session
        s.onErasure(new Erasure("conv-D", "carol@example.com"));
        two.stop();
        assertThat(Files.readAllLines(register)).hasSize(3);
        assertThat(Files.readAllLines(register).get(2)).startsWith("{\"op\":\"erase\",\"subject\":\"carol@example.com\"");
        // the audit log says, after each start's header, which lines the register started from
        assertThat(Files.readAllLines(dir.resolve("audit.jsonl")).stream().filter(l -> l.contains("\"rec\":\"register\"")))
                .hasSize(2).last().asString().contains("\"lines\":2,");
    }

    @Test
    void aChangeTheFileCannotTakeIsAnInternalErrorUnderTheFailurePolicyAndCounted() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        Path register = dir.resolve("register.jsonl");
        Running r = start(lib, register, "");
        ContractSupervisor s = r.supervisor();
        // the file's channel breaks (as a disk that went away would): the next change cannot be written
        var fileField = ContractSupervisor.class.getDeclaredField("registerFile");
        fileField.setAccessible(true);
        RegisterFile file = (RegisterFile) fileField.get(s);
        var out = RegisterFile.class.getDeclaredField("out");
        out.setAccessible(true);
        ((FileChannel) out.get(file)).close();
        s.onErasure(new Erasure("conv-B", "bob@example.com"));
        assertThat(r.metrics().getRegisterFileErrors()).isEqualTo(1);
        assertThat(r.metrics().getInternalErrors().get("closed")).isEqualTo(1L);
        assertThat(call(s, "conv-A", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);   // in force in this JVM
        // the next change reopens the file and is written whole
        s.onErasure(new Erasure("conv-B", "carol@example.com"));
        r.stop();
        assertThat(Files.readAllLines(register)).singleElement().asString().startsWith("{\"op\":\"erase\",\"subject\":\"carol@example.com\"");
        assertThat(r.metrics().getRegisterFileErrors()).isEqualTo(1);
    }

    @Test
    void withScopeSessionTheFileIsNotUsed() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted("  scope: session\n"));
        Path register = dir.resolve("register.jsonl");
        Running r = start(lib, register, "");
        r.supervisor().onErasure(new Erasure("conv-B", "bob@example.com"));
        r.stop();
        assertThat(register).doesNotExist();
    }

    @Test
    void theAuditLogCannotBeTheRegisterFile() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        assertThatThrownBy(() -> start(lib, dir.resolve("audit.jsonl"), ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("register.path and audit.path name the same file");
    }

    @Test
    void aMalformedFileStopsTheSupervisorWithWhereAndWhat() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        Path register = Files.writeString(dir.resolve("register.jsonl"), "{\"op\":\"erase\",\"subject\":\"a\"}\nnot json\n");
        assertThatThrownBy(() -> start(lib, register, ""))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(register + ":2:1: not a JSON object");
        assertThat(Files.readString(dir.resolve("audit.jsonl"))).contains("\"rec\":\"unsupervised\"");
    }
}
