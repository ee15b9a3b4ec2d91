package dev.tracegate.agent.audit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.WritableByteChannel;

/**
 * Where an audit log's bytes go: opened by the writer thread at start and again after a write error.
 *
 * <p>Called only from the audit writer thread (and once from {@link AuditWriter#start} before that
 * thread exists).
 */
public interface AuditSink {

    /**
     * Opens the log for appending. If it already holds lines, the chain continues after its last
     * complete line; a partial last line (left by a crash or a failed write) is cut off first.
     */
    Opened open() throws IOException;

    /** Where the log is, for messages (a path). */
    String describe();

    /**
     * Whether the log opened last is no longer where it was opened: renamed or removed, as {@code logrotate} does
     * (its default {@code create} mode moves the file away), so the writer should open a new one there. Asked by the
     * writer thread at most about once a second; false for a sink that cannot tell.
     */
    default boolean moved() {
        return false;
    }

    /**
     * After {@link #moved}: whether the file opened last has no name left anywhere (deleted; or moved to another file
     * system, or compressed, both of which copy it and then delete it), so what was written to it after the copy is in no
     * file. Asked once per move, before the file is closed; false for a sink that cannot tell (where the platform does not
     * show a process's open files, as Linux's {@code /proc/self/fd} does).
     */
    default boolean deletedWhileOpen() {
        return false;
    }

    /**
     * Whether the file opened last is shorter than what was written to it, or begins with NUL bytes: it was truncated
     * under the writer (logrotate's {@code copytruncate}), which would otherwise go on at its old offset behind a hole.
     * {@code thorough} also reads the file's first byte (the hole left by a write that came just after the truncation);
     * without it only sizes are compared (asked before every write). The next {@link #open} then starts the file at
     * offset 0, cutting such a hole and what follows it ({@link Opened#truncatedBytes}). False for a sink that cannot tell.
     */
    default boolean truncated(boolean thorough) {
        return false;
    }

    /**
     * The last complete line (without LF) of the file opened last, read through the file as it is open, so also after it
     * was moved away; null when unknown (not a file, no complete line, closed, or an error). Asked after a failed write,
     * before the writer closes the file.
     */
    default byte[] tail() {
        return null;
    }

    /** Whether the log is on disk (false for a file the sink makes only at its first write and has not made yet). */
    default boolean created() {
        return true;
    }

    /** An opened log: the stream to append to, and what was found at its end. */
    final class Opened {
        final OutputStream out;
        /** The channel under {@code out}, written directly from the writer's off-heap batch; null: write {@code out}. */
        final WritableByteChannel channel;
        final byte[] lastLine;
        final long truncatedBytes;
        /** Nothing is on disk yet: the stream makes its file at its first byte, so the header may wait for the first record. */
        final boolean deferred;

        /**
         * @param out the stream to append to (positioned at the end of the last complete line)
         * @param lastLine the exact bytes (without LF) of the last complete line, or null if there is none
         * @param truncatedBytes how many bytes of a partial last line were cut off
         */
        public Opened(OutputStream out, byte[] lastLine, long truncatedBytes) {
            this(out, null, lastLine, truncatedBytes);
        }

        /**
         * As above, with the channel that {@code out} writes to: the writer then hands its batch to the channel
         * without the copy into a temporary direct buffer that a stream over a channel makes; closing {@code out}
         * must close it.
         */
        Opened(OutputStream out, WritableByteChannel channel, byte[] lastLine, long truncatedBytes) {
            this(out, channel, lastLine, truncatedBytes, false);
        }

        /** As above; {@code deferred}: the stream makes its file at its first byte (nothing is on disk before). */
        Opened(OutputStream out, WritableByteChannel channel, byte[] lastLine, long truncatedBytes, boolean deferred) {
            this.deferred = deferred;
            this.out = out;
            this.channel = channel;
            this.lastLine = lastLine;
            this.truncatedBytes = truncatedBytes;
        }
    }
}
