package dev.tracegate.agent.supervision;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;

/** The approver's wait ends when the JVM shuts down (trial16 sigterm-waits-for-escalation). */
class ApprovalStopTest {
    /** An approver that takes ten minutes (one that asks a human). */
    public static final class Slow {
        static final CountDownLatch ASKED = new CountDownLatch(1);
        static final AtomicInteger CALLS = new AtomicInteger();

        public Slow() {}

        public boolean approve(Map<String, String> request) throws InterruptedException {
            CALLS.incrementAndGet();
            ASKED.countDown();
            Thread.sleep(600_000);
            return true;
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)   // the escalation's own timeout is a week: only stop() can end the wait
    void stopRefusesTheWaitingEscalationNowAndEveryLaterOneWithoutAskingTheApprover() throws Exception {
        Approval approval = Approval.load(Slow.class.getName(), Duration.ofDays(7));
        CompletableFuture<Approval.Answer> waiting = CompletableFuture.supplyAsync(() -> approval.ask("pay.approve", "s", "wire", "{}", "why"));
        assertThat(Slow.ASKED.await(30, TimeUnit.SECONDS)).isTrue();
        assertThat(approval.stop()).as("one escalation was waiting").isEqualTo(1);
        Approval.Answer a = waiting.get();
        assertThat(a.approved()).isFalse();
        assertThat(a.note()).isEqualTo(Approval.SHUTTING_DOWN).startsWith("the JVM is shutting down");
        Approval.Answer later = approval.ask("pay.approve", "t", "wire", "{}", "why");
        assertThat(later.approved()).isFalse();
        assertThat(later.note()).isEqualTo(Approval.SHUTTING_DOWN);
        assertThat(Slow.CALLS.get()).as("a later escalation does not reach the approver").isEqualTo(1);
        assertThat(approval.stop()).as("nothing waits any more").isZero();
    }
}
