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

    /** An opened log: the stream to append to, and what was found at its end. */
    final class Opened {
        final OutputStream out;
        /** The channel under {@code out}, written directly from the writer's off-heap batch; null: write {@code out}. */
        final WritableByteChannel channel;
        final byte[] lastLine;
        final long truncatedBytes;

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
            this.out = out;
            this.channel = channel;
            this.lastLine = lastLine;
            this.truncatedBytes = truncatedBytes;
        }
    }
}
