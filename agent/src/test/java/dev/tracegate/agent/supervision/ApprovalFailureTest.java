package dev.tracegate.agent.supervision;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * An approver that cannot be used says why (trial20 07: a constructor's exception showed as a bare
 * InvocationTargetException with a hint about signatures that were fine), and one that fails on every escalation is
 * said once, not once per call.
 */
class ApprovalFailureTest {
    /** Its constructor throws, as one whose service URL is not configured. */
    public static final class ThrowingCtor {
        public ThrowingCtor() {
            throw new IllegalStateException("APPROVAL_URL not set");
        }

        public boolean approve(Map<String, String> request) {
            return true;
        }
    }

    /** No public no-argument constructor. */
    public static final class NoDefaultCtor {
        public NoDefaultCtor(String url) {}

        public boolean approve(Map<String, String> request) {
            return true;
        }
    }

    /** Fails on every request. */
    public static final class Failing {
        public boolean approve(Map<String, String> request) {
            throw new IllegalStateException("approval service down");
        }
    }

    @AfterEach
    void back() {
        AgentLog.captureForTest(null);
    }

    @Test
    void aConstructorsExceptionIsShownWithoutTheSignatureHint() {
        assertThatThrownBy(() -> Approval.load(ThrowingCtor.class.getName(), "/etc/tracegate.yaml:4:20", Duration.ofSeconds(5),
                Approval.DEFAULT_MAX_STUCK, null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("escalate.approver " + ThrowingCtor.class.getName() + " (/etc/tracegate.yaml:4:20) cannot be used:"
                        + " its constructor threw java.lang.IllegalStateException: APPROVAL_URL not set")
                .hasMessageNotContaining("InvocationTargetException")
                .hasMessageNotContaining("it needs a public no-argument constructor");
    }

    @Test
    void aWrongSignatureGetsTheHint() {
        assertThatThrownBy(() -> Approval.load(NoDefaultCtor.class.getName(), Duration.ofSeconds(5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("NoSuchMethodException")
                .hasMessageContaining("it needs a public no-argument constructor and 'public boolean approve(java.util.Map<String,String>)'");
    }

    @Test
    void anApproverThatFailsOnEveryEscalationIsSaidOnceNotPerCall() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        SupervisorMetrics metrics = new SupervisorMetrics();
        Approval approval = Approval.load(Failing.class.getName(), Duration.ofSeconds(30), Approval.DEFAULT_MAX_STUCK, metrics);
        for (int i = 0; i < 20; i++) {
            Approval.Answer a = approval.ask("refund.approve", "s" + i, "refund", "{}", "why");
            assertThat(a.approved()).isFalse();
            assertThat(a.note()).isEqualTo("the approver failed: java.lang.IllegalStateException: approval service down");
        }
        String said = err.toString(StandardCharsets.UTF_8);
        assertThat(said).contains("ERROR escalation approver failed (" + Failing.class.getName() + ")")
                .contains("java.lang.IllegalStateException: approval service down");
        assertThat(said.split("ERROR", -1).length - 1).as("once, not per escalation:\n%s", said).isEqualTo(1);
        assertThat(metrics.getApprovals()).containsEntry("failed", 20L);
    }
}
