package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Event times read from the monotonic clock stay on the wall clock, in order, across re-anchoring. */
class WallClockTest {
    @Test
    void readsTheWallClockAndNeverGoesBackWithinAnAnchor() {
        WallClock.reanchor();
        long before = System.currentTimeMillis();
        long t = WallClock.millisAt(System.nanoTime());
        long after = System.currentTimeMillis();
        // the two clocks are read within microseconds of each other: at most the millisecond they straddle apart
        assertThat(t).isBetween(before - 1, after + 1);
        long last = Long.MIN_VALUE;
        long n0 = System.nanoTime();
        for (long d = -2_000_000; d < 5_000_000_000L; d += 777_777) {
            long m = WallClock.millisAt(n0 + d);
            assertThat(m).as("monotonic in the reading (d = %d ns)", d).isGreaterThanOrEqualTo(last);
            last = m;
        }
        assertThat(WallClock.millisAt(n0 + 5_000_000_000L) - WallClock.millisAt(n0)).isBetween(4_999L, 5_001L);
    }

    @Test
    void theSupervisorsHousekeepingReanchorsOnceASecond() throws Exception {
        // a supervisor's housekeeping thread calls reanchor(); without it the anchor would stay as it was
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("wallclock");
        java.nio.file.Path log = dir.resolve("audit.jsonl");
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load("libraries=sop-refund,audit.path=" + log,
                java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        try {
            long probe = System.nanoTime();
            long first = WallClock.millisAt(probe);
            WallClock.anchorAt(System.nanoTime(), System.currentTimeMillis() + 3_600_000);   // an hour off: only a re-anchor mends it
            assertThat(WallClock.millisAt(probe)).isGreaterThan(first + 3_000_000);
            long deadline = System.nanoTime() + 5_000_000_000L;
            while (WallClock.millisAt(probe) > first + 1_000 && System.nanoTime() < deadline) Thread.sleep(50);
            assertThat(WallClock.millisAt(probe)).as("re-anchored by the housekeeping thread").isBetween(first - 5, first + 5);
        } finally {
            s.close();
            audit.close(5, java.util.concurrent.TimeUnit.SECONDS);
        }
    }
}
