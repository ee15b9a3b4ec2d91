package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Consent;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Sessions that the engine ends by itself (the {@code sessions.max} bound, the idle sweep) while
 * events of the same ids keep arriving on other threads: the audit log still verifies, and each
 * session's records (per id, up to its END) are its events numbered 1, 2, ... followed by its END,
 * with no event lost. Before the fix the END of an evicted session could be queued after the first
 * record of its successor (audit verify: "sequence out of order"), and an event that had found the
 * session just before it was evicted was recorded under it after its END.
 */
class EvictionOrderTest {
    private static final int THREADS = 4;
    private static final int IDS = 6;
    private static final int EVENTS_PER_THREAD = 4_000;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    @Test
    void sessionsEvictedByTheBoundKeepTheirRecordsInOrder() throws Exception {
        // two live sessions for six ids: nearly every new session evicts another one
        run("sessions.max=2", null);
    }

    @Test
    void sessionsEndedByTheIdleSweepKeepTheirRecordsInOrder() throws Exception {
        // a sweep with a cutoff in the future ends every live session; the event threads take turns to run one
        // (every 50th event: a sweeper thread of its own got too little of two busy cores to race often)
        run("sessions.max=1000", s -> s.evictIdle(Long.MAX_VALUE));
    }

    private void run(String options, java.util.function.Consumer<ContractSupervisor> sweep) throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=sop-refund,audit.personal-data=clear," + options + ",audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor supervisor = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        AtomicLong sent = new AtomicLong();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            final long seed = 7919L * (t + 1);
            threads.add(new Thread(() -> {
                try {
                    events(supervisor, new SplittableRandom(seed), sent, sweep);
                } catch (Throwable e) {
                    failures.add(e);
                }
            }, "events-" + t));
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.MINUTES.toMillis(2));
            assertThat(t.isAlive()).as("%s finished (a thread still running after 2 minutes is stuck)", t.getName()).isFalse();
        }
        supervisor.close();
        assertThat(audit.close(30, TimeUnit.SECONDS)).as("the audit log drained").isTrue();
        assertThat(failures).as("no event thread failed").isEmpty();

        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.describe()).isTrue();
        List<String> lines = Files.readAllLines(log);
        long ends = lines.stream().filter(l -> l.contains("\"kind\":\"end\"")).count();
        assertThat(ends).as("sessions were ended while the events ran (not only by close())").isGreaterThan(10L * IDS);
        String problem = sessionsInOrder(lines, sent.get());
        assertThat(problem).as("each session's records are its events 1, 2, ... then its END").isNull();
    }

    /**
     * One thread's events: calls, results, consents and messages for ids drawn from a small set, so evicted ids come back at once;
     * {@code sweep} (if any) every 50th event.
     */
    private static void events(ContractSupervisor s, SplittableRandom random, AtomicLong sent,
                               java.util.function.Consumer<ContractSupervisor> sweep) {
        for (int i = 0; i < EVENTS_PER_THREAD; i++) {
            if (sweep != null && i % 50 == 0) sweep.accept(s);
            String id = "s" + random.nextInt(IDS);
            // a session with a call in flight is not idle (8791525): with the sweep, calls return at once, so that
            // sessions become idle and the sweep ends them while events run
            boolean answer = sweep != null;
            switch (random.nextInt(5)) {
                case 0 -> s.onUserMessage(new Message("test", id, "refund order 7 please"));
                case 1 -> call(s, id, "approve_refund", "{\"order\":7,\"amount\":40}", "c" + i, answer, sent);
                case 2 -> s.onToolResult(new ToolResult("test", id, "approve_refund", "c" + i, "approved", false));
                case 3 -> s.onConsent(new Consent(id, "customer-7", "refunds", true));
                default -> call(s, id, "refund", "{\"order\":7,\"amount\":30}", "c" + i, answer, sent);
            }
            sent.incrementAndGet();
        }
    }

    /** A tool call, and with {@code answer} its RETURN right after it (one more event sent). */
    private static void call(ContractSupervisor s, String id, String tool, String args, String callId, boolean answer, AtomicLong sent) {
        s.onToolCall(new ToolCall("test", id, tool, args, callId));
        if (answer) {
            s.onToolResult(new ToolResult("test", id, tool, callId, "done", false));
            sent.incrementAndGet();
        }
    }

    /**
     * Null when, for every session id, the event records between two ENDs of that id are numbered 1, 2, ...
     * in log order, each END's seq follows the last of them, every session ended, and there is one event
     * record per event sent; else the first problem, with its line.
     */
    static String sessionsInOrder(List<String> lines, long eventsSent) throws Exception {
        Map<String, Long> last = new HashMap<>();   // per id: the seq of the live session's last record (0: none yet)
        long events = 0;
        for (int i = 0; i < lines.size(); i++) {
            JsonNode n = JSON.readTree(lines.get(i));
            if (!"event".equals(n.path("rec").asText())) continue;
            String id = n.path("session").asText();
            long seq = n.path("seq").asLong();
            long before = last.getOrDefault(id, 0L);
            boolean end = "end".equals(n.path("kind").asText());
            if (seq != before + 1) {
                return "line " + (i + 1) + ": session '" + id + "' " + (end ? "END" : "event") + " has seq " + seq
                        + " where " + (before + 1) + " follows " + (before == 0 ? "the start of the session" : "seq " + before) + ": " + lines.get(i);
            }
            if (end) {
                last.remove(id);
            } else {
                last.put(id, seq);
                events++;
            }
        }
        if (!last.isEmpty()) return "sessions without an END after close(): " + last;
        if (events != eventsSent) return events + " event records for " + eventsSent + " events sent";
        return null;
    }
}
