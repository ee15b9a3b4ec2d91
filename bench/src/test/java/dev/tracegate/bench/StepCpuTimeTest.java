package dev.tracegate.bench;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The trace-length rows of the CPU-time harness: long windows, the clock's own cost taken off, and the spread of shots. */
class StepCpuTimeTest {

    @Test
    @SuppressWarnings("unchecked")
    void eachRowGivesItsWindowTheClockFloorAndTheSpreadOfItsShots() {
        List<Object> rows = StepCpuTime.traceLengths(ManagementFactory.getThreadMXBean(), new int[] {100, 1_000}, 5, 1_000);
        assertThat(rows).hasSize(3);   // two lengths and the control
        for (Object o : rows) {
            Map<String, Object> r = (Map<String, Object>) o;
            assertThat(r.get("window")).isEqualTo(1_000);
            assertThat(r.get("shots")).isEqualTo(5);
            assertThat((Double) r.get("clockFloorNs")).isGreaterThanOrEqualTo(0.0);
            double min = (Double) r.get("cpuNsPerEventMin"), p10 = (Double) r.get("cpuNsPerEventP10"),
                    median = (Double) r.get("cpuNsPerEventMedian"), p90 = (Double) r.get("cpuNsPerEventP90");
            assertThat(min).isLessThanOrEqualTo(p10);
            assertThat(p10).isLessThanOrEqualTo(median);
            assertThat(median).isLessThanOrEqualTo(p90);
        }
        assertThat((Map<String, Object>) rows.get(2)).containsKey("control");
    }

    @Test
    void aWindowThatIsNotAWholeNumberOfCyclesIsRefused() {
        assertThatThrownBy(() -> StepCpuTime.traceLengths(ManagementFactory.getThreadMXBean(), new int[] {100}, 1, 150))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--window must be a positive multiple of 100");
    }
}
