package dev.tracegate.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The CPU-time harness times every body of the grounding benchmark, per library, with a figure that can be read. */
class GroundingCpuTimeTest {
    @Test
    void everyBodyIsTimedForEveryLibrary() {
        GroundingCpuTime.WARM_UP = 100;   // a smoke test: no JIT warm-up needed
        List<Map<String, Object>> runs = GroundingCpuTime.measure(new String[] {"support", "injection"}, 50, 3);
        assertThat(runs).extracting(r -> r.get("library")).containsExactly("support", "injection");
        for (Map<String, Object> r : runs) {
            for (String body : List.of("stepCall", "stepCallFresh", "stepResult", "stepResultFresh", "stepUser", "stepUserFresh")) {
                assertThat((Double) r.get(body)).as("%s %s", r.get("library"), body).isPositive().isFinite();
            }
        }
    }
}
