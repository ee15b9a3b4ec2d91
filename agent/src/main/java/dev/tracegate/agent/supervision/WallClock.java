package dev.tracegate.agent.supervision;

/**
 * Event times in epoch milliseconds derived from the {@code System.nanoTime()} the supervisor reads anyway for
 * the decision's latency, so that an event costs no third clock read. The monotonic clock is anchored to the
 * wall clock again once a second by the supervisor's housekeeping thread ({@link #reanchor}), so a wall-clock
 * step (NTP) shows within a second and the times stay within the drift of one second of the two clocks. Any
 * thread may call {@link #millisAt}.
 *
 * <p>The event path has no branch of its own here: when it re-anchored itself (the first event after a second),
 * the compiled code met a branch its profile said was never taken, once a second, and each time fell back to
 * the interpreter and was compiled again, which made one call a second about 100 us slower.
 */
final class WallClock {
    /** A pair of readings of both clocks taken together; immutable, replaced as a whole. */
    private static final class Anchor {
        final long nanos;
        final long millis;

        Anchor(long nanos, long millis) {
            this.nanos = nanos;
            this.millis = millis;
        }
    }

    // volatile: re-anchoring publishes a complete pair; racing re-anchors are harmless
    private static volatile Anchor anchor = new Anchor(System.nanoTime(), System.currentTimeMillis());

    private WallClock() {}

    /**
     * The wall-clock time, in epoch milliseconds, at which {@code System.nanoTime()} read {@code nanos} (a recent
     * reading). A reading taken just before the anchor it is read against gives the anchor's millisecond.
     */
    static long millisAt(long nanos) {
        Anchor a = anchor;
        return a.millis + (nanos - a.nanos) / 1_000_000L;
    }

    /** Anchors the monotonic clock to the wall clock again (the housekeeping thread, once a second). */
    static void reanchor() {
        anchorAt(System.nanoTime(), System.currentTimeMillis());
    }

    /** Anchors {@code nanos} of the monotonic clock to {@code millis} of the wall clock (tests: a clock that was stepped). */
    static void anchorAt(long nanos, long millis) {
        anchor = new Anchor(nanos, millis);
    }
}
