package dev.tracegate.bench;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The CPU-time harness times every body of the grounding benchmark, per library, with a figure that can be read. */
class GroundingCpuTimeTest {
    @Test
    void everyBodyIsTimedForEveryLibrary() {
        GroundingCpuTime.WARM_UP = 100;   // a smoke test: no JIT warm-up needed
        List<Map<String, Object>> runs = GroundingCpuTime.measure(new String[] {"support", "injection"}, GroundingCpuTime.BODIES, 50, 3);
        assertThat(runs).extracting(r -> r.get("library")).containsExactly("support", "injection");
        assertThat(GroundingCpuTime.BODIES).contains("stepCall", "stepCallFresh", "stepResult", "stepResultFresh", "stepUser", "stepUserFresh");
        for (Map<String, Object> r : runs) {
            for (String body : GroundingCpuTime.BODIES) {
                assertThat((Double) r.get(body)).as("%s %s", r.get("library"), body).isPositive().isFinite();
            }
        }
    }

    /** By default each (library, body) runs in a JVM of its own, so what ran before cannot shape its figure. */
    @Test
    void eachLibraryAndBodyInItsOwnJvm() throws Exception {
        List<Map<String, Object>> runs = GroundingCpuTime.measureIsolated(new String[] {"sop-refund"}, List.of("stepCall", "stepCallFresh"), 50, 3);
        assertThat(runs).hasSize(1);
        Map<String, Object> r = runs.get(0);
        assertThat(r.get("library")).isEqualTo("sop-refund");
        assertThat(r.keySet()).containsExactly("library", "unit", "stepCall", "stepCallFresh");
        for (String body : List.of("stepCall", "stepCallFresh")) assertThat((Double) r.get(body)).as(body).isPositive().isFinite();
    }

    @Test
    void anUnknownBodyOrJvmChoiceIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> GroundingCpuTime.bodies("stepCall,stepcal")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown body 'stepcal'").hasMessageContaining("stepCallFresh");
        assertThatThrownBy(() -> GroundingCpuTime.cli(new String[] {"--jvm", "two"})).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--jvm must be each");
    }
}
