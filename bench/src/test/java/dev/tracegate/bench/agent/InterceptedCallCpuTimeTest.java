package dev.tracegate.bench.agent;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without the agent the CPU-time harness times every body on the calling thread, and it refuses to pass an unattached JVM off as attached. */
class InterceptedCallCpuTimeTest {

    @Test
    @SuppressWarnings("unchecked")
    void detachedRunTimesEveryBodyOnTheCallingThreadOnly() {
        Map<String, Object> out = InterceptedCallCpuTime.measure("detached", new String[] {"passed", "varied", "blocked"}, 2_000, 3, 1_000);
        assertThat(out).doesNotContainKey("writerIdleCpuNsPerMs");
        List<Map<String, Object>> bodies = (List<Map<String, Object>>) out.get("bodies");
        assertThat(bodies).extracting(b -> b.get("body")).containsExactly("passed", "varied", "blocked");
        for (Map<String, Object> b : bodies) {
            assertThat((Double) b.get("callerCpuNs")).as("%s", b.get("body")).isPositive().isFinite();
            assertThat(b).doesNotContainKey("writerCpuNs");
            assertThat((long[]) b.get("callerCpuNsByRound")).hasSize(3);
        }
    }

    @Test
    void anAttachedMeasurementInAJvmWithoutTheAgentFails() {
        assertThatThrownBy(() -> InterceptedCallCpuTime.measure("attached", new String[] {"passed"}, 10, 1, 0))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("the agent is not active in this JVM");
    }

    @Test
    void anUnknownBodyIsNamed() {
        assertThatThrownBy(() -> InterceptedCallCpuTime.measure("detached", new String[] {"passed", "refused"}, 10, 1, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown body 'refused'; known: passed, varied, blocked");
    }

    @Test
    void theMedianOfAnEvenNumberOfRoundsIsTheMeanOfTheMiddleTwo() {
        assertThat(InterceptedCallCpuTime.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(InterceptedCallCpuTime.median(new double[] {5, 1, 3})).isEqualTo(3.0);
    }
}
