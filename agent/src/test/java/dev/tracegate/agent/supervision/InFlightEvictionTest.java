package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
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
 * A session ended while one of its tool calls runs (its CALL let through, its RETURN not yet come) sends the RETURN and
 * the rest of the turn to a fresh session that has forgotten the history: here the balance read before a long
 * buildReport, so the sendMoney after it is refused. The idle sweep already spares such a session (IdleSweepTest); these
 * are the two other ways it ended: the sessions.max bound took it as the least recently used although another session
 * had nothing in flight, and a call that never returns kept its session for ever (now bounded by
 * sessions.in-flight-timeout). An end with calls in flight says so in its END record and on standard error.
 */
class InFlightEvictionTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private AuditWriter audit;
    private ContractSupervisor s;
    private Path log;

    private void start(String options) throws Exception {
        log = dir.resolve("audit.jsonl");
        Path lib = Files.writeString(dir.resolve("it.yaml"), "library: it\ncontracts:\n  - id: it.balance-first\n"
                + "    guarantee: G(call(sendMoney) -> O returned(getBalance))\n");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log + "," + options,
                Map.of(), Map.of(), Set.of());
        audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @AfterEach
    void stop() throws Exception {
        AgentLog.captureForTest(null);
        if (s != null) s.close();
        if (audit != null) audit.close(10, TimeUnit.SECONDS);
    }

    @Test
    void theSessionBoundEndsASessionWithNothingInFlightBeforeOneWhoseCallRuns() throws Exception {
        start("sessions.max=2,sessions.idle-timeout=1h");
        readBalanceThenStartReport("conv1");
        Thread.sleep(20);   // the sessions' last use is kept in milliseconds: conv1 is strictly the least recently used
        // conv2 is used after conv1: conv1 is the least recently used, but its buildReport is still running
        call("conv2", "lookup", "l1");
        s.onToolResult(new ToolResult("test", "conv2", "lookup", "l1", "found", false));
        call("conv3", "lookup", "m1");   // a third conversation needs room
        s.onToolResult(new ToolResult("test", "conv1", "buildReport", "c2", "report", false));
        assertThat(call("conv1", "sendMoney", "c3")).as("the balance read before the report is still in conv1's session")
                .isEqualTo(ToolDecision.Kind.PROCEED);
        List<JsonNode> records = written("c3");
        assertThat(ends(records, "conv2")).as("the session with nothing in flight made the room").hasSize(1);
        assertThat(ends(records, "conv1")).isEmpty();
        assertThat(ends(records, "conv2").get(0).path("message").asText()).as("an end with nothing in flight")
                .isEqualTo("ended to make room under sessions.max (2): the least recently used session with no tool call in flight");
        assertThat(events(records, "conv1")).as("conv1's RETURN and the call after it in its one session")
                .containsExactly("call getBalance 1", "return getBalance 2", "call buildReport 3", "return buildReport 4", "call sendMoney 5");
    }

    /**
     * A RETURN whose CALL the session never saw (the agent attached while that call ran, or a hook saw only its exit)
     * releases no other call's hold: conv1's buildReport still runs, so the bound takes conv2, which has nothing in
     * flight, and not conv1 (the old agent matched RETURNs to CALLs by count: the stray RETURN freed buildReport's hold,
     * conv1 was ended as the least recently used, and the sendMoney after the report was refused in a fresh session).
     */
    @Test
    void aReturnWhoseCallTheSessionNeverSawDoesNotFreeARunningCallsSession() throws Exception {
        start("sessions.max=2,sessions.idle-timeout=1h");
        readBalanceThenStartReport("conv1");
        s.onToolResult(new ToolResult("test", "conv1", "lookup", "before-attach", "found", false));
        Thread.sleep(20);   // the sessions' last use is kept in milliseconds: conv1 is strictly the least recently used
        lookup("conv2", "l1");
        call("conv3", "lookup", "m1");   // a third conversation needs room
        s.onToolResult(new ToolResult("test", "conv1", "buildReport", "c2", "report", false));
        assertThat(call("conv1", "sendMoney", "c3")).as("the balance read before the report is still in conv1's session")
                .isEqualTo(ToolDecision.Kind.PROCEED);
        List<JsonNode> records = written("c3");
        assertThat(ends(records, "conv2")).as("the session with nothing in flight made the room").hasSize(1);
        assertThat(ends(records, "conv1")).isEmpty();
        assertThat(events(records, "conv1")).containsExactly("call getBalance 1", "return getBalance 2", "call buildReport 3",
                "return lookup 4", "return buildReport 5", "call sendMoney 6");
    }

    @Test
    void whenEverySessionHasACallInFlightTheBoundEndsTheLeastRecentlyUsedAndSaysSo() throws Exception {
        start("sessions.max=2,sessions.idle-timeout=1h");
        readBalanceThenStartReport("conv1");
        Thread.sleep(20);   // the sessions' last use is kept in milliseconds: conv1 is strictly the least recently used
        call("conv2", "buildReport", "d1");
        call("conv3", "lookup", "m1");   // no session without a call in flight: conv1, the least recently used, is ended
        s.onToolResult(new ToolResult("test", "conv3", "lookup", "m1", "found", false));   // so conv3 makes the next room
        s.onToolResult(new ToolResult("test", "conv1", "buildReport", "c2", "report", false));
        assertThat(call("conv1", "sendMoney", "c3")).as("a fresh session: the balance was read in the ended one")
                .isEqualTo(ToolDecision.Kind.BLOCK);
        List<JsonNode> records = written("c3");
        assertThat(ends(records, "conv1")).hasSize(1);
        assertThat(ends(records, "conv1").get(0).path("message").asText())
                .startsWith("ended to make room under sessions.max (2) while 1 tool call was in flight, since every other session had one too;"
                        + " a result that still comes opens the conversation's next session, which has forgotten this one's history");
        assertThat(err.toString(StandardCharsets.UTF_8)).containsOnlyOnce("[tracegate] WARN sessions.max (2) reached and every session had"
                + " a tool call in flight: session conv1, the least recently used, was ended while 1 tool call was running");

        // the JVM's exit ends the rest: conv2's buildReport is still running, and its END says so
        s.endSession("*");
        List<JsonNode> after = until(out -> !ends(out, "conv2").isEmpty());
        assertThat(ends(after, "conv2")).hasSize(1);
        assertThat(ends(after, "conv2").get(0).path("message").asText()).isEqualTo("ended at the JVM's exit while 1 tool call was in flight");
    }

    @Test
    void aCallThatNeverReturnsKeepsItsSessionOnlyUntilTheInFlightTimeout() throws Exception {
        start("sessions.idle-timeout=1h");   // sessions.in-flight-timeout: its default, 24h
        readBalanceThenStartReport("conv1");
        long now = System.currentTimeMillis();
        // the sweep's cutoff is now - idle-timeout: these are sweeps 1h + 20h and 1h + 24h after the call
        s.evictIdle(now + TimeUnit.HOURS.toMillis(20));
        lookup("other", "o1");
        assertThat(ends(written("o1"), "conv1")).as("20 h without a RETURN: still in flight").isEmpty();
        s.evictIdle(now + TimeUnit.HOURS.toMillis(24));
        lookup("other", "o2");
        List<JsonNode> records = written("o2");
        assertThat(ends(records, "conv1")).as("the thread of buildReport died: its session is ended at last").hasSize(1);
        assertThat(ends(records, "conv1").get(0).path("message").asText()).startsWith(
                "ended by sessions.in-flight-timeout (24h): no event for that long while 1 tool call was in flight");
        assertThat(err.toString(StandardCharsets.UTF_8)).containsOnlyOnce(
                "[tracegate] WARN session 'conv1' was ended by sessions.in-flight-timeout (24h) while 1 tool call was in flight");
    }

    @Test
    void theInFlightTimeoutIsAKey() throws Exception {
        start("sessions.idle-timeout=1h,sessions.in-flight-timeout=3h");
        readBalanceThenStartReport("conv1");
        long now = System.currentTimeMillis();
        s.evictIdle(now + TimeUnit.HOURS.toMillis(1));   // 2 h after the call
        lookup("other", "o1");
        assertThat(ends(written("o1"), "conv1")).isEmpty();
        s.evictIdle(now + TimeUnit.HOURS.toMillis(3));   // 4 h after the call
        lookup("other", "o2");
        assertThat(ends(written("o2"), "conv1")).hasSize(1);
    }

    /**
     * Each of the four ways a session with nothing in flight ends says which in its END record's message (trial28: the
     * idle timeout's, an eviction's and the JVM exit's ends had none and looked the same, so an auditor could not tell
     * why a conversation's counts started over).
     */
    @Test
    void everyEndSaysHowTheSessionEnded() throws Exception {
        start("sessions.max=2,sessions.idle-timeout=90s");
        lookup("conv1", "a1");
        Thread.sleep(20);   // the sessions' last use is kept in milliseconds: conv1 is strictly the least recently used
        lookup("conv2", "b1");
        lookup("conv3", "c1");   // the bound ends conv1
        s.evictIdle(System.currentTimeMillis() + TimeUnit.HOURS.toMillis(1));   // a sweep that finds conv2 and conv3 idle
        lookup("conv4", "d1");
        s.endSession("conv4");   // a program's own end of one session
        lookup("conv5", "e1");
        s.endSession("*");   // the agent's shutdown hook ends all the rest
        List<JsonNode> records = until(out -> !ends(out, "conv5").isEmpty());
        assertThat(ends(records, "conv1").get(0).path("message").asText())
                .isEqualTo("ended to make room under sessions.max (2): the least recently used session with no tool call in flight");
        assertThat(ends(records, "conv2").get(0).path("message").asText())
                .isEqualTo("ended by sessions.idle-timeout (1m30s): no event for that long");
        assertThat(ends(records, "conv3").get(0).path("message").asText()).isEqualTo("ended by sessions.idle-timeout (1m30s): no event for that long");
        assertThat(ends(records, "conv4").get(0).path("message").asText()).isEqualTo("ended explicitly");
        assertThat(ends(records, "conv5").get(0).path("message").asText()).isEqualTo("ended at the JVM's exit");

        // the log with these messages verifies and replays as one without them
        s.close();
        s = null;
        audit.close(10, TimeUnit.SECONDS);
        audit = null;
        dev.tracegate.agent.cli.CliRun verify = dev.tracegate.agent.cli.CliRun.of("audit", "verify", log.toString());
        assertThat(verify.code()).as("audit verify: %s%s", verify.out(), verify.err()).isZero();
        dev.tracegate.agent.cli.CliRun replay = dev.tracegate.agent.cli.CliRun.of("replay", dir.resolve("it.yaml").toString(), log.toString(), "--no-progress");
        assertThat(replay.code()).as("replay: %s%s", replay.out(), replay.err()).isZero();
        assertThat(replay.out()).contains("conv5");
    }

    /** conv1 reads the balance, then starts a long buildReport that has not returned. */
    private void readBalanceThenStartReport(String session) {
        call(session, "getBalance", "c1");
        s.onToolResult(new ToolResult("test", session, "getBalance", "c1", "12 EUR", false));
        assertThat(call(session, "buildReport", "c2")).isEqualTo(ToolDecision.Kind.PROCEED);
    }

    /** A lookup that returns at once: its session has nothing in flight. */
    private void lookup(String session, String id) {
        call(session, "lookup", id);
        s.onToolResult(new ToolResult("test", session, "lookup", id, "found", false));
    }

    private ToolDecision.Kind call(String session, String tool, String id) {
        return s.onToolCall(new ToolCall("test", session, tool, "{}", id)).kind();
    }

    /**
     * The event records written so far, once the record of the call {@code callId} is there: anything queued before it
     * (an END of an eviction) is written by then. Bounded wait for the audit writer.
     */
    private List<JsonNode> written(String callId) throws Exception {
        return until(out -> out.stream().anyMatch(n -> n.path("id").asText().equals(callId)));
    }

    private List<JsonNode> until(java.util.function.Predicate<List<JsonNode>> ready) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (true) {
            List<JsonNode> out = new ArrayList<>();
            for (String l : Files.exists(log) ? Files.readAllLines(log) : List.<String>of()) {
                JsonNode n = JSON.readTree(l);
                if ("event".equals(n.path("rec").asText())) out.add(n);
            }
            if (ready.test(out) || System.nanoTime() > deadline) return out;
            Thread.sleep(20);
        }
    }

    private static List<JsonNode> ends(List<JsonNode> records, String session) {
        return records.stream().filter(n -> n.path("session").asText().equals(session) && n.path("kind").asText().equals("end")).toList();
    }

    /** The session's events up to its first END: kind, tool and seq. */
    private static List<String> events(List<JsonNode> records, String session) {
        List<String> out = new ArrayList<>();
        for (JsonNode n : records) {
            if (!n.path("session").asText().equals(session)) continue;
            if (n.path("kind").asText().equals("end")) break;
            out.add(n.path("kind").asText() + " " + n.path("tool").asText() + " " + n.path("seq").asLong());
        }
        return out;
    }
}
