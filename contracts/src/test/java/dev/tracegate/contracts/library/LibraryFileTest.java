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

    @Test
    void aMissingFileIsReportedAtTheEntryThatNamesItWithTheNearestFile(@TempDir Path dir) throws java.io.IOException {
        java.nio.file.Files.writeString(dir.resolve("shop.yaml"), "library: shop\ncontracts:\n  - id: s.a\n    guarantee: G !call(x)\n");
        assertThatThrownBy(() -> Library.load(java.util.List.of("gdpr", "shop.yml"), dir,
                s -> s.equals("shop.yml") ? "tracegate.yaml:2:19" : null))
                .isInstanceOf(LibraryException.class)
                .hasMessage("tracegate.yaml:2:19: the libraries entry 'shop.yml' is no file: " + dir.resolve("shop.yml") + " does not exist\n"
                        + "  hint: did you mean 'shop.yaml'? give a path to a .yaml file (a relative path is read from " + dir
                        + "), or a built-in name: gdpr, injection, sop-refund, temporal-classes");
        // a misspelt built-in name is suggested too, and without a place the file is named as before
        assertThatThrownBy(() -> Library.load(java.util.List.of("gdrp"), dir))
                .hasMessage(dir.resolve("gdrp") + ": no such library file\n"
                        + "  hint: did you mean 'gdpr'? give a path to a .yaml file (a relative path is read from " + dir
                        + "), or a built-in name: gdpr, injection, sop-refund, temporal-classes");
    }
}
