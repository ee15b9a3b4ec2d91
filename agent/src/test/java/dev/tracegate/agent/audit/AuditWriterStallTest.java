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
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * trial20 04: a writer stuck in a write that does not return (a named pipe whose reader hangs, a hung NFS mount) was never
 * reported: no ERROR, AuditHealthy true, and every event waited audit.max-block for room. It is now an outage of its own:
 * said once, unhealthy while it lasts, the failure policy at once, and said again when the writer moves.
 */
class AuditWriterStallTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    private static AuditRecord call(long seq) {
        return AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("t").args(Map.of("k", seq));
    }

    /** Polls until the condition holds; the bound only stops a hung test, nothing is asserted about time. */
    private static void await(BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) throw new AssertionError("condition not reached");
            Thread.sleep(1);
        }
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void aStuckWriterIsAnOutage(FailPolicy fail) throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path p = dir.resolve("audit.jsonl");
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap),
                AuditWriter.Settings.defaults().queueSize(2).fail(fail).maxBlock(10, TimeUnit.MILLISECONDS));
        gate.armed = true;
        assertThat(w.append(call(0))).isEqualTo(Admission.ACCEPTED);
        gate.entered.await();                        // the writer's write does not return; the queue fills behind it
        long seq = 1;
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops the test on a writer never found stuck
        while (w.isHealthy() && System.nanoTime() < giveUp) {
            w.append(call(seq++));                   // each waits max-block for room until the writer is found stuck
        }
        assertThat(w.isHealthy()).as("a writer stuck in a write is reported unhealthy").isFalse();
        assertThat(w.stalls()).isEqualTo(1);
        assertThat(w.isStalled()).isTrue();
        assertThat(stderr()).contains("ERROR the audit log " + p).contains("has taken no record for")
                .contains("the writer is stuck in a write that does not return")
                .contains(fail == FailPolicy.CLOSED ? "tool calls are refused (fail: closed)" : "events go on unrecorded (fail: open)");
        assertThat(w.lastError()).contains("stuck");
        // the failure policy at once: a tool call's record is turned away (refused under closed, dropped under open)
        assertThat(w.append(call(seq++))).isEqualTo(fail == FailPolicy.CLOSED ? Admission.REFUSED : Admission.DROPPED);
        assertThat(stderr().split("has taken no record", -1)).as("said once").hasSize(2);

        gate.armed = false;
        gate.open.countDown();                       // the write returns: the writer moves again
        await(w::isHealthy);
        assertThat(w.isStalled()).isFalse();
        assertThat(stderr()).contains("[tracegate] the audit log " + p + " takes records again after");
        assertThat(w.append(call(seq++))).isEqualTo(Admission.ACCEPTED);
        w.close();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.ok()).isTrue();
        // what found no room: the calls' records refused under closed, dropped under open
        assertThat(v.dropped()).as("the log counts what found no room").isEqualTo(w.dropped() + w.refused()).isPositive();
        assertThat(fail == FailPolicy.CLOSED ? w.dropped() : w.refused()).isZero();
    }

    @Test
    void aWriterStuckInAWriteIsReportedOnceAndCallsAreRefusedAtOnceUnderFailClosed() throws Exception {
        aStuckWriterIsAnOutage(FailPolicy.CLOSED);
    }

    @Test
    void aWriterStuckInAWriteIsReportedOnceAndEventsGoOnAtOnceUnderFailOpen() throws Exception {
        aStuckWriterIsAnOutage(FailPolicy.OPEN);
    }
}
