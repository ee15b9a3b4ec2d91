package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.audit.AuditWriter.Admission;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What the audit log lacks is said where an operator looks (trial16): records a full queue turned away under
 * {@code fail: closed} carry their own {@code dropped} reason, and a log closed while it still cannot be written
 * says on stderr how many records of the run are not in it.
 */
@org.junit.jupiter.api.Timeout(120)   // a hang fails the test instead of the build
class AuditShortfallTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    private static AuditRecord rec(long seq) {
        return AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("t").args(Map.of("k", seq));
    }

    /** The dropped records' counts by reason, in the order of the log. */
    private static Map<String, Long> droppedByReason(Path p) {
        Map<String, Long> m = new LinkedHashMap<>();
        for (JsonNode n : LogFiles.ofType(p, "dropped")) m.merge(n.path("reason").asText(), n.path("count").asLong(), Long::sum);
        return m;
    }


    private Path fillTheQueue(FailPolicy policy, Map<Admission, Integer> counts) throws Exception {
        Path p = dir.resolve("full-" + policy + ".jsonl");
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap),
                AuditWriter.Settings.defaults().queueSize(2).maxBlock(1, TimeUnit.MILLISECONDS).fail(policy));
        gate.armed = true;
        assertThat(w.append(rec(0))).isEqualTo(Admission.ACCEPTED);
        gate.entered.await();                       // the writer is stuck writing record 0; the queue is empty
        for (int i = 1; i < 10; i++) counts.merge(w.append(rec(i)), 1, Integer::sum);
        gate.armed = false;
        gate.open.countDown();
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        // a call's record: refused under closed (AuditRefused), dropped under open (AuditDropped); never both
        assertThat(w.dropped() + w.refused()).isEqualTo(7);
        assertThat(policy == FailPolicy.CLOSED ? w.refused() : w.dropped()).isEqualTo(7);
        return p;
    }

    @Test
    void recordsAFullQueueTurnedAwayUnderFailClosedSayTheirEventsWereRefused() throws Exception {
        Map<Admission, Integer> counts = new EnumMap<>(Admission.class);
        Path p = fillTheQueue(FailPolicy.CLOSED, counts);
        assertThat(counts).containsEntry(Admission.ACCEPTED, 2).containsEntry(Admission.REFUSED, 7);
        // trial16 queue-full-refusals-counted-as-pass: the log said "queue-full", which also means calls that ran unrecorded
        assertThat(droppedByReason(p)).containsExactly(Map.entry("queue-full (calls refused)", 7L));
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.describe()).contains("but 7 events were not written").contains("queue-full (calls refused): records of tool calls"
                + " refused under fail: closed, as the audit queue stayed full for longer than audit.max-block");
    }

    @Test
    void recordsAFullQueueTurnedAwayUnderFailOpenAreQueueFullAsBefore() throws Exception {
        Map<Admission, Integer> counts = new EnumMap<>(Admission.class);
        Path p = fillTheQueue(FailPolicy.OPEN, counts);
        assertThat(counts).containsEntry(Admission.ACCEPTED, 2).containsEntry(Admission.DROPPED, 7);
        assertThat(droppedByReason(p)).containsExactly(Map.entry("queue-full", 7L));
        assertThat(AuditVerifier.verify(p).describe()).contains("queue-full: the audit queue was full").doesNotContain("events refused");
    }


    /**
     * trial20 01: under fail: closed every record that found no room was noted "queue-full (events refused) ... their tool
     * calls did not run", user messages, answers and session ends too, which went on. Only tool calls are refused.
     */
    @Test
    void underFailClosedOnlyToolCallsThatFoundNoRoomAreRefusedTheOtherRecordsWentOn() throws Exception {
        Path p = dir.resolve("mixed-full.jsonl");
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap),
                AuditWriter.Settings.defaults().queueSize(2).maxBlock(1, TimeUnit.MILLISECONDS).fail(FailPolicy.CLOSED));
        gate.armed = true;
        assertThat(w.append(rec(0))).isEqualTo(Admission.ACCEPTED);
        gate.entered.await();
        assertThat(w.append(rec(1))).isEqualTo(Admission.ACCEPTED);
        assertThat(w.append(rec(2))).isEqualTo(Admission.ACCEPTED);
        long seq = 3;
        for (String kind : new String[] {"USER", "ASSISTANT", "RETURN", "END"}) {
            assertThat(w.append(AuditRecord.of("s", seq++, kind, kind.equals("END") ? Decision.END : Decision.PASS)))
                    .as(kind + " goes on unrecorded").isEqualTo(Admission.DROPPED);
        }
        assertThat(w.append(rec(seq++))).as("a tool call is refused").isEqualTo(Admission.REFUSED);
        assertThat(w.append(rec(seq++))).isEqualTo(Admission.REFUSED);
        gate.armed = false;
        gate.open.countDown();
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        assertThat(w.dropped()).isEqualTo(4);
        assertThat(w.refused()).isEqualTo(2);
        assertThat(droppedByReason(p)).containsOnly(Map.entry("queue-full", 4L), Map.entry("queue-full (calls refused)", 2L));
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.describe()).contains("but 6 events were not written").contains("4 queue-full: the audit queue was full")
                .contains("2 queue-full (calls refused): records of tool calls refused under fail: closed");
    }

    /**
     * trial44 06: a log whose directory could never be made does not exist, so the exit line does not say its last line
     * may be cut off; and the lines that tell the operator to fix the path's permissions name the user the JVM runs as
     * (in a container whose runAsUser is not the image's user, the one fact needed).
     */
    @Test
    void aLogThatWasNeverCreatedIsSaidSoAndThePermissionAdviceNamesTheUser() throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocker2"), "not a directory");
        Path p = blocker.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().fail(FailPolicy.OPEN).retry(1, 20, TimeUnit.MILLISECONDS));
        assertThat(w.isHealthy()).isFalse();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        } finally {
            AgentLog.captureForTest(null);
        }
        String stderr = err.toString(StandardCharsets.UTF_8);
        assertThat(stderr).contains("could still not be written at exit")
                .contains("the file does not exist, so this run wrote nothing to it")
                .doesNotContain("its last line may be cut off")
                .contains("fix the path's permissions (the JVM runs as user " + System.getProperty("user.name") + ")");
    }

    /**
     * trial20 03: during an outage under fail: closed the results, messages, answers and ends that went on were noted
     * "io-error (events refused) ... its tool calls did not run" and counted in AuditRefused; they are lost (io-error).
     */
    @Test
    void underFailClosedAnOutageNotesRefusedCallsApartFromTheRecordsThatWentOn() throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocker"), "not a directory");
        Path p = blocker.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().fail(FailPolicy.CLOSED).retry(1, 20, TimeUnit.MILLISECONDS));
        assertThat(w.isHealthy()).isFalse();
        long seq = 0;
        for (String kind : new String[] {"USER", "ASSISTANT", "END"}) {
            assertThat(w.append(AuditRecord.of("s", seq++, kind, kind.equals("END") ? Decision.END : Decision.PASS)))
                    .as(kind + " goes on unrecorded").isEqualTo(Admission.DROPPED);
        }
        assertThat(w.append(rec(seq++))).isEqualTo(Admission.REFUSED);
        assertThat(w.append(AuditRecord.of("s", seq++, "CALL", Decision.BLOCK).tool("t"))).isEqualTo(Admission.REFUSED);
        assertThat(w.lost()).isEqualTo(3);
        assertThat(w.refused()).isEqualTo(2);
        Files.delete(blocker);   // the operator fixes the path: the writer's retry creates the directory
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops a hung test
        while (!w.isHealthy() && System.nanoTime() < giveUp) Thread.sleep(1);
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        assertThat(droppedByReason(p)).containsOnly(Map.entry("io-error", 3L), Map.entry("io-error (calls refused)", 2L));
        assertThat(AuditVerifier.verify(p).describe()).contains("3 io-error: lost while the log could not be written, the events went on")
                .contains("2 io-error (calls refused): records of tool calls that did not run");
    }

    private void exitDuringAnOutage(FailPolicy policy) throws Exception {
        Path p = dir.resolve("exit-" + policy + ".jsonl");
        SmallDisk disk = new SmallDisk(4000);
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, disk::wrap),
                AuditWriter.Settings.defaults().fail(policy).retry(1, 20, TimeUnit.MILLISECONDS));
        Map<Admission, Integer> counts = new EnumMap<>(Admission.class);
        long seq = 0;
        while (w.isHealthy()) {
            counts.merge(w.append(rec(seq++)), 1, Integer::sum);
            if (seq % 8 == 0) Thread.sleep(1);   // let the writer flush small batches
        }
        for (int i = 0; i < 20; i++) {   // the disk stays full: tool calls, and user messages that go on unrecorded
            counts.merge(w.append(i % 2 == 0 ? rec(seq++) : AuditRecord.of("s", seq++, "USER", Decision.PASS).text("hi")), 1, Integer::sum);
        }
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        assertThat(w.close(30, TimeUnit.SECONDS)).isTrue();
        String stderr = err.toString(StandardCharsets.UTF_8);

        // what is not in the log: accepted and not written, plus what the policy turned away during the outage
        long missing = w.accepted() - w.written() + counts.getOrDefault(Admission.DROPPED, 0) + counts.getOrDefault(Admission.REFUSED, 0);
        Matcher m = Pattern.compile("ERROR the audit log (\\S+) could still not be written at exit \\(the outage said above\\): (\\d+)"
                + " records of this run are not in it, and no dropped record in it counts them: ").matcher(stderr);
        assertThat(m.find()).as(stderr).isTrue();
        assertThat(m.group(1)).isEqualTo(p.toString());
        assertThat(Long.parseLong(m.group(2))).as(stderr).isEqualTo(missing).isGreaterThanOrEqualTo(20);
        assertThat(stderr).contains(policy == FailPolicy.CLOSED ? " refused (fail: closed: tool calls that did not run)"
                        : " lost (events that went on unrecorded, fail: open)")
                .contains("here that is the outage, not a crash");
        // trial20 03: under fail: closed the exit line said "lost (events that went on unrecorded, fail: open)"
        if (policy == FailPolicy.CLOSED) {
            assertThat(stderr).doesNotContain("fail: open").contains(" lost (events that went on unrecorded, fail: closed: ");
        }
        assertThat(stderr.lines().filter(l -> l.contains("could still not be written at exit")).count()).isEqualTo(1);

        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).isNotEqualTo(AuditVerification.Status.BAD);
        if (v.status() == AuditVerification.Status.TRUNCATED) {
            assertThat(v.describe()).contains("a disk that filled up mid-write and was still full at the exit");
        }
    }

    @Test
    void aLogClosedWhileTheDiskIsStillFullSaysHowManyRecordsItLacksUnderFailOpen() throws Exception {
        exitDuringAnOutage(FailPolicy.OPEN);
    }

    @Test
    void aLogClosedWhileTheDiskIsStillFullSaysHowManyRecordsItLacksUnderFailClosed() throws Exception {
        exitDuringAnOutage(FailPolicy.CLOSED);
    }
}
