package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentLog;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Follow-up of trial20 04 (49ceec0): a disk that is slow but not stuck, each write returning only after the stall time,
 * stalled once per slow write, and each stall gave an ERROR ("stuck") and an INFO ("takes records again"): a pair of
 * lines per write, without bound. Now the stall ERROR is said at most once a minute and the INFO only after a said
 * ERROR, every stall still counts in AuditStalls and AuditHealthy still follows each one, and a stall not said at its
 * start is said once the minute has passed if it still lasts.
 */
class AuditWriterSlowDiskTest {
    @TempDir Path dir;
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    /** A disk whose writes, once armed, each wait for a permit: slow (the test holds them past the stall time) but they return. */
    static final class SlowGate {
        final CountDownLatch entered = new CountDownLatch(1);
        final Semaphore writes = new Semaphore(0);
        volatile boolean armed;

        OutputStream wrap(OutputStream out) {
            return new FilterOutputStream(out) {
                @Override public void write(byte[] b, int off, int len) throws IOException {
                    if (armed) {
                        entered.countDown();
                        writes.acquireUninterruptibly();
                    }
                    out.write(b, off, len);
                }
            };
        }
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

    private long seq;

    /** Appends until the writer is found stuck (each append waits max-block for room until then). */
    private void appendUntilStalled(AuditWriter w) {
        long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);   // only stops the test on a writer never found stuck
        while (w.isHealthy() && System.nanoTime() < giveUp) w.append(call(seq++));
        assertThat(w.isStalled()).as("the writer is found stuck").isTrue();
    }

    private int count(String text) {
        return err.toString(StandardCharsets.UTF_8).split(java.util.regex.Pattern.quote(text), -1).length - 1;
    }

    @Test
    @Timeout(value = 120, unit = TimeUnit.SECONDS)   // only to stop a hung test
    void aSlowDiskGivesOneErrorAndOneInfoAMinuteWhileEveryStallIsCountedAndALastingOneIsSaid() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Path p = dir.resolve("audit.jsonl");
        SlowGate gate = new SlowGate();
        AuditWriter w = AuditWriter.start(new FileAuditSink(p, gate::wrap),
                AuditWriter.Settings.defaults().queueSize(2).fail(FailPolicy.CLOSED).maxBlock(10, TimeUnit.MILLISECONDS));
        gate.armed = true;
        w.append(call(seq++));
        gate.entered.await();

        // three slow writes, each held until the writer is found stuck, then let through: three stalls
        for (int i = 0; i < 3; i++) {
            appendUntilStalled(w);
            assertThat(w.isHealthy()).isFalse();
            gate.writes.release();                   // this write returns; the next one is slow again
            await(() -> !w.isStalled());
            assertThat(w.isHealthy()).as("healthy again after stall %s", i + 1).isTrue();
        }
        assertThat(w.stalls()).as("every stall counts").isEqualTo(3);
        assertThat(count("has taken no record for")).as("one ERROR, not one per slow write:\n%s", err).isEqualTo(1);
        assertThat(count("takes records again after")).as("one INFO, after the ERROR that was said").isEqualTo(1);

        // a fourth stall that lasts: not said at its start (within the minute), said once the minute has gone by
        appendUntilStalled(w);
        assertThat(count("has taken no record for")).isEqualTo(1);
        w.stallLineNanos = 0;                        // stands for the minute gone by
        w.append(call(seq++));                       // a producer that finds no room says it now
        assertThat(count("has taken no record for")).as("a lasting stall is said:\n%s", err).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("Since the last such line it stalled 2 more times and moved"
                + " again each time (a disk slower than the stall time rather than a stuck one): each stall counts in AuditStalls");
        assertThat(w.stalls()).isEqualTo(4);
        assertThat(w.lastError()).contains("has taken no record for");

        gate.armed = false;
        gate.writes.release(Integer.MAX_VALUE / 2);
        await(() -> !w.isStalled());
        assertThat(count("takes records again after")).as("its end is said, as its start was").isEqualTo(2);
        w.close();
        AuditVerification v = AuditVerifier.verify(p);
        assertThat(v.ok()).isTrue();
    }
}
