package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code replay} of an audit log's files (trial48 01): a file that continues a moved one replays the sessions open
 * across the move with their history only when the moved file comes first, so replayed alone or out of order it says
 * that its verdicts may differ; and a log of another run after a first log starts a fresh runtime, as that run did
 * online. Oracle: the online supervisor's own decisions (a fourth and fifth call over a bound of three, refused).
 */
class ReplayRotatedFilesTest {
    @TempDir Path dir;

    private static final String LIMIT = """
            library: lim
            contracts:
              - id: lim.at-most-3
                guarantee: G(count(status) <= 3)
                message: at most three status calls a conversation
            """;

    private int n;

    @Test
    void aContinuationReplaysWithItsHistoryOnlyAfterTheMovedFile() throws Exception {
        Path policy = Files.writeString(dir.resolve("lim.yaml"), LIMIT);
        Path log = dir.resolve("audit.jsonl");
        Path moved = dir.resolve("audit.jsonl.1");
        AgentConfig config = AgentConfig.load("libraries=" + policy + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        for (int i = 0; i < 3; i++) assertThat(call(s)).isEqualTo(ToolDecision.Kind.PROCEED);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!Files.exists(log) || !Files.readString(log).contains("\"id\":\"c3\"")) {
            if (System.nanoTime() > deadline) throw new AssertionError("the writer did not write");
            Thread.sleep(10);
        }
        Files.move(log, moved);
        while (!Files.exists(log)) {   // the writer notices the move within about a second
            if (System.nanoTime() > deadline) throw new AssertionError("no new file after the move");
            Thread.sleep(20);
        }
        assertThat(call(s)).isEqualTo(ToolDecision.Kind.BLOCK);   // the fourth and fifth, in the new file
        assertThat(call(s)).isEqualTo(ToolDecision.Kind.BLOCK);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(log)).contains("\"continues\":").contains("\"decision\":\"block\"");

        CliRun inOrder = CliRun.of("replay", policy.toString(), moved.toString(), log.toString(), "--no-progress", "--format", "json");
        assertThat(violations(inOrder)).as(inOrder.err()).isEqualTo(2);
        assertThat(inOrder.err()).doesNotContain("continues an audit log").doesNotContain("out of order").doesNotContain("started again");

        CliRun alone = CliRun.of("replay", policy.toString(), log.toString(), "--no-progress", "--format", "json");
        assertThat(violations(alone)).isZero();   // what it says may differ: the bound counts from the move
        assertThat(alone.err()).contains("note: audit.jsonl continues an audit log that was moved away")
                .contains("Replay the moved file before it");

        CliRun reversed = CliRun.of("replay", policy.toString(), log.toString(), moved.toString(), "--no-progress", "--format", "json");
        assertThat(reversed.err()).contains("note: audit.jsonl continues an audit log that was moved away")
                .contains("audit.jsonl.1:1: the agent started again here");
    }

    @Test
    void theLogOfAnotherRunStartsAFreshRuntime() throws Exception {
        Path policy = Files.writeString(dir.resolve("lim.yaml"), LIMIT);
        Path first = dir.resolve("first.jsonl");
        Path second = dir.resolve("second.jsonl");
        for (Path log : new Path[] {first, second}) {   // two runs of the agent, one conversation id, three calls each: all run
            AgentConfig config = AgentConfig.load("libraries=" + policy + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
            AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
            ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
            for (int i = 0; i < 3; i++) assertThat(call(s)).isEqualTo(ToolDecision.Kind.PROCEED);
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        CliRun r = CliRun.of("replay", policy.toString(), first.toString(), second.toString(), "--no-progress", "--format", "json");
        assertThat(violations(r)).as(r.out() + r.err()).isZero();   // before: six calls of one session, two violations
        assertThat(r.err()).contains("second.jsonl:1: the agent started again here").doesNotContain("continues an audit log");
    }

    /** trial48 03: an audit log piped to replay was read as a plain trace with "add a kind field" for its header, and no word of why. */
    @Test
    void anAuditLogOnStandardInputIsSaidToBeOneAndToBeGivenAsAFile() throws Exception {
        Path policy = Files.writeString(dir.resolve("lim.yaml"), LIMIT);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + policy + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        call(s);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        java.io.InputStream stdin = System.in;
        CliRun r;
        try {
            System.setIn(Files.newInputStream(log));
            r = CliRun.of("replay", policy.toString(), "-", "--no-progress");
        } finally {
            System.setIn(stdin);
        }
        assertThat(r.err()).startsWith("note: standard input holds a tracegate audit log")
                .contains("its personal data is hashed")   // the default: audit.personal-data salted-sha256
                .contains("Give the log as a file (replay LIBS audit.jsonl");
        assertThat(CliRun.of("replay", policy.toString(), log.toString(), "--no-progress").err()).doesNotContain("holds a tracegate audit log");
    }

    private ToolDecision.Kind call(ContractSupervisor s) {
        String id = "c" + (++n);
        ToolDecision d = s.onToolCall(new ToolCall("x", "conv", "status", "{}", id));
        if (d.kind() == ToolDecision.Kind.PROCEED) s.onToolResult(new ToolResult("x", "conv", "status", id, "ok", false));
        return d.kind();
    }

    /** The replay's violating events over all sessions and contracts. */
    private static int violations(CliRun r) throws Exception {
        int count = 0;
        for (JsonNode session : new ObjectMapper().readTree(r.out()).path("sessions")) {
            for (JsonNode c : session.path("contracts")) count += c.path("events").asInt();
        }
        return count;
    }
}
