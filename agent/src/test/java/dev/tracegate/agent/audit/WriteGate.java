package dev.tracegate.agent.audit;

import java.io.FilterOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.util.concurrent.CountDownLatch;

/**
 * A sink wrapper whose writes wait at a gate once it is armed, so that the writer is stuck and the queue fills
 * deterministically: {@code new FileAuditSink(path, gate::wrap)}, then {@code armed = true}; {@code open.countDown()}
 * lets the writes through. {@code entered} opens at the first write that waited.
 */
public final class WriteGate {
    public final CountDownLatch entered = new CountDownLatch(1);
    public final CountDownLatch open = new CountDownLatch(1);
    public volatile boolean armed;

    public OutputStream wrap(OutputStream out) {
        return new FilterOutputStream(out) {
            @Override public void write(byte[] b, int off, int len) throws IOException {
                if (armed) {
                    entered.countDown();
                    try {
                        open.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                out.write(b, off, len);
            }
        };
    }
}
