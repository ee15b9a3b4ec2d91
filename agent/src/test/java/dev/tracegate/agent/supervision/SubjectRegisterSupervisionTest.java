package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Erasure;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
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
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The supervisor's consents and erasures of data subjects are the service's: given in one session (a configured
 * consent or erasure method, a consent tool), they count in every session, outlive a hot reload of the libraries,
 * and {@code tracegate replay} of the audit log, which steps every session's events in the log's order with one
 * register, finds the same violations.
 */
class SubjectRegisterSupervisionTest {
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

    private record Running(ContractSupervisor supervisor, AuditWriter audit) {}

    /** A supervisor with the gdpr library and {@code lib}, writing its audit log to {@code log}. */
    private static Running start(Path lib, Path log) {
        AgentConfig config = AgentConfig.load("libraries=gdpr;" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        return new Running(new ContractSupervisor(config, audit, new SupervisorMetrics(), null), audit);
    }

    private static ToolDecision.Kind call(ContractSupervisor s, String session, String tool, String email) {
        return s.onToolCall(new ToolCall("x", session, tool, "{\"email\":\"" + email + "\"}", null)).kind();
    }

    /**
     * A consent tool call that a contract refuses did not happen: the register does not record its consent (docs7's open
     * question), while the same call allowed does.
     */
    @Test
    void aRefusedConsentToolCallRecordsNoConsent() throws Exception {
        Path lib = Files.writeString(dir.resolve("consent.yaml"), """
                library: consent
                contracts:
                  - {id: consent.no-bulk, guarantee: "G(call(record_consent) -> !arg_matches(note, \\"bulk\\"))"}
                gdpr:
                  purposes:
                    marketing: [email]
                  consent-purposes: [marketing]
                  subject-fields: [email]
                  tools:
                    sendNewsletter: [marketing]
                  consent-tools:
                    record_consent: {subject: email, purposes: purpose, granted: granted}
                """);
        Path log = dir.resolve("audit.jsonl");
        Running r = start(lib, log);
        ContractSupervisor s = r.supervisor();
        AuditWriter audit = r.audit();
        assertThat(s.onToolCall(new ToolCall("x", "web-1", "record_consent",
                "{\"email\":\"ada@example.com\",\"purpose\":\"marketing\",\"granted\":true,\"note\":\"bulk import\"}", null)).kind())
                .isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).as("the refused consent counts nowhere").isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(s.onToolCall(new ToolCall("x", "web-1", "record_consent",
                "{\"email\":\"ada@example.com\",\"purpose\":\"marketing\",\"granted\":true,\"note\":\"form\"}", null)).kind())
                .isEqualTo(ToolDecision.Kind.PROCEED);
        s.onToolResult(new dev.tracegate.agent.core.ToolResult("x", "web-1", "record_consent", null, "recorded", false));
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aConsentOrAnErasureInOneSessionCountsInEveryOtherAndReplayOfTheLogAgrees() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        Path log = dir.resolve("audit.jsonl");
        Running r = start(lib, log);
        ContractSupervisor s = r.supervisor();
        AuditWriter audit = r.audit();
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);     // P1
        s.onConsent(new Consent("web-1", "ada@example.com", "marketing", true));                                   // a web request
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-A", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        s.onErasure(new Erasure("conv-B", "bob@example.com"));
        assertThat(call(s, "conv-A", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);            // P4
        s.endSession("conv-B");
        s.endSession("web-1");
        // the sessions that gave them ended: the consent and the erasure stay
        assertThat(call(s, "conv-C", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-C", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        s.onConsent(new Consent("web-2", "ada@example.com", "marketing", false));                                  // withdrawn
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        // a consent method whose purpose parameter is a list: each purpose counts (trial9 consent-purpose-list)
        s.onConsent(new Consent("web-3", "cy@example.com", java.util.List.of("support", "marketing"), true));
        assertThat(call(s, "conv-D", "sendNewsletter", "cy@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();

        String text = replay("gdpr," + lib, log);
        // conv-A: the first newsletter (no consent), the lookup after conv-B's erasure, the newsletter after web-2's withdrawal
        assertThat(section(text, "conv-A")).as(text)
                .contains("gdpr.P1-consent: violated first at audit.jsonl:").contains("(2 events)")
                .contains("gdpr.P4-erasure: violated first at audit.jsonl:");
        assertThat(section(text, "conv-C")).as(text).contains("gdpr.P4-erasure: violated first at").doesNotContain("gdpr.P1-consent");
        assertThat(section(text, "conv-B")).as(text).contains("every contract kept");
        assertThat(section(text, "conv-D")).as("the two-purpose consent replays as it ran: %s", text).contains("every contract kept");
    }

    @Test
    void aReloadedLibraryReadsAndWritesTheSameRegisterAsTheSessionsStillOnTheOldOne() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted(""));
        Path log = dir.resolve("audit.jsonl");
        Running r = start(lib, log);
        ContractSupervisor s = r.supervisor();
        AuditWriter audit = r.audit();
        s.onConsent(new Consent("web-1", "ada@example.com", "marketing", true));
        s.onErasure(new Erasure("conv-B", "bob@example.com"));
        assertThat(call(s, "conv-A", "lookup", "carol@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);   // conv-A starts on version 1

        Files.writeString(lib, SHOP.formatted("").replace("G !call(transfer)", "G !call(wire)"));
        assertThat(s.reload()).isTrue();
        assertThat(s.version()).isEqualTo(2);
        assertThat(call(s, "conv-D", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-D", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        // an erasure given in a session still on version 1 counts in version 2's sessions, and the other way round
        s.onErasure(new Erasure("conv-A", "ada@example.com"));
        assertThat(call(s, "conv-D", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        s.onErasure(new Erasure("conv-D", "carol@example.com"));
        assertThat(call(s, "conv-A", "lookup", "carol@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void withScopeSessionAConversationKeepsItsOwn() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted("  scope: session\n"));
        Path log = dir.resolve("audit.jsonl");
        Running r = start(lib, log);
        ContractSupervisor s = r.supervisor();
        AuditWriter audit = r.audit();
        s.onConsent(new Consent("web-1", "ada@example.com", "marketing", true));
        s.onErasure(new Erasure("conv-B", "bob@example.com"));
        assertThat(call(s, "conv-A", "sendNewsletter", "ada@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(call(s, "conv-A", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(call(s, "conv-B", "lookup", "bob@example.com")).isEqualTo(ToolDecision.Kind.BLOCK);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aScopeThatIsNeitherGlobalNorSessionIsRefusedWhereItIsWritten() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), SHOP.formatted("  scope: everywhere\n"));
        assertThatThrownBy(() -> dev.tracegate.contracts.library.Library.load(java.util.List.of("gdpr", lib.toString()), null))
                .isInstanceOf(dev.tracegate.contracts.library.LibraryException.class)
                .hasMessageContaining("shop.yaml:5:10: ")
                .hasMessageContaining("gdpr.scope is 'everywhere', which is neither global nor session")
                .hasMessageContaining("'scope: session' (each conversation keeps its own)");
    }

    /** What {@code tracegate replay LIBS LOG} prints. */
    private static String replay(String libs, Path log) {
        PrintStream stdout = System.out;
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            dev.tracegate.agent.cli.Main.run("replay", libs, log.toString());
        } finally {
            System.setOut(stdout);
        }
        return out.toString(StandardCharsets.UTF_8);
    }

    /** The replay's lines about one session. */
    private static String section(String text, String session) {
        int at = text.indexOf("session " + session + ":");
        assertThat(at).as(text).isNotNegative();
        int end = text.indexOf("\nsession ", at + 1);
        int table = text.indexOf("\n\n", at);
        int stop = end < 0 ? table : table < 0 ? end : Math.min(end, table);
        return text.substring(at, stop < 0 ? text.length() : stop);
    }
}
