package dev.tracegate.bench.agent;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Gives an attached benchmark fork a new, empty audit file before it measures, when asked with
 * {@code -Dbench.audit.fresh=true}: the forks of one JMH invocation share its {@code -Dtracegate.audit.path},
 * and a writer appending to the GBs the forks before it wrote is slower than one starting a file.
 * It deletes the file this fork's agent writes and waits until the agent, which notices a moved-away log,
 * has opened a new one at the same path (the deleted one's space is freed when the agent closes it).
 */
public final class FreshAuditFile {
    /** The system property that asks for it (bench/run.sh sets it on attached JMH forks). */
    public static final String PROPERTY = "bench.audit.fresh";

    private FreshAuditFile() {}

    /**
     * When {@value #PROPERTY} is true, renews the audit file; {@code nudge} makes one supervised call, so the audit
     * writer wakes and checks its file. Returns whether it renewed the file.
     *
     * @throws IllegalStateException when the audit path is not set or the agent did not open a new file within 10 s
     */
    public static boolean renew(Runnable nudge) {
        return renew(nudge, 10_000);
    }

    static boolean renew(Runnable nudge, long timeoutMillis) {
        if (!Boolean.getBoolean(PROPERTY)) return false;
        String configured = System.getProperty("tracegate.audit.path", "");
        if (configured.isBlank()) {
            throw new IllegalStateException("-D" + PROPERTY + "=true needs -Dtracegate.audit.path=<file>, the audit file this JVM's agent"
                    + " writes (set both in -jvmArgsAppend, as bench/run.sh does)");
        }
        Path path = Path.of(configured);
        if (!Files.exists(path)) {
            throw new IllegalStateException("-D" + PROPERTY + "=true but there is no audit file at " + path
                    + ": is the agent attached with its audit log there?");
        }
        try {
            Files.delete(path);
        } catch (IOException e) {
            throw new UncheckedIOException("could not delete the audit file " + path + " to start a fresh one", e);
        }
        long deadline = System.nanoTime() + timeoutMillis * 1_000_000L;
        while (System.nanoTime() - deadline < 0) {
            nudge.run();
            // any file there now is a new one (an inode number may be reused, so identities cannot tell them apart)
            if (Files.exists(path)) return true;
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for a new audit file at " + path, e);
            }
        }
        throw new IllegalStateException("the agent did not open a new audit file at " + path + " within " + timeoutMillis
                + " ms after the old one was deleted; run without -D" + PROPERTY + " to keep one file");
    }
}
