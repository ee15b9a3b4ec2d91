package dev.tracegate.bench.agent;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The platform-stall summary the latency harness prints beside the call percentiles, and its ways of waiting. */
class InterceptedCallLatencyTest {

    @Test
    void stallsAreCountedPerSecondOfIdleTimeAndTurnedIntoTheShareOfCallsTheyLandIn() {
        Histogram stalls = new Histogram(60_000_000_000L, 3);
        stalls.recordValue(12_000);
        stalls.recordValue(25_000);
        stalls.recordValue(31_000);
        stalls.recordValue(14_000);
        // 4 stalls in 2 s of idle time: 2 per second; a call of 2.5 µs on average lands on one 2 * 2.5e-6 = 5 times in a million
        Map<String, Object> s = InterceptedCallLatency.stallSummary(stalls, 2_000_000_000L, 2_500);
        assertThat(s.get("perSecond")).isEqualTo(2.0);
        assertThat(s.get("callsHitPerMillion")).isEqualTo(5L);
        assertThat(s.get("count")).isEqualTo(4L);
        assertThat((long) s.get("max")).isBetween(31_000L, 31_100L);
        assertThat(s.get("thresholdNs")).isEqualTo(InterceptedCallLatency.STALL_NS);
    }

    @Test
    void noIdleTimeGivesNoRateRatherThanADivisionByZero() {
        Map<String, Object> s = InterceptedCallLatency.stallSummary(new Histogram(60_000_000_000L, 3), 0, 2_000);
        assertThat(s.get("perSecond")).isEqualTo(0.0);
        assertThat(s.get("callsHitPerMillion")).isEqualTo(0L);
    }

    /** {@code --wait park}: the calls run (the detached JVM of this test) and the JSON says how they waited, without a stall summary a parked thread cannot see. */
    @Test
    void aParkedRunRecordsEveryCallAndNoStalls(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("lat.json");
        InterceptedCallLatency.cli(new String[] {"--rate", "2000", "--seconds", "0.05", "--warmup-calls", "10", "--wait", "park",
                "--out", out.toString()});
        JsonNode d = new ObjectMapper().readTree(Files.readString(out));
        assertThat(d.get("wait").asText()).isEqualTo("park");
        assertThat(d.get("serviceTimeNs").get("count").asLong()).isEqualTo(100);
        assertThat(d.has("platformStallsNs")).isFalse();
        assertThat(d.has("writerDrainAfterWarmUpMs")).as("detached: no audit writer to wait for").isFalse();
    }

    @Test
    void anUnknownWaitIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> InterceptedCallLatency.cli(new String[] {"--wait", "sleep"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("spin or park");
    }
}
