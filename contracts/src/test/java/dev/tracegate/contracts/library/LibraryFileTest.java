package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Reading a library file that is not text says so, with the path and a hint (hardening finding 14); one beyond the size
 * limit is refused before it is parsed, naming the limit (trial14 huge-library-scalar-slow-reject).
 */
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

    private static final String CONTRACT = "library: hg\ncontracts:\n  - id: hg.never\n    guarantee: G !call(forbidden)\n    message: ";

    @Test
    void aLibraryBeyondThreeMebibytesOfTextIsRefusedNamingTheLimitNotTheIndentation(@TempDir Path dir) throws Exception {
        // one long message: the YAML reader took seconds per MB squared to reach its own limit, then blamed the indentation
        Path f = dir.resolve("big.yaml");
        Files.writeString(f, CONTRACT + "m".repeat(4_000_000) + "\n");
        assertThatThrownBy(() -> Library.read(f.toString(), null))
                .isInstanceOf(LibraryException.class)
                .hasMessageStartingWith(f + ": the library is " + String.format(java.util.Locale.ROOT, "%,d", CONTRACT.length() + 4_000_001)
                        + " characters long;"
                        + " a library file holds at most 3 MiB of text (3,145,728 characters)")
                .hasMessageContaining("hint: split it into several library files")
                .hasMessageNotContaining("indentation");
    }

    @Test
    void aFileOfMoreBytesThanThreeMebibytesOfCharactersCanTakeIsRefusedUnread(@TempDir Path dir) throws Exception {
        // comments the YAML reader itself would skip: the bound is on the file, whatever it holds
        Path f = dir.resolve("padded.yaml");
        String comments = ("#" + "c".repeat(99) + "\n").repeat(130_000); // 13,000,000 bytes
        Files.writeString(f, CONTRACT + "hi\n" + comments);
        assertThatThrownBy(() -> Library.read(f.toString(), null))
                .isInstanceOf(LibraryException.class)
                .hasMessageStartingWith(f + ": the library is " + String.format(java.util.Locale.ROOT, "%,d", Files.size(f))
                        + " bytes long; a library file holds at most 3 MiB of text");
    }

    @Test
    void aLibraryOfExactlyThreeMebibytesOfCharactersLoads(@TempDir Path dir) throws Exception {
        // counted in characters (code points), not UTF-16 units: the comment is of supplementary characters (two units each)
        String head = CONTRACT + "hi\n";
        String line = "#" + "\uD83D\uDE00".repeat(62) + "\n"; // 64 characters, 126 UTF-16 units
        int lines = (YamlReader.MAX_CODE_POINTS - head.length()) / 64;
        String text = head + line.repeat(lines) + "#".repeat(YamlReader.MAX_CODE_POINTS - head.length() - 64 * lines);
        assertThat(text.codePointCount(0, text.length())).isEqualTo(3 * 1024 * 1024);
        Path f = dir.resolve("full.yaml");
        Files.writeString(f, text);
        assertThat(Library.read(f.toString(), null).contracts()).hasSize(1);
        Files.writeString(f, text + "#");
        assertThatThrownBy(() -> Library.read(f.toString(), null)).hasMessageContaining("3,145,729 characters long");
    }

    /**
     * trial36 07: check d.yaml ./d.yaml (or its absolute path) said "contract id 'd.1' is already defined in d.yaml:3 ...
     * rename one", the wrong fix (renamed ids would load every contract twice); the same file under any spelling is
     * "loaded twice". Two files that share an id still get the rename advice.
     */
    @Test
    void oneFileUnderTwoSpellingsIsLoadedTwice(@TempDir Path dir) throws Exception {
        Path d = Files.writeString(dir.resolve("d.yaml"), "library: d\ncontracts:\n  - id: d.1\n    guarantee: G !call(x)\n");
        for (String other : new String[] {dir.resolve(".").resolve("d.yaml").toString(), dir.resolve("sub").resolve("..").resolve("d.yaml").toString()}) {
            Files.createDirectories(dir.resolve("sub"));
            assertThatThrownBy(() -> Library.compile(java.util.List.of(Library.read(d.toString(), null), Library.read(other, null))))
                    .isInstanceOf(LibraryException.class).as(other)
                    .hasMessageContaining("is loaded twice (also as " + d + "; its contract 'd.1' comes again)")
                    .hasMessageContaining("name each library once").hasMessageNotContaining("rename one");
        }
        Path copy = Files.copy(d, dir.resolve("copy.yaml"));
        assertThatThrownBy(() -> Library.compile(java.util.List.of(Library.read(d.toString(), null), Library.read(copy.toString(), null))))
                .isInstanceOf(LibraryException.class).hasMessageContaining("is already defined in").hasMessageContaining("rename one");
    }
}
