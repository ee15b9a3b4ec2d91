package dev.tracegate.bench.agent;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A fork asked for a fresh audit file deletes the old one and goes on only once a new file is at the path. */
class FreshAuditFileTest {

    @AfterEach
    void clear() {
        System.clearProperty(FreshAuditFile.PROPERTY);
        System.clearProperty("tracegate.audit.path");
    }

    @Test
    void unaskedItLeavesTheFileAlone(@TempDir Path dir) throws IOException {
        Path audit = Files.writeString(dir.resolve("audit.jsonl"), "old records\n");
        System.setProperty("tracegate.audit.path", audit.toString());
        AtomicInteger nudges = new AtomicInteger();
        assertThat(FreshAuditFile.renew(nudges::incrementAndGet, 200)).isFalse();
        assertThat(Files.readString(audit)).isEqualTo("old records\n");
        assertThat(nudges).hasValue(0);
    }

    @Test
    void theOldFileIsReplacedByTheOneTheWriterOpensAnew(@TempDir Path dir) throws IOException {
        Path audit = Files.writeString(dir.resolve("audit.jsonl"), "old records\n".repeat(1000));
        System.setProperty(FreshAuditFile.PROPERTY, "true");
        System.setProperty("tracegate.audit.path", audit.toString());
        AtomicInteger nudges = new AtomicInteger();
        // stands in for the agent: on the third call its writer notices the deleted file and opens a new one
        Runnable nudge = () -> {
            if (nudges.incrementAndGet() == 3) {
                try {
                    Files.writeString(audit, "header\n");
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }
        };
        assertThat(FreshAuditFile.renew(nudge, 10_000)).isTrue();
        assertThat(nudges).hasValue(3);
        assertThat(Files.readString(audit)).isEqualTo("header\n");
    }

    @Test
    void aWriterThatNeverReopensEndsTheSetupWithWhy(@TempDir Path dir) throws IOException {
        Path audit = Files.writeString(dir.resolve("audit.jsonl"), "old\n");
        System.setProperty(FreshAuditFile.PROPERTY, "true");
        System.setProperty("tracegate.audit.path", audit.toString());
        assertThatThrownBy(() -> FreshAuditFile.renew(() -> {}, 100)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("did not open a new audit file at " + audit);
        assertThat(audit).doesNotExist();
    }

    @Test
    void askedWithoutAnAuditPathOrFileItSaysWhatIsMissing(@TempDir Path dir) {
        System.setProperty(FreshAuditFile.PROPERTY, "true");
        assertThatThrownBy(() -> FreshAuditFile.renew(() -> {}, 100)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("needs -Dtracegate.audit.path=");
        System.setProperty("tracegate.audit.path", dir.resolve("none.jsonl").toString());
        assertThatThrownBy(() -> FreshAuditFile.renew(() -> {}, 100)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("no audit file at");
    }
}
