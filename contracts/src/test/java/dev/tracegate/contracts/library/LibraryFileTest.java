package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Reading a library file that is not text says so, with the path and a hint (hardening finding 14). */
class LibraryFileTest {
    @Test
    void aBinaryFileIsReportedAsNotUtf8Text(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("broken.yaml");
        Files.write(f, new byte[] {'l', 'i', 'b', (byte) 0xC3, (byte) 0x28, (byte) 0xFF, 0, 1, 2});
        assertThatThrownBy(() -> Library.read(f.toString(), null))
                .isInstanceOf(LibraryException.class)
                .hasMessageContaining(f.toString())
                .hasMessageContaining("is not UTF-8 text")
                .hasMessageContaining("YAML text file in UTF-8");
    }

    @Test
    void aMissingFileNamesTheBuiltIns(@TempDir Path dir) {
        Path f = dir.resolve("absent.yaml");
        assertThatThrownBy(() -> Library.read(f.toString(), null))
                .isInstanceOf(LibraryException.class)
                .hasMessageContaining("no such library file")
                .hasMessageContaining("gdpr");
    }
}
