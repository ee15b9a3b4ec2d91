package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.CallReach;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.matchers.event.Args;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A configured method's call and result reach the supervisor field by field (no {@link ToolCall} or {@link ToolResult} on
 * a passed call, session 21). Its decisions, its reasons and its records must be those of the same events handed over as
 * {@link ToolCall} and {@link ToolResult}: a pass, a block, a redirect a configured method cannot carry out (so a block),
 * and the results of the passed calls, one of which violates an environment contract.
 */
class FieldByFieldCallTest {
    @TempDir Path dir;

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
              - id: ops.no-export
                guarantee: G !call(export)
                strategy: block
                message: No exports.
              - id: ops.no-secret-result
                guarantee: G !(returned(lookup) & result_matches("secret"))
                strategy: suppress
                message: No secrets.
            """;

    /** A configured method's reach: it cannot run another tool in place of its own. */
    private static final CallReach CONFIGURED = new CallReach("a configured method can only run or refuse the method it sits on",
            "a configured method cannot rewrite", Map.of());

    /** The decisions of the script, and the audit lines with their times, latencies, salts, pseudonyms and hashes taken out. */
    private List<String> run(String name, boolean fields) throws Exception {
        return run(name, fields ? Ids.TEXT : Ids.CARRIERS, "c");
    }

    /**
     * How the script's calls and results reach the supervisor: as carriers, field by field with the id as text, with a
     * generated id {@code tg-N} as its number N (session 24: no String of the id a call), or the call with the number and its
     * result with the id as text (a result the agent reports on a path that spells the id).
     */
    private enum Ids { CARRIERS, TEXT, NUMBERS, NUMBER_THEN_TEXT }

    /** As above; the ids are {@code prefix} and 1 to 4 (prefix {@code tg-}: ids the agent generated). */
    private List<String> run(String name, Ids ids, String prefix) throws Exception {
        AgentLog.captureForTest(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Path lib = dir.resolve("ops.yaml");
        if (!Files.exists(lib)) Files.writeString(lib, LIBRARY);
        Path log = dir.resolve(name + ".jsonl");
        Path config = Files.writeString(dir.resolve(name + ".yaml"), "libraries: [" + lib + "]\n"
                + "audit.path: " + log + "\n"
                + "warmup: false\n");
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        List<String> out = new ArrayList<>();
        String[][] calls = {{"lookup", "1"}, {"export", "2"}, {"delete_account", "3"}, {"lookup", "4"}};
        for (String[] call : calls) {
            String id = prefix + call[1];
            Args args = Args.ofJson("{\"q\":\"" + id + "\"}");
            out.add(String.valueOf(switch (ids) {
                case CARRIERS -> s.onToolCall(new ToolCall("configured", "sess", call[0], null, id, args, CONFIGURED));
                case TEXT -> s.onToolCall("configured", "sess", call[0], id, args, CONFIGURED);
                case NUMBERS, NUMBER_THEN_TEXT -> s.onToolCall("configured", "sess", call[0], Long.parseLong(call[1]), args, CONFIGURED);
            }));
        }
        String[][] results = {{"1", "nothing here"}, {"4", "the secret is 42"}};
        for (String[] result : results) {
            String id = prefix + result[0];
            out.add(String.valueOf(switch (ids) {
                case CARRIERS -> s.onToolResult(new ToolResult("configured", "sess", "lookup", id, result[1], false, "the method returns an object"));
                case TEXT, NUMBER_THEN_TEXT -> s.onToolResult("configured", "sess", "lookup", id, result[1], false, "the method returns an object");
                case NUMBERS -> s.onToolResult("configured", "sess", "lookup", Long.parseLong(result[0]), result[1], false, "the method returns an object");
            }));
        }
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            // each log has its own salt, so its own pseudonyms: those, times and hashes are taken out
            out.add(line.replaceAll("\"(ts|created|salt|latencyNs|hash|prev)\":(\"[^\"]*\"|[-0-9.]+)", "\"$1\":_")
                    .replaceAll("sha256:[0-9a-f]+", "sha256:_"));
        }
        return out;
    }

    @Test
    void aCallAndAResultGivenFieldByFieldAreDecidedAndRecordedAsTheCarriersAre() throws Exception {
        List<String> carriers = run("carriers", false);
        List<String> fields = run("fields", true);

        assertThat(carriers).as("the script decided something: a pass, a block, a refused redirect, a result that violates")
                .anyMatch(d -> d.contains("BLOCK") && d.contains("ops.no-export"))
                .anyMatch(d -> d.contains("ops.no-delete"))
                .anyMatch(d -> d.contains("ops.no-secret-result"));
        assertThat(fields).isEqualTo(carriers);
    }

    /**
     * A generated id kept as its number (tg-N, the configured methods' advice since session 24) gives the decisions and
     * the audit lines, byte for byte, of the same id given as text; a RETURN that spells the id releases the hold its CALL
     * took by the number (the session's END record would say a call is still in flight).
     */
    @Test
    void aGeneratedIdGivenAsItsNumberIsDecidedAndRecordedAsItsText() throws Exception {
        List<String> text = run("text", Ids.TEXT, "tg-");
        List<String> numbers = run("numbers", Ids.NUMBERS, "tg-");
        List<String> mixed = run("mixed", Ids.NUMBER_THEN_TEXT, "tg-");
        assertThat(text).as("the ids are in the lines").anyMatch(l -> l.contains("\"id\":\"tg-4\"") && l.contains("\"kind\":\"return\""))
                .anyMatch(l -> l.contains("\"id\":\"tg-1\"") && l.contains("\"kind\":\"call\""))
                .anyMatch(l -> l.contains("\"kind\":\"end\""));
        assertThat(numbers).isEqualTo(text);
        assertThat(mixed).isEqualTo(text);
    }
}
