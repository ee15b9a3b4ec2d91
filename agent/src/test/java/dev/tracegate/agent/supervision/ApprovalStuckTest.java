package dev.tracegate.agent.supervision;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An approver that never returns and ignores interrupts (a socket read without a timeout) keeps each of its threads;
 * trial20 02: one tracegate-approver thread per escalation, without bound, unsaid and uncounted. Now at
 * escalate.max-stuck such threads an escalation is refused at once without asking it (no new thread), a WARN says so,
 * the MBean counts them, and once they return the approver is asked again.
 */
class ApprovalStuckTest {
    /** Blocks, ignoring interrupts, until the test lets it go; then approves. */
    public static final class Stubborn {
        static final CountDownLatch RELEASE = new CountDownLatch(1);
        static final AtomicInteger CALLS = new AtomicInteger();

        public Stubborn() {}

        public boolean approve(Map<String, String> request) {
            CALLS.incrementAndGet();
            while (true) {
                try {
                    if (RELEASE.await(60, TimeUnit.SECONDS)) return true;
                } catch (InterruptedException e) {
                    // ignored, as a blocking socket read ignores it
                }
            }
        }
    }

    /** Blocks, ignoring interrupts, until the test lets it go (its own latch: Stubborn's is let go by the other test). */
    public static final class HangsOnce {
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        public HangsOnce() {}

        public boolean approve(Map<String, String> request) {
            while (true) {
                try {
                    if (RELEASE.await(60, TimeUnit.SECONDS)) return true;
                } catch (InterruptedException e) {
                    // ignored, as a blocking socket read ignores it
                }
            }
        }
    }

    /** Slow, but returns (refusing) as soon as it is interrupted, as an interruptible HTTP client does. */
    public static final class Interruptible {
        public Interruptible() {}

        public boolean approve(Map<String, String> request) {
            try {
                Thread.sleep(60_000);
                return true;
            } catch (InterruptedException e) {
                return false;
            }
        }
    }

    @AfterEach
    void restoreLog() {
        AgentLog.captureForTest(null);
    }

    /** After all: each latch is let go once, so one test's clean-up must not let go another test's approver. */
    @AfterAll
    static void release() {
        Stubborn.RELEASE.countDown();
        HangsOnce.RELEASE.countDown();
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)   // only to stop a hung test
    void atMaxStuckThreadsEscalationsAreRefusedAtOnceWithoutAskingSaidCountedAndAskedAgainOnceTheyReturn() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        SupervisorMetrics metrics = new SupervisorMetrics();
        Approval approval = Approval.load(Stubborn.class.getName(), Duration.ofMillis(100), 2, metrics);

        for (int i = 0; i < 2; i++) {
            Approval.Answer a = approval.ask("refund.approve", "s" + i, "refund", "{}", "why");
            assertThat(a.approved()).isFalse();
            assertThat(a.note()).isEqualTo("the approver did not answer within 100 ms");
        }
        assertThat(metrics.getApproverThreadsStuck()).as("both timed-out approvers are still running").isEqualTo(2);
        for (int i = 0; i < 5; i++) {
            Approval.Answer a = approval.ask("refund.approve", "t" + i, "refund", "{}", "why");
            assertThat(a.approved()).isFalse();
            assertThat(a.note()).isEqualTo("the approver " + Stubborn.class.getName() + " is not answering: 2 of its threads are"
                    + " still running past escalate.timeout, the most escalate.max-stuck (2) allows, so the call is refused without asking it");
        }
        assertThat(Stubborn.CALLS.get()).as("no thread was started for the refused escalations").isEqualTo(2);
        assertThat(metrics.getApprovals()).containsEntry("timed-out", 2L).containsEntry("not-answering", 5L);
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("WARN escalate.approver " + Stubborn.class.getName() + ": 1 approver thread has not returned after"
                + " escalate.timeout (100 ms) refused its call");
        assertThat(said.split("WARN escalate.approver", -1).length - 1).as("said once, not per escalation:\n%s", said).isEqualTo(1);

        Stubborn.RELEASE.countDown();
        while (metrics.getApproverThreadsStuck() > 0) Thread.sleep(10);   // they return on their own threads
        Approval.Answer again = approval.ask("refund.approve", "u", "refund", "{}", "why");
        assertThat(again.approved()).as(again.note()).isTrue();
        assertThat(Stubborn.CALLS.get()).isEqualTo(3);
    }

    /**
     * Follow-up of trial20 02: the WARN came only when a LATER escalation found a stuck thread, so an operator whose
     * approver hung once saw nothing. Now the escalation that stops waiting with its approver still running says it,
     * and the MBean counts the thread from then on; an approver that returns when interrupted is not reported.
     */
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)   // only to stop a hung test
    void anApproverThatHangsOnceIsSaidByTheEscalationThatTimesOutWithoutWaitingForAnother() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        SupervisorMetrics metrics = new SupervisorMetrics();
        Approval approval = Approval.load(HangsOnce.class.getName(), Duration.ofMillis(100), 8, metrics);

        Approval.Answer a = approval.ask("refund.approve", "s", "refund", "{}", "why");

        assertThat(a.approved()).isFalse();
        assertThat(a.note()).isEqualTo("the approver did not answer within 100 ms");
        assertThat(metrics.getApproverThreadsStuck()).as("stuck from the moment its escalation stopped waiting").isEqualTo(1);
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(said).as("said by this escalation, with no later one").contains("WARN escalate.approver " + HangsOnce.class.getName()
                + ": 1 approver thread has not returned after escalate.timeout (100 ms) refused its call and interrupted it");
        assertThat(said.split("WARN escalate.approver", -1).length - 1).isEqualTo(1);

        HangsOnce.RELEASE.countDown();
        while (metrics.getApproverThreadsStuck() > 0) Thread.sleep(10);   // it returns on its own thread
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)   // only to stop a hung test
    void anApproverThatReturnsWhenInterruptedAtTheTimeoutIsNotReportedStuck() throws Exception {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        SupervisorMetrics metrics = new SupervisorMetrics();
        Approval approval = Approval.load(Interruptible.class.getName(), Duration.ofMillis(100), 8, metrics);
        // an interrupted Interruptible returns at once; the wide grace only keeps a slow host from making it late
        approval.stuckGrace = Duration.ofSeconds(30);

        for (int i = 0; i < 3; i++) {
            Approval.Answer a = approval.ask("refund.approve", "s" + i, "refund", "{}", "why");
            assertThat(a.note()).isEqualTo("the approver did not answer within 100 ms");
        }

        assertThat(err.toString(StandardCharsets.UTF_8)).doesNotContain("WARN escalate.approver");
        assertThat(metrics.getApproverThreadsStuck()).isZero();
        assertThat(metrics.getApprovals()).containsEntry("timed-out", 3L);
    }
}
