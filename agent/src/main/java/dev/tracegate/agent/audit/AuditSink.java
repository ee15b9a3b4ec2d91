package dev.tracegate.agent.audit;

import java.io.IOException;
import java.io.OutputStream;

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

    /** An opened log: the stream to append to, and what was found at its end. */
    final class Opened {
        final OutputStream out;
        final byte[] lastLine;
        final long truncatedBytes;

        /**
         * @param out the stream to append to (positioned at the end of the last complete line)
         * @param lastLine the exact bytes (without LF) of the last complete line, or null if there is none
         * @param truncatedBytes how many bytes of a partial last line were cut off
         */
        public Opened(OutputStream out, byte[] lastLine, long truncatedBytes) {
            this.out = out;
            this.lastLine = lastLine;
            this.truncatedBytes = truncatedBytes;
        }
    }
}
