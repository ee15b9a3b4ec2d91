package dev.tracegate.bench.agent;

import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The platform-stall summary the latency harness prints beside the call percentiles. */
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
}
