package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.agent.audit.AuditWriter.Admission;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
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
        assertThat(w.dropped()).as("a wait past max-block counts in AuditDropped whatever fail says").isEqualTo(7);
        return p;
    }

    @Test
    void recordsAFullQueueTurnedAwayUnderFailClosedSayTheirEventsWereRefused() throws Exception {
        Map<Admission, Integer> counts = new EnumMap<>(Admission.class);
        Path p = fillTheQueue(FailPolicy.CLOSED, counts);
        assertThat(counts).containsEntry(Admission.ACCEPTED, 2).containsEntry(Admission.REFUSED, 7);
        // trial16 queue-full-refusals-counted-as-pass: the log said "queue-full", which also means calls that ran unrecorded
        assertThat(droppedByReason(p)).containsExactly(Map.entry("queue-full (events refused)", 7L));
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
        assertThat(v.describe()).contains("but 7 events were not written").contains("queue-full (events refused): the audit queue stayed"
                + " full for longer than audit.max-block and fail: closed refused the events, so their tool calls did not run");
    }

    @Test
    void recordsAFullQueueTurnedAwayUnderFailOpenAreQueueFullAsBefore() throws Exception {
        Map<Admission, Integer> counts = new EnumMap<>(Admission.class);
        Path p = fillTheQueue(FailPolicy.OPEN, counts);
        assertThat(counts).containsEntry(Admission.ACCEPTED, 2).containsEntry(Admission.DROPPED, 7);
        assertThat(droppedByReason(p)).containsExactly(Map.entry("queue-full", 7L));
        assertThat(AuditVerifier.verify(p).describe()).contains("queue-full: the audit queue was full").doesNotContain("events refused");
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
        for (int i = 0; i < 20; i++) counts.merge(w.append(rec(seq++)), 1, Integer::sum);   // the disk stays full
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
        assertThat(stderr).contains(policy == FailPolicy.CLOSED ? " refused (fail: closed" : " lost (events that went on unrecorded, fail: open)")
                .contains("here that is the outage, not a crash");
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
