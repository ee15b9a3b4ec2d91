package dev.tracegate.agent.supervision;

/**
 * Event times in epoch milliseconds derived from the {@code System.nanoTime()} the supervisor reads anyway for
 * the decision's latency, so that an event costs no third clock read. The monotonic clock is anchored to the
 * wall clock again at least once a second, so a wall-clock step (NTP) shows within a second and the times stay
 * within the drift of one second of the two clocks. Any thread may call {@link #millisAt}.
 */
final class WallClock {
    private static final long REANCHOR_NS = 1_000_000_000L;

    /** A pair of readings of both clocks taken together; immutable, replaced as a whole. */
    private static final class Anchor {
        final long nanos;
        final long millis;

        Anchor(long nanos, long millis) {
            this.nanos = nanos;
            this.millis = millis;
        }
    }

    // volatile: a thread that re-anchors publishes a complete pair; races between re-anchoring threads are harmless
    private static volatile Anchor anchor = new Anchor(System.nanoTime(), System.currentTimeMillis());

    private WallClock() {}

    /** The wall-clock time, in epoch milliseconds, at which {@code System.nanoTime()} read {@code nanos} (a recent reading). */
    static long millisAt(long nanos) {
        Anchor a = anchor;
        long d = nanos - a.nanos;
        if (d < 0 || d >= REANCHOR_NS) {
            a = new Anchor(nanos, System.currentTimeMillis());
            anchor = a;
            return a.millis;
        }
        return a.millis + d / 1_000_000L;
    }
}
