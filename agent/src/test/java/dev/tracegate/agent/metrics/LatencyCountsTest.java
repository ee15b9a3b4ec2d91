package dev.tracegate.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Random;
import java.util.concurrent.CountDownLatch;
import org.HdrHistogram.Histogram;
import org.junit.jupiter.api.Test;

class LatencyCountsTest {
    private static final long HIGHEST = SupervisorMetrics.MAX_LATENCY_NS;

    /** The oracle: HdrHistogram itself, recording the same values directly at the same highest value and 3 digits. */
    @Test
    void anIntervalIsTheHistogramHdrHistogramRecordsFromTheSameValues() {
        LatencyCounts counts = new LatencyCounts(2, HIGHEST);
        long[] read = counts.nothingRead();
        Histogram interval = new Histogram(HIGHEST, 3);
        Random random = new Random(11);
        for (int round = 0; round < 3; round++) {
            Histogram direct = new Histogram(HIGHEST, 3);
            for (int i = 0; i < 50_000; i++) {
                // every magnitude: 0, unit-resolution values, bucket edges, up to the clamp and beyond it
                long v = switch (i % 5) {
                    case 0 -> random.nextInt(2_048);
                    case 1 -> (1L << random.nextInt(42)) - random.nextInt(2);
                    case 2 -> (long) Math.exp(random.nextDouble() * Math.log(HIGHEST));
                    case 3 -> HIGHEST + random.nextInt(1_000);
                    default -> random.nextInt(100_000);
                };
                counts.record(i & 1, v);
                direct.recordValue(Math.max(0, Math.min(v, HIGHEST)));
            }
            counts.interval(read, interval);
            assertThat(interval.getTotalCount()).isEqualTo(50_000);
            for (double p : new double[] {0, 1, 50, 90, 99, 99.9, 99.99, 100}) {
                assertThat(interval.getValueAtPercentile(p)).as("p%s of round %d", p, round).isEqualTo(direct.getValueAtPercentile(p));
            }
            assertThat(interval.getMaxValue()).isEqualTo(direct.getMaxValue());
            assertThat(interval).isEqualTo(direct);   // every bucket's count
        }
        assertThat(counts.counter(0)).isEqualTo(75_000);
        assertThat(counts.counter(1)).isEqualTo(75_000);
    }

    @Test
    void everyBucketsLowestValueMapsBackToItsBucket() {
        for (int i = 0; i <= LatencyCounts.bucketOf(HIGHEST); i++) {
            assertThat(LatencyCounts.bucketOf(LatencyCounts.lowestOf(i))).as("slot %d", i).isEqualTo(i);
        }
    }

    @Test
    void threadsRecordingAtOnceLoseNothing() throws Exception {
        LatencyCounts counts = new LatencyCounts(3, HIGHEST);
        int threads = 4, each = 200_000;
        CountDownLatch start = new CountDownLatch(1);
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            int id = t;
            ts[t] = new Thread(() -> {
                try {
                    start.await();
                } catch (InterruptedException e) {
                    return;
                }
                for (int i = 0; i < each; i++) {
                    counts.record(id % 3, 500 + (i & 7));   // few buckets: the threads contend for the same slots
                    if (i % 10 == 0) counts.count(2);
                }
            });
            ts[t].start();
        }
        start.countDown();
        for (Thread t : ts) t.join();
        Histogram interval = new Histogram(HIGHEST, 3);
        counts.interval(counts.nothingRead(), interval);
        assertThat(interval.getTotalCount()).isEqualTo((long) threads * each);
        assertThat(counts.counter(0) + counts.counter(1) + counts.counter(2)).isEqualTo((long) threads * each + threads * (each / 10));
    }
}
