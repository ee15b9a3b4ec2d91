package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditWriter.Admission;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shutdown wait for the audit log (trial14 unread-audit-pipe-stalls-exit): a named pipe nobody reads held the JVM's
 * exit for the writer's 30 s close timeout, in silence, and the records it held were lost without a count.
 */
@org.junit.jupiter.api.Timeout(120)   // a hang fails the test instead of the build
class AuditDrainTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    private String stderr() {
        return err.toString(StandardCharsets.UTF_8);
    }

    private void capture() {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private static AuditRecord rec(long seq) {
        return AuditRecord.of("s", seq, "CALL", Decision.PASS).tool("search").args(Map.of("q", "query number " + seq + " ".repeat(200)));
    }

    /**
     * The held count leaves out what the writer already gave up: under fail: closed a blocked call's record that a failed
     * write lost counts as a refused call (trial20 03), not as lost, and must not be counted again as held at shutdown.
     */
    @Test
    void recordsAFailedWriteLostBeforeTheShutdownAreNotCountedAsHeld() throws Exception {
        capture();
        Path p = dir.resolve("fail-then-stuck.jsonl");
        java.util.concurrent.atomic.AtomicBoolean failNext = new java.util.concurrent.atomic.AtomicBoolean();
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, out -> gate.wrap(new java.io.FilterOutputStream(out) {
                    @Override public void write(byte[] b, int off, int len) throws java.io.IOException {
                        if (failNext.getAndSet(false)) throw new java.io.IOException("No space left on device");
                        out.write(b, off, len);
                    }
                })),
                AuditWriter.Settings.defaults().fail(dev.tracegate.agent.config.FailPolicy.CLOSED).retry(1, 5, TimeUnit.MILLISECONDS));
        failNext.set(true);
        for (int i = 0; i < 3; i++) {
            assertThat(w.append(AuditRecord.of("s", i, "CALL", Decision.BLOCK).tool("pay"))).isEqualTo(Admission.ACCEPTED);
        }
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops a hung test
        // the write fails, the reopen gives the batch's lines back (counted before the writer turns healthy again)
        while ((w.refused() < 3 || !w.isHealthy()) && System.nanoTime() < giveUp) Thread.sleep(1);
        assertThat(w.refused()).as("the failed write's blocked calls").isEqualTo(3);
        gate.armed = true;   // from now on the writer's write does not return
        assertThat(w.append(rec(3))).isEqualTo(Admission.ACCEPTED);
        gate.entered.await();

        assertThat(AuditDrain.close(w, 300, 30_000, 100_000)).isFalse();
        assertThat(stderr()).contains(": 1 record it accepted is lost, not in the log");
        gate.open.countDown();
    }

    @Test
    void aPipeNobodyReadsEndsTheWaitAndTheLostRecordsAreCounted() throws Exception {
        Path fifo = dir.resolve("pipe");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).start();
        Assumptions.assumeTrue(mk.waitFor() == 0, "mkfifo is not available");
        capture();
        AuditWriter w = AuditWriter.start(new FileAuditSink(fifo),
                AuditWriter.Settings.defaults().queueSize(64).maxBlock(5, TimeUnit.MILLISECONDS));
        long accepted = 0;
        for (int i = 0; i < 600; i++) if (w.append(rec(i)) == Admission.ACCEPTED) accepted++;
        // the pipe's buffer (64 KiB) holds a few hundred of these lines; the writer is stuck writing the next batch

        boolean drained = AuditDrain.close(w, 300, 30_000, 100);

        assertThat(drained).isFalse();
        long lost = accepted - w.written();
        assertThat(lost).isPositive();
        assertThat(stderr())
                .contains("[tracegate] waiting for the audit log " + fifo + " to take the ")
                .contains("[tracegate] ERROR gave up waiting for the audit log " + fifo + " at shutdown after ")
                .contains("as it took no record for ")
                .contains(": " + lost + " records it accepted are lost, not in the log");
    }

    /**
     * A log that is still writing when the longest wait runs out is slow, not stuck: the message says how much it took and
     * how long the rest would have needed, and blames no pipe nobody reads or dead disk (trial47's busy writer).
     */
    @Test
    void aSlowLogThatIsStillWritingAtTheLongestWaitIsNotBlamedOnAPipe() throws Exception {
        Path p = dir.resolve("slow-but-moving.jsonl");
        java.util.concurrent.atomic.AtomicBoolean slow = new java.util.concurrent.atomic.AtomicBoolean();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, out -> new java.io.FilterOutputStream(out) {
                    @Override public void write(byte[] b, int off, int len) throws java.io.IOException {
                        if (slow.get()) {
                            try {
                                Thread.sleep(40);   // every write returns, each late: a slow disk
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        }
                        out.write(b, off, len);
                    }
                }), AuditWriter.Settings.defaults());
        slow.set(true);
        capture();
        int n = 20_000;   // about 6 MB of lines: some 25 writes of the writer's 256 KiB batch, about 1 s at 40 ms each
        for (int i = 0; i < n; i++) assertThat(w.append(rec(i))).isEqualTo(Admission.ACCEPTED);

        // the wait gives up after 300 ms (the longest wait here), long before 60 s without a record
        assertThat(AuditDrain.close(w, 60_000, 300, 100_000)).isFalse();

        assertThat(stderr()).contains("[tracegate] ERROR gave up waiting for the audit log " + p + " at shutdown after ")
                .contains(", the longest shutdown wait, while it was still writing (")
                .contains("records it accepted are lost, not in the log")
                .contains("At that rate they needed about ")
                .doesNotContain("named pipe").doesNotContain("Have the pipe read");
        slow.set(false);
        w.close();
    }

    /** The longest wait running out on a log that took nothing in it is the stuck case, said as such. */
    @Test
    void theLongestWaitOnALogThatTookNothingBlamesThePipeOrTheDisk() throws Exception {
        capture();
        Path p = dir.resolve("stuck.jsonl");
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap), AuditWriter.Settings.defaults());
        gate.armed = true;
        assertThat(w.append(rec(0))).isEqualTo(Admission.ACCEPTED);
        gate.entered.await();

        assertThat(AuditDrain.close(w, 60_000, 300, 100_000)).isFalse();

        assertThat(stderr()).contains(", the longest shutdown wait, in which it took no record (a named pipe nobody reads")
                .contains(": 1 record it accepted is lost, not in the log").contains("Have the pipe read");
        gate.open.countDown();
    }

    @Test
    void aLogThatKeepsTakingRecordsIsWaitedForAndNothingIsLost() throws Exception {
        Path p = dir.resolve("slow.jsonl");
        WriteGate gate = new WriteGate();   // a disk that does not answer until the gate opens
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap), AuditWriter.Settings.defaults());
        gate.armed = true;   // after the header, which start() writes
        capture();
        for (int i = 0; i < 50; i++) assertThat(w.append(rec(i))).isEqualTo(Admission.ACCEPTED);
        Thread opener = new Thread(() -> {
            // the disk answers once the wait has been announced
            while (!stderr().contains("waiting for the audit log")) Thread.onSpinWait();
            gate.open.countDown();
        });
        opener.setDaemon(true);
        opener.start();

        // the wait is announced after 100 ms and not given up: the gate opens then, well before 60 s without a record
        assertThat(AuditDrain.close(w, 60_000, 120_000, 100)).isTrue();
        opener.join();
        assertThat(w.written()).isEqualTo(50);
        assertThat(AuditVerifier.verify(p).records()).isEqualTo(50);
        assertThat(stderr()).contains("waiting for the audit log " + p + " to take the 50 records it still holds")
                .contains("the audit log " + p + " took the records it held after ")
                .doesNotContain("ERROR");
    }

    @Test
    @org.junit.jupiter.api.Timeout(20)   // one wait of 2 s each would take 40 s: the bound fails the old behaviour
    void atShutdownTheProducersWaitForRoomOnceInAllNotOnceEach() throws Exception {
        Path p = dir.resolve("stuck.jsonl");
        WriteGate gate = new WriteGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap),
                AuditWriter.Settings.defaults().queueSize(4).maxBlock(2, TimeUnit.SECONDS));
        gate.armed = true;
        int accepted = 0;
        while (gate.entered.getCount() > 0) {   // until the writer is stuck writing at the gate
            assertThat(w.append(rec(accepted))).isEqualTo(Admission.ACCEPTED);
            accepted++;
            Thread.sleep(1);
        }
        gate.entered.await();
        while (w.queueDepth() < w.queueCapacity()) {   // then the queue fills
            assertThat(w.append(rec(accepted))).isEqualTo(Admission.ACCEPTED);
            accepted++;
        }
        w.shutdownBegins();
        // the ends of twenty open sessions: each finds the queue full; together they wait one audit.max-block
        for (int i = 0; i < 20; i++) assertThat(w.append(rec(1_000 + i))).isEqualTo(Admission.REFUSED);
        gate.open.countDown();
        assertThat(AuditDrain.close(w, 60_000, 120_000, 60_000)).isTrue();
        assertThat(w.written()).isEqualTo(accepted);
    }
}
