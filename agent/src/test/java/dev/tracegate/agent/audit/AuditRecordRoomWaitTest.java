package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The wait for room that a record carries back to its producer (the MBean latency adds it, trial22 01) is kept as a
 * 16-bit float so that the record stays small (96 bytes since session 19, 136 before): it must read back what was set to three significant digits (the
 * latency histogram's precision), never less than was set (a wait past audit.max-block must read as past it), exactly
 * below 2,048 ns, and monotonically.
 */
class AuditRecordRoomWaitTest {

    private static long roundTrip(long nanos) {
        AuditRecord r = AuditRecord.of("s", 0, "CALL", Decision.PASS);
        r.roomWait(nanos);
        return r.roomWaitNanos();
    }

    @Test
    void aWaitReadsBackToThreeSignificantDigitsRoundedUpAndExactlyWhenSmall() {
        assertThat(AuditRecord.of("s", 0, "CALL", Decision.PASS).roomWaitNanos()).as("no wait").isZero();
        for (long n = 0; n < 2_048; n++) assertThat(roundTrip(n)).isEqualTo(n);
        SplittableRandom random = new SplittableRandom(14);
        long[] limits = {5_000_000_000L, 3_600_000_000_000L};   // audit.max-block's default (5 s), an hour
        for (long limit : limits) {
            for (int i = 0; i < 100_000; i++) {
                long n = random.nextLong(limit);
                long back = roundTrip(n);
                assertThat(back).as("%d ns", n).isGreaterThanOrEqualTo(n);
                assertThat((double) (back - n) / n).as("%d ns read back as %d", n, back).isLessThan(1.0 / 1_024);
            }
        }
    }

    /** AuditWriterRoomTest's failure: a wait just past 50 ms (max-block) read back as 49,971,200 ns. */
    @Test
    void aWaitJustPastALimitReadsBackPastIt() {
        assertThat(roundTrip(50_000_001L)).isGreaterThan(50_000_000L);
        assertThat(roundTrip(4_095L)).isEqualTo(4_096L);   // a carry into the next scale
        assertThat(roundTrip(4_096L)).isEqualTo(4_096L);
    }

    @Test
    void longerWaitsNeverReadBackShorter() {
        long previous = -1;
        for (long n = 1; n > 0 && n < Long.MAX_VALUE / 3; n = n * 3 / 2 + 1) {
            long back = roundTrip(n);
            assertThat(back).as("%d ns", n).isGreaterThanOrEqualTo(previous);
            previous = back;
        }
        assertThat(roundTrip(Long.MAX_VALUE)).as("beyond the scale: the largest value kept").isEqualTo(roundTrip(Long.MAX_VALUE - 1))
                .isGreaterThan(3_600_000_000_000L);
    }
}
