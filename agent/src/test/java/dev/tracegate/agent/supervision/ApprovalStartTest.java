package dev.tracegate.agent.supervision;

import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An approver whose constructor does not return (it connects to an approval service that does not answer) does not
 * hold the start (trial20 06: the JVM hung before main, for ever and silently): the start goes on after at most
 * escalate.timeout, escalations are refused at once while it has not returned (counted as not-ready), and it is asked
 * once its constructor returns.
 */
class ApprovalStartTest {
    /** An approver whose constructor blocks until the test lets it go. */
    public static final class Hanging {
        static final CountDownLatch RELEASE = new CountDownLatch(1);

        public Hanging() throws InterruptedException {
            RELEASE.await();
        }

        public boolean approve(Map<String, String> request) {
            return true;
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)   // only to stop a hung test: before the fix load() never returned
    void aConstructorThatDoesNotReturnDoesNotHoldTheStartAndEscalationsAreRefusedUntilItDoes() throws Exception {
        SupervisorMetrics metrics = new SupervisorMetrics();
        Approval approval = Approval.load(Hanging.class.getName(), Duration.ofMillis(200), Approval.DEFAULT_MAX_STUCK, metrics);

        Approval.Answer before = approval.ask("refund.approve", "s", "refund", "{}", "why");
        assertThat(before.approved()).isFalse();
        assertThat(before.note()).startsWith("the approver " + Hanging.class.getName() + " is not ready: its constructor has not returned")
                .endsWith("so the call is refused without asking it");
        assertThat(metrics.getApprovals()).containsEntry("not-ready", 1L).containsEntry("approved", 0L);

        Hanging.RELEASE.countDown();
        Approval.Answer after;
        do {   // the constructor returns on its own thread; the JUnit timeout stops a wait that never ends
            Thread.sleep(10);
            after = approval.ask("refund.approve", "s", "refund", "{}", "why");
        } while (!after.approved() && after.note().contains("is not ready"));
        assertThat(after.approved()).as(after.note()).isTrue();
        assertThat(metrics.getApprovals()).containsEntry("approved", 1L);
    }
}
