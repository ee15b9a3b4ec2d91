package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An audit log appended to across a restart replays to the verdicts the agent gave online (trial9 repro
 * replay-register-across-restart: online the second run started with an empty GDPR register, so a newsletter to the
 * subject who had consented in the first run was refused and the erased subject's lookup ran; replay carried the
 * first run's consent and erasure into the second and said the opposite). Oracle: the online agent itself, two runs
 * of a real supervisor writing one log, whose decisions replay must reproduce per contract.
 */
class ReplayRestartTest {
    @TempDir Path dir;

    private static final String POLICY = """
            library: crm
            gdpr:
              purposes: {marketing: [email], support: [email]}
              consent-purposes: [marketing]
              subject-fields: [email]
              tools: {send_newsletter: [marketing], lookup: [support]}
              consent-tools:
                grant: {subject: email, purposes: purposes}
              erasure-tools:
                forget: {subject: email}
            """;

    /** What the agent refused online, as contract ids, one per refused call or withheld result, in order. */
    private final List<String> online = new ArrayList<>();

    @Test
    void aRestartInsideAnAuditLogEmptiesTheRegisterAsOnline() throws Exception {
        Path policy = Files.writeString(dir.resolve("policy.yaml"), POLICY);
        Path log = dir.resolve("audit.jsonl");
        run(policy, log, s -> {
            call(s, "web", "grant", "{\"email\":\"ada@example.com\",\"purposes\":[\"marketing\"]}");
            call(s, "web", "forget", "{\"email\":\"eve@example.com\"}");
            call(s, "web", "send_newsletter", "{\"email\":\"ada@example.com\"}");   // consented: runs
        });
        run(policy, log, s -> {
            call(s, "s2", "send_newsletter", "{\"email\":\"ada@example.com\"}");    // a new start: no consent
            call(s, "s2", "lookup", "{\"email\":\"eve@example.com\"}");             // nor erasure
        });
        assertThat(Files.readAllLines(log).stream().filter(l -> l.contains("\"rec\":\"header\"")).count()).as("two runs").isEqualTo(2);
        assertThat(online).as("online").containsExactly("gdpr.P1-consent");

        CliRun r = CliRun.of("replay", "gdpr," + policy, log.toString(), "--no-progress", "--format", "json");
        JsonNode sessions = new ObjectMapper().readTree(r.out()).path("sessions");
        List<String> replayed = new ArrayList<>();
        for (JsonNode s : sessions) {
            for (JsonNode c : s.path("contracts")) {
                for (int i = 0; i < c.path("events").asInt() + c.path("withheld").asInt(); i++) replayed.add(c.path("id").asText());
            }
        }
        assertThat(replayed).as(r.out() + r.err()).containsExactlyElementsOf(online);
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains("audit.jsonl:" + headerLine(log) + ": the agent started again here");
    }

    private interface Script {
        void on(ContractSupervisor s);
    }

    /** One run of the agent: a supervisor writing the log (appending to it, with a header of its own), then shut down. */
    private void run(Path policy, Path log, Script script) throws Exception {
        AgentConfig config = AgentConfig.load("libraries=gdpr;" + policy + ",audit.personal-data=clear,audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        script.on(s);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
    }

    private int n;

    private void call(ContractSupervisor s, String session, String tool, String args) {
        String id = "c" + (++n);
        ToolDecision d = s.onToolCall(new ToolCall("x", session, tool, args, id));
        if (d.kind() != ToolDecision.Kind.PROCEED) {
            online.add(d.contract());
            return;
        }
        ResultDecision rd = s.onToolResult(new ToolResult("x", session, tool, id, "ok " + args, false));
        if (rd.suppressed()) online.add(rd.contract());
    }

    private static long headerLine(Path log) throws Exception {
        List<String> lines = Files.readAllLines(log);
        for (int i = 1; i < lines.size(); i++) if (lines.get(i).contains("\"rec\":\"header\"")) return i + 1;
        return -1;
    }
}
