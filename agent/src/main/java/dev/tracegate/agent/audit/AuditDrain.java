package dev.tracegate.agent.audit;

import dev.tracegate.agent.core.AgentLog;

import java.util.concurrent.TimeUnit;

/**
 * The JVM's shutdown wait for the audit writer to write the records it accepted: bounded, and said on standard error when
 * it lasts (what it waits for) or gives up (how many records are lost, and why).
 *
 * <p>A log that takes nothing (a named pipe whose reader stopped reading, a disk that hangs) would otherwise hold the
 * JVM's exit for the writer's whole close timeout and lose the held records without a word. The wait ends when the
 * writer has written everything, when it has written nothing for {@code audit.max-block} but at least
 * {@value #MIN_STALL_MILLIS} ms, or after {@value #MAX_WAIT_MILLIS} ms in all.
 */
public final class AuditDrain {
    /** The shortest stall (no record written) after which the shutdown stops waiting. */
    public static final long MIN_STALL_MILLIS = 2_000;
    /** The longest shutdown wait, however the writer progresses. */
    public static final long MAX_WAIT_MILLIS = 30_000;
    /** A wait longer than this is announced on standard error, with what it waits for. */
    static final long ANNOUNCE_MILLIS = 1_000;
    private static final long STEP_MILLIS = 50;

    private AuditDrain() {}

    /**
     * Closes {@code writer} at shutdown, waiting for it as long as it keeps writing, at most {@value #MAX_WAIT_MILLIS} ms,
     * and no longer than {@code maxBlockMillis} (at least {@value #MIN_STALL_MILLIS}) without it writing a record.
     *
     * @return true when the writer finished (every accepted record written, or counted lost by the writer itself)
     */
    public static boolean close(AuditWriter writer, long maxBlockMillis) {
        return close(writer, Math.max(MIN_STALL_MILLIS, maxBlockMillis), MAX_WAIT_MILLIS, ANNOUNCE_MILLIS);
    }

    /** {@link #close(AuditWriter, long)} with its bounds given (tests). */
    static boolean close(AuditWriter writer, long stallMillis, long maxMillis, long announceMillis) {
        long start = System.nanoTime();
        final long first = handled(writer);
        long progress = first;
        long progressAt = start;
        boolean announced = false;
        while (!writer.close(STEP_MILLIS, TimeUnit.MILLISECONDS)) {
            long now = System.nanoTime();
            long h = handled(writer);
            if (h != progress) {
                progress = h;
                progressAt = now;
            }
            long waited = TimeUnit.NANOSECONDS.toMillis(now - start);
            long stalled = TimeUnit.NANOSECONDS.toMillis(now - progressAt);
            if (stalled >= stallMillis || waited >= maxMillis) {
                long held = held(writer);
                String lost = ": " + held + (held == 1 ? " record it accepted is" : " records it accepted are")
                        + " lost, not in the log, whose chain ends before them. ";
                long took = progress - first;
                if (stalled < stallMillis && took > 0 && waited > 0) {
                    // a log that kept taking records to the end is slow, not stuck: no pipe or dead disk to blame
                    long rest = held * waited / took;
                    AgentLog.error("gave up waiting for the audit log " + writer.describe() + " at shutdown after " + seconds(waited)
                            + ", the longest shutdown wait, while it was still writing (" + took + " records in that time, the last "
                            + seconds(stalled) + " before the end)" + lost + "At that rate they needed about " + seconds(rest)
                            + " more: the application made records faster than this log takes them. Give the log a faster disk,"
                            + " or a smaller audit.queue-size, so that fewer records wait at an exit (events then wait for room"
                            + " as they are made: back-pressure)", null);
                    return false;
                }
                AgentLog.error("gave up waiting for the audit log " + writer.describe() + " at shutdown after " + seconds(waited)
                        + (stalled >= stallMillis ? ", as it took no record for " + seconds(stalled)
                                : ", the longest shutdown wait, in which it took no record")
                        + " (a named pipe nobody reads, or a disk that does not answer)" + lost
                        + "Have the pipe read (start the log shipper) or fix the disk", null);
                return false;
            }
            if (!announced && waited >= announceMillis) {
                announced = true;
                AgentLog.info("waiting for the audit log " + writer.describe() + " to take the " + held(writer)
                        + " records it still holds before the JVM exits (as long as it takes them, at most " + seconds(maxMillis)
                        + "; given up after " + seconds(stallMillis) + " without one)");
            }
        }
        if (announced) {
            AgentLog.info("the audit log " + writer.describe() + " took the records it held after "
                    + seconds(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)));
        }
        return true;
    }

    /** Records the writer is done with: written, or refused by the encoder (a bug, reported on its own). */
    private static long handled(AuditWriter w) {
        return w.written() + w.internalErrors();
    }

    /**
     * Records accepted and not yet written nor given up: what an exit now loses. Only accepted records count (the lost and
     * refused counts also hold records never accepted, and a refused call's record a failed write lost is not in lost).
     */
    private static long held(AuditWriter w) {
        return Math.max(0, w.accepted() - handled(w) - w.lostAccepted());
    }

    private static String seconds(long millis) {
        return millis < 10_000 ? String.format(java.util.Locale.ROOT, "%.1f s", millis / 1000.0) : (millis / 1000) + " s";
    }
}
