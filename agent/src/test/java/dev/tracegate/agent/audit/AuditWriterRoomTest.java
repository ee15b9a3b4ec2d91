package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter.Admission;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * trial22 09, 01, 03: the wait for room of {@code audit.on-full: block}. A producer that finds a small queue full wakes
 * the writer (which may be napping until its window ends) and parks until the writer, having taken a record, wakes it;
 * the time it waited is on the record for the caller's latency; and every record handed to {@code append} is either
 * written or counted exactly once in the counter CONFIG.md names for it.
 */
class AuditWriterRoomTest {
    @TempDir Path dir;

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    private static AuditRecord call(long seq) {
        return AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("t").args(Map.of("k", seq));
    }

    private static AuditRecord result(long seq) {
        return AuditRecord.of("s", seq, "RETURN", Decision.PASS).tool("t");
    }

    /**
     * A 2-slot queue on a healthy file is slower, never lossy: every record of a back-to-back producer is accepted and
     * written, and the producer's waits went through the hand-off (it woke the writer) rather than waiting out the
     * writer's nap. Before, the producer never woke the writer (the counter did not exist) and each wait lasted until
     * the writer's next timed wake-up, about 1 ms for a 2-slot queue.
     */
    @Test
    @Timeout(120)   // only stops a hung test
    void aSmallQueueOnAHealthyFileAcceptsAndWritesEveryRecordAndTheWaitsWakeTheWriter() throws Exception {
        Path p = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(p, AuditWriter.Settings.defaults().queueSize(2).maxBlock(1, TimeUnit.HOURS));
        int n = 4_000;
        for (int i = 0; i < n; i++) {
            assertThat(w.append((i & 1) == 0 ? call(i) : result(i))).isEqualTo(Admission.ACCEPTED);
        }
        assertThat(w.writerWokenForRoom()).as("producers that found the queue full woke the writer").isPositive();
        assertThat(w.close(60, TimeUnit.SECONDS)).isTrue();
        assertThat(w.written()).isEqualTo(n);
        assertThat(w.dropped() + w.refused() + w.lost()).isZero();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.ok()).isTrue();
        assertThat(v.dropped()).isZero();
    }

    /**
     * With a writer stuck in a write and a short max-block (under the 2 s stall time, trial22 02 and 03): a record that
     * found no room carries its wait (at least max-block, by the agent's own rule, not a clock measured here), a record
     * taken at once carries none; each turned-away record counts once, a tool call's in AuditRefused under fail: closed and
     * any other in AuditDropped; and once the writer moves, written + dropped + refused equals what was handed over.
     */
    @Test
    @Timeout(120)   // only stops a hung test
    void aWaitForRoomIsOnTheRecordAndEachTurnedAwayRecordCountsOnceInTheCounterItsKindGoesTo() throws Exception {
        AgentLog.captureForTest(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Path p = dir.resolve("audit.jsonl");
        WriteGate gate = new WriteGate();
        long maxBlock = TimeUnit.MILLISECONDS.toNanos(50);
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap), AuditWriter.Settings.defaults().queueSize(2)
                .fail(FailPolicy.CLOSED).maxBlock(maxBlock, TimeUnit.NANOSECONDS));
        gate.armed = true;
        AuditRecord first = call(0);
        assertThat(w.append(first)).isEqualTo(Admission.ACCEPTED);
        assertThat(first.roomWaitNanos()).as("taken at once: no wait").isZero();
        gate.entered.await();                        // the writer's write does not return; the queue fills behind it
        long handed = 1;
        long refusedSeen = 0;
        long droppedSeen = 0;
        long waited = 0;
        for (int i = 1; i <= 12; i++) {              // 12 records, at most 12 x 50 ms: under the 2 s stall time
            AuditRecord r = (i & 1) == 0 ? result(i) : call(i);
            Admission a = w.append(r);
            handed++;
            if (a == Admission.REFUSED) refusedSeen++;
            if (a == Admission.DROPPED) droppedSeen++;
            if (a != Admission.ACCEPTED) {
                waited++;
                assertThat(r.roomWaitNanos()).as("a record turned away after its wait carries it").isGreaterThan(maxBlock);
                assertThat(a).isEqualTo(r.kind().equals("CALL") ? Admission.REFUSED : Admission.DROPPED);
            }
        }
        assertThat(waited).as("records turned away after a wait").isPositive();
        assertThat(w.refused()).as("AuditRefused: the tool calls turned away").isEqualTo(refusedSeen).isPositive();
        assertThat(w.dropped()).as("AuditDropped: the other records turned away").isEqualTo(droppedSeen).isPositive();
        gate.armed = false;
        gate.open.countDown();
        assertThat(w.close(60, TimeUnit.SECONDS)).isTrue();
        assertThat(w.lost()).isZero();
        assertThat(w.written() + w.dropped() + w.refused()).as("each record handed over written or counted once").isEqualTo(handed);
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.ok()).isTrue();
        assertThat(v.dropped()).isEqualTo(w.dropped() + w.refused());
    }
}
