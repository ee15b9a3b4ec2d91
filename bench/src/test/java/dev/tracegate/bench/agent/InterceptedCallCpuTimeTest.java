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
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown body 'refused' in --bodies; known: passed, varied, blocked");
    }

    @Test
    void theMedianOfAnEvenNumberOfRoundsIsTheMeanOfTheMiddleTwo() {
        assertThat(InterceptedCallCpuTime.median(new double[] {4, 1, 3, 2})).isEqualTo(2.5);
        assertThat(InterceptedCallCpuTime.median(new double[] {5, 1, 3})).isEqualTo(3.0);
    }

    /** The drained threshold follows the writer's measured idle rate (trial11: a constant 20 µs/ms sat at the idle rate). */
    @Test
    void theDrainedThresholdIsTwiceTheIdleRateWithAFloor() {
        assertThat(InterceptedCallCpuTime.drainedThreshold(17_148.5)).isEqualTo(171_485);   // 2 x 17.1 µs/ms x 5 ms
        assertThat(InterceptedCallCpuTime.drainedThreshold(40_000)).isEqualTo(400_000);
        assertThat(InterceptedCallCpuTime.drainedThreshold(0)).isEqualTo(InterceptedCallCpuTime.MIN_DRAINED_NS);
    }

    /** settle returns only once the thread it watches has stopped using CPU, not while it still works. */
    @Test
    void settleWaitsForABusyThreadToStop() throws Exception {
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
        Thread busy = new Thread(() -> {
            long until = mx.getCurrentThreadCpuTime() + 60_000_000L;   // 60 ms of its own CPU, then idle
            while (mx.getCurrentThreadCpuTime() < until) Thread.onSpinWait();
            done.set(true);
            java.util.concurrent.locks.LockSupport.parkNanos(5_000_000_000L);
        });
        busy.setDaemon(true);
        busy.start();
        while (mx.getThreadCpuTime(busy.getId()) < 1_000_000L) Thread.onSpinWait();   // it is working
        InterceptedCallCpuTime.settle(mx, busy, 100_000);
        assertThat(done).as("settled while the thread still ran").isTrue();
        busy.interrupt();
    }

    /** By default each body runs in a JVM of its own (trial11: in one JVM a body's figure depended on the bodies before it). */
    @Test
    @SuppressWarnings("unchecked")
    void eachBodyInItsOwnJvm() throws Exception {
        Map<String, Object> out = InterceptedCallCpuTime.measureIsolated("detached", new String[] {"varied", "passed"}, 500, 2, 100);
        List<Map<String, Object>> bodies = (List<Map<String, Object>>) out.get("bodies");
        assertThat(bodies).extracting(b -> b.get("body")).containsExactly("varied", "passed");
        for (Map<String, Object> b : bodies) {
            assertThat(((Number) b.get("callerCpuNs")).doubleValue()).as("%s", b.get("body")).isPositive();
            assertThat((List<?>) b.get("callerCpuNsByRound")).hasSize(2);
        }
    }

    @Test
    void anUnknownJvmChoiceIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> InterceptedCallCpuTime.cli(new String[] {"--jvm", "two", "--bodies", "passed"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--jvm must be each");
        assertThatThrownBy(() -> InterceptedCallCpuTime.cli(new String[] {"--bodies", "passed,refused"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("unknown body 'refused'");
    }
}
