package dev.tracegate.agent.audit;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicLong;

/** A disk with a byte budget shared by every stream opened on it; writes past it fail half-way. */
final class SmallDisk {
    final AtomicLong budget;

    SmallDisk(long bytes) { budget = new AtomicLong(bytes); }

    OutputStream wrap(OutputStream out) {
        return new FilterOutputStream(out) {
            @Override public void write(byte[] b, int off, int len) throws IOException {
                long room = budget.get();
                if (room >= len) {
                    budget.addAndGet(-len);
                    out.write(b, off, len);
                    return;
                }
                if (room > 0) {
                    budget.addAndGet(-room);
                    out.write(b, off, (int) room);   // a partial line reaches the file
                }
                throw new IOException("No space left on device");
            }

            @Override public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }
        };
    }
}
