package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The idle sweep ends only idle sessions (found by the online AgentDojo comparison: sessions were
 * never marked used, so the first sweep ended every live conversation and it went on from seq 1
 * with no history). A conversation that keeps calling survives several sweeps with its history;
 * one that went quiet is ended with an END record.
 */
class IdleSweepTest {
    @TempDir Path dir;

    @Test
    void aBusySessionSurvivesTheSweepAndAQuietOneIsEnded() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        // idle timeout 2 s: the sweep runs every second
        AgentConfig config = AgentConfig.load("libraries=sop-refund,audit.personal-data=clear,sessions.idle-timeout=2s,audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            s.onToolCall(new ToolCall("test", "quiet", "lookup", "{}", "q1"));
            // its tool returned: from here it is quiet (a call still running would keep it open, see below)
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "quiet", "lookup", "q1", "found", false));
            // the busy session approves a refund first, then keeps calling every 100 ms
            assertThat(s.onToolCall(new ToolCall("test", "busy", "approve_refund", "{\"order\":7,\"amount\":40}", "b0")).kind())
                    .isEqualTo(ToolDecision.Kind.PROCEED);
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "busy", "approve_refund", "b0", "approved", false));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            int calls = 0;
            // until the quiet session has been swept (bounded), and at least three sweeps have passed
            while ((!ended(log, "quiet") || calls < 35) && System.nanoTime() < deadline) {
                Thread.sleep(100);
                calls++;
                // the refund needs the approval earlier in this session: it passes only if the history is still there
                assertThat(s.onToolCall(new ToolCall("test", "busy", "refund", "{\"order\":7,\"amount\":40}", "b" + calls)).kind())
                        .as("call %d of the busy session", calls).isEqualTo(ToolDecision.Kind.PROCEED);
            }
            assertThat(ended(log, "quiet")).as("the quiet session was ended by the sweep; audit log:%n%s", tail(log)).isTrue();
            assertThat(ended(log, "busy")).as("the busy session was not ended").isFalse();
        } finally {
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    /**
     * trial12 idle-timeout-splits-session-during-tool-call: a session whose tool call is still running is not idle. The
     * sweep left it open only while nothing happened; it ended it while buildReport ran, and the rest of the turn went
     * to a new empty session where sendMoney was refused for want of the balance read a moment before. Once the call
     * has returned the session idles as before, and a blocked call (it never runs) does not keep it open.
     */
    @Test
    void aSessionWithAToolCallInFlightIsNotEndedUntilTheCallHasReturned() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        Path lib = Files.writeString(dir.resolve("it.yaml"), "library: it\ncontracts:\n  - id: it.balance-first\n"
                + "    guarantee: G(call(sendMoney) -> O returned(getBalance))\n");
        // the timeout is long so that only the sweeps this test runs (with their cutoff) end sessions
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,sessions.idle-timeout=1h,audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            s.onToolCall(new ToolCall("test", "conv1", "getBalance", "{}", "c1"));
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "conv1", "getBalance", "c1", "12 EUR", false));
            assertThat(s.onToolCall(new ToolCall("test", "conv1", "buildReport", "{}", "c2")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
            long later = System.currentTimeMillis() + 60_000;   // every event of the session is older than this
            s.evictIdle(later);
            s.evictIdle(later + 60_000);
            // a record queued after any END the sweeps queued: once it is written, so is such an END
            s.onToolCall(new ToolCall("test", "other", "lookup", "{}", "o1"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!Files.readString(log).contains("\"session\":\"other\"") && System.nanoTime() < deadline) Thread.sleep(20);
            assertThat(ended(log, "conv1")).as("ended while buildReport ran; audit log:%n%s", tail(log)).isFalse();
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "conv1", "buildReport", "c2", "report", false));
            assertThat(s.onToolCall(new ToolCall("test", "conv1", "sendMoney", "{\"amount\":5}", "c3")).kind())
                    .as("the balance was read in this session").isEqualTo(ToolDecision.Kind.PROCEED);
            s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "conv1", "sendMoney", "c3", "sent", false));
            s.evictIdle(System.currentTimeMillis() + 3_600_000);
            assertThat(endedSoon(log, "conv1")).as("idle once its calls returned").isTrue();
            // a fresh session: a blocked call does not run, so it leaves nothing in flight
            assertThat(s.onToolCall(new ToolCall("test", "conv2", "sendMoney", "{\"amount\":5}", "d1")).kind()).isEqualTo(ToolDecision.Kind.BLOCK);
            s.evictIdle(System.currentTimeMillis() + 3_600_000);
            assertThat(endedSoon(log, "conv2")).isTrue();
        } finally {
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    private static String tail(Path log) throws Exception {
        List<String> lines = Files.readAllLines(log);
        return String.join("\n", lines.subList(Math.max(0, lines.size() - 5), lines.size()));
    }

    /** Whether the session's END is in the log, waiting (bounded) for the audit writer to write what it has queued. */
    private static boolean endedSoon(Path log, String session) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!ended(log, session) && System.nanoTime() < deadline) Thread.sleep(20);
        return ended(log, session);
    }

    private static boolean ended(Path log, String session) throws Exception {
        List<String> lines = Files.exists(log) ? Files.readAllLines(log) : List.of();
        return lines.stream().anyMatch(l -> l.contains("\"session\":\"" + session + "\"") && l.contains("\"kind\":\"end\""));
    }

}
