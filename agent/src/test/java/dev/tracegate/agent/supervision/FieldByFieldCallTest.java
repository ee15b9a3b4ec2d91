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
        String[][] calls = {{"lookup", "c1"}, {"export", "c2"}, {"delete_account", "c3"}, {"lookup", "c4"}};
        for (String[] call : calls) {
            Args args = Args.ofJson("{\"q\":\"" + call[1] + "\"}");
            out.add(String.valueOf(fields
                    ? s.onToolCall("configured", "sess", call[0], call[1], args, CONFIGURED)
                    : s.onToolCall(new ToolCall("configured", "sess", call[0], null, call[1], args, CONFIGURED))));
        }
        String[][] results = {{"c1", "nothing here"}, {"c4", "the secret is 42"}};
        for (String[] result : results) {
            out.add(String.valueOf(fields
                    ? s.onToolResult("configured", "sess", "lookup", result[0], result[1], false, "the method returns an object")
                    : s.onToolResult(new ToolResult("configured", "sess", "lookup", result[0], result[1], false, "the method returns an object"))));
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
}
