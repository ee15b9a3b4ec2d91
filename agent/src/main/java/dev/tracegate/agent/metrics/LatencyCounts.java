package dev.tracegate.agent.metrics;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import org.HdrHistogram.Histogram;

/**
 * Event counters and a latency histogram in one array of longs, with HdrHistogram's buckets for three significant
 * digits, so that recording a decided event is two atomic adds into one object (an HdrHistogram {@code Recorder} over a
 * {@code ConcurrentHistogram} takes six atomic operations on as many cache lines, which a paced call finds cold).
 *
 * <p>Threads: {@link #count} and {@link #record} are called by any thread at once and never allocate or block;
 * {@link #counter} by any thread; {@link #interval} by one reader at a time (the caller's lock). A reader sees each slot
 * exactly, and the slots together as of some moment during its read: a value being recorded then is counted in this
 * interval or in the next, never twice and never lost.
 */
final class LatencyCounts {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(long[].class);
    /** log2 of the sub-buckets per bucket: HdrHistogram's for 3 significant digits and a lowest value of 1 (2,048). */
    static final int SUB_MAGNITUDE = 11;
    private static final int HALF_MAGNITUDE = SUB_MAGNITUDE - 1;
    private static final int HALF = 1 << HALF_MAGNITUDE;
    private static final long SUB_MASK = (1L << SUB_MAGNITUDE) - 1;

    /** Slots before the histogram's: the counters. */
    private final int counters;
    private final long highest;
    /** The counters, then one count per latency bucket; written only through {@link #SLOT}. */
    private final long[] slots;

    /** {@code counters} counters and a histogram of values 0 to {@code highest}. */
    LatencyCounts(int counters, long highest) {
        this.counters = counters;
        this.highest = highest;
        this.slots = new long[counters + bucketOf(highest) + 1];
    }

    /** The histogram slot of {@code value} (0 to {@code highest}), as HdrHistogram's counts index at 3 digits. */
    static int bucketOf(long value) {
        int bucket = 64 - Long.numberOfLeadingZeros(value | SUB_MASK) - SUB_MAGNITUDE;
        int sub = (int) (value >>> bucket);
        return ((bucket + 1) << HALF_MAGNITUDE) + (sub - HALF);
    }

    /** The lowest value of histogram slot {@code index}: a value HdrHistogram counts in the same bucket as every value of the slot. */
    static long lowestOf(int index) {
        int bucket = (index >> HALF_MAGNITUDE) - 1;
        int sub = (index & (HALF - 1)) + HALF;
        if (bucket < 0) {
            sub -= HALF;
            bucket = 0;
        }
        return (long) sub << bucket;
    }

    /** Adds one to counter {@code counter}. */
    void count(int counter) {
        SLOT.getAndAdd(slots, counter, 1L);
    }

    /** Adds one to counter {@code counter} and records {@code value}, clamped to 0..highest. */
    void record(int counter, long value) {
        final long[] s = slots;
        SLOT.getAndAdd(s, counter, 1L);
        SLOT.getAndAdd(s, counters + bucketOf(value < 0 ? 0 : Math.min(value, highest)), 1L);
    }

    /** Counter {@code counter} now. */
    long counter(int counter) {
        return (long) SLOT.getVolatile(slots, counter);
    }

    /** A copy of the histogram's counts for {@link #interval}'s first call: all zero (nothing read yet). */
    long[] nothingRead() {
        return new long[slots.length - counters];
    }

    /**
     * Writes into {@code into} (reset first; built with the same highest value and 3 digits) the values recorded since
     * {@code read} was last brought up to date, and brings it up to date (it holds the counts read so far).
     */
    void interval(long[] read, Histogram into) {
        into.reset();
        final long[] s = slots;
        for (int i = 0; i < read.length; i++) {
            long now = (long) SLOT.getVolatile(s, counters + i);
            long added = now - read[i];
            if (added != 0) {
                into.recordValueWithCount(lowestOf(i), added);
                read[i] = now;
            }
        }
    }
}
