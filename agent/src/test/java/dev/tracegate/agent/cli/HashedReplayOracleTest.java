package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import dev.tracegate.contracts.library.Library;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The note replay prints for an audit log with personal data hashed, against replay itself: one session is supervised
 * twice, writing a clear log and a hashed one, and each contract the note does not name must replay from the hashed
 * log exactly as from the clear one (verdict, first violation, events). The contracts probe one atom each, of every
 * kind of what they read: structure, content, context values from latches of each source.
 */
class HashedReplayOracleTest {
    @TempDir Path dir;

    /** One atom of every kind of what an atom reads (CheckMemoryBoundTest checks the same fifty). */
    static final List<String> ATOMS = List.of(
            "user", "assistant", "call", "return", "consent", "erasure", "call(send_money)", "call(send_money, \"DE89\")",
            "returned(read_invoice)", "failed(send_money)", "arg(amount) > 100", "arg(send_money, amount) <= 1000",
            "arg_matches(recipient, \"DE\")", "arg_in(recipient, [\"DE89370400440532013000\"])", "path_within(path, [\"/srv/\"])",
            "len(arg(email)) > 14", "result_matches(\"Pay to\")", "user_matches(\"invoice\")", "output_matches(\"wrote\")",
            "ctx(approved)", "ctx(approved) > 100", "ctx(mode) == \"strict\"", "ctx(total)", "arg_eq_ctx(recipient, payee)",
            "permission(admin)", "permission(read_orders)", "flow(recipient)", "untrusted(recipient)", "untrusted_target",
            "side_effect", "named_link", "category(email)", "personal_data", "excess_data", "purpose(billing)",
            "consent(billing)", "consented", "purpose(billing) & !consented", "undeclared_purpose", "mentions_erased", "count(send_money) >= 1",
            "count(send_money) <= ctx(approved)", "count(send_money) <= ctx(limit)", "run(send_money) >= 1",
            "sum(send_money, amount) > 10", "context_len > 100", "output_chars > 20", "tokens > 20",
            "since(call(send_money)) > 2", "since(personal_data) > 2");

    /** The policy and latches every probe library shares. */
    static final String HEADER = """
            library: probe
            gdpr:
              purposes: {billing: [email], ads: []}
              subject-fields: [customer]
              tools: {send_invoice: [billing], mail_ads: [ads]}
              consent-tools:
                give_consent: {subject: customer, purposes: purposes, granted: granted}
              erasure-tools:
                forget: {subject: customer}
            injection:
              side-effecting:
                send_money: [recipient]
                get_webpage: [url]
              provenance:
                fetch-tools: [get_webpage]
            permissions: [read_orders]
            context:
              - on: {kind: CALL, tool: approve}
                set: approved
                value: arg(amount)
              - on: {kind: CALL, tool: approve}
                set: payee
                value: "DE89370400440532013000"
              - on: {kind: CALL, tool: login}
                set: mode
                value: "strict"
              - on: {kind: CALL, tool: login}
                set: limit
                value: "3"
              - on: {kind: CALL, tool: promote}
                add: permissions
                value: arg(role)
              - on: {kind: RETURN, tool: quote}
                set: total
                value: result(total)
            contracts:
            """;

    /** The probe library: one contract {@code G !(atom)} per atom given. */
    private Path library(String name, List<String> atoms) throws Exception {
        return Files.writeString(dir.resolve(name + ".yaml"), probeLibrary(atoms));
    }

    /** The probe library's text: one contract {@code G !(atom)} per atom given, after {@link #HEADER}. */
    static String probeLibrary(List<String> atoms) {
        StringBuilder y = new StringBuilder(HEADER);
        for (int i = 0; i < atoms.size(); i++) {
            y.append("  - id: probe.a").append(i).append("\n    guarantee: 'G !(").append(atoms.get(i)).append(")'\n");
        }
        return y.toString();
    }

    /** The session, supervised in shadow mode (nothing refused, every event applied), logged with {@code personalData}. */
    private Path log(Path lib, String personalData) throws Exception {
        Path log = Files.createDirectories(dir.resolve(personalData)).resolve("session.jsonl");   // one name: replay reports places by it
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",mode=shadow,audit.personal-data=" + personalData + ",audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        String id = "alice-session";
        s.onUserMessage(new Message("x", id, "Please pay the invoice in invoice.txt and mail the receipt to alice@example.com;"
                + " also, what did Eve recommend in general?"));
        s.onToolCall(new ToolCall("x", id, "give_consent", "{\"customer\":\"alice\",\"purposes\":[\"billing\"],\"granted\":true}", "c1"));
        s.onToolCall(new ToolCall("x", id, "promote", "{\"role\":\"admin\"}", "c2"));
        s.onToolCall(new ToolCall("x", id, "login", "{}", "c3"));
        s.onToolCall(new ToolCall("x", id, "quote", "{}", "c4"));
        s.onToolResult(new ToolResult("x", id, "quote", "c4", "{\"total\":40}", false));
        s.onToolCall(new ToolCall("x", id, "approve", "{\"amount\":500}", "c5"));
        s.onToolCall(new ToolCall("x", id, "read_invoice", "{\"file\":\"invoice.txt\"}", "c6"));
        s.onToolResult(new ToolResult("x", id, "read_invoice", "c6", "Amount 40 EUR. Pay to DE89370400440532013000.", false));
        s.onToolCall(new ToolCall("x", id, "send_money", "{\"recipient\":\"DE89370400440532013000\",\"amount\":40}", "c7"));
        s.onToolCall(new ToolCall("x", id, "send_invoice",
                "{\"customer\":\"alice\",\"email\":\"alice@example.com\",\"path\":\"/srv/a/../b.txt\"}", "c8"));
        s.onToolCall(new ToolCall("x", id, "mail_ads", "{\"customer\":\"alice\",\"note\":\"write to alice@example.com\"}", "c9"));
        s.onToolResult(new ToolResult("x", id, "read_channel", "c10",
                "[{\"sender\":\"Eve\",\"channel\":\"general\",\"body\":\"see www.food.example\"}]", false));
        s.onToolCall(new ToolCall("x", id, "get_webpage", "{\"url\":\"https://www.food.example\"}", "c11"));
        // one subject spelled two ways, as online they are one (trial17): an e-mail address in two cases, an id as text and number
        s.onToolCall(new ToolCall("x", id, "give_consent", "{\"customer\":\"Carol@Example.com\",\"purposes\":[\"billing\"],\"granted\":true}", "c13"));
        s.onToolCall(new ToolCall("x", id, "send_invoice", "{\"customer\":\"carol@example.com\"}", "c14"));
        s.onToolCall(new ToolCall("x", id, "give_consent", "{\"customer\":\"42\",\"purposes\":[\"billing\"],\"granted\":true}", "c15"));
        s.onToolCall(new ToolCall("x", id, "send_invoice", "{\"customer\":42}", "c16"));
        s.onToolCall(new ToolCall("x", id, "send_invoice", "{\"customer\":\"dave\"}", "c17"));
        s.onToolCall(new ToolCall("x", id, "forget", "{\"customer\":\"bob\"}", "c12"));
        s.onAssistantMessage(new Message("x", id, "I wrote to bob about the refund"));
        s.onToolResult(new ToolResult("x", id, "send_money", "c7", "declined", true));
        s.endSession(id);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        return log;
    }

    private static synchronized String replayJson(Path lib, Path log) {
        PrintStream out = System.out;
        PrintStream err = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
            Main.run("replay", lib.toString(), log.toString(), "--format", "json");
            return o.toString(StandardCharsets.UTF_8);
        } finally {
            System.setOut(out);
            System.setErr(err);
        }
    }

    /**
     * Each contract is replayed alone (with the same policy and latches): in one library the events a contract counts
     * also depend on which other contracts an event violates (the one acted on), which is not what the note is about.
     */
    @Test
    void everyContractTheNoteLeavesOutReplaysFromAHashedLogAsFromAClearOne() throws Exception {
        Path all = library("probe", ATOMS);
        Path clearLog = log(all, "clear");
        Path hashedLog = log(all, "hashed");
        List<String> falseAssurance = new ArrayList<>();
        Set<String> differing = new HashSet<>();
        for (String atom : ATOMS) {
            Path one = library("one", List.of(atom));
            JsonNode c = new ObjectMapper().readTree(replayJson(one, clearLog)).path("sessions");
            JsonNode h = new ObjectMapper().readTree(replayJson(one, hashedLog)).path("sessions");
            assertThat(c.size()).as(atom).isEqualTo(1);
            assertThat(h.size()).as(atom).isEqualTo(1);
            JsonNode cc = c.get(0).path("contracts").get(0);
            JsonNode hc = h.get(0).path("contracts").get(0);
            if (cc.equals(hc)) continue;
            differing.add(atom);
            boolean named = !HashedContent.contracts(Library.load(List.of(one.toString()), dir)).isEmpty();
            if (!named) falseAssurance.add(atom + ": clear " + cc + ", hashed " + hc);
        }
        assertThat(falseAssurance).as("contracts whose replay from the hashed log differs, which the note does not name").isEmpty();
        // the session tells them apart: content of each kind, context values from an argument and from a result's field
        assertThat(differing).contains("arg(send_money, amount) <= 1000", "untrusted_target", "category(email)", "mentions_erased",
                "permission(admin)", "ctx(total)", "count(send_money) <= ctx(approved)");
    }
}
