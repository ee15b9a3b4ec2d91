package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The loader's error for a bare hyphenated tool name ({@code call(send-email)}): where, the parser's advice to quote the
 * name with the atom as it is written, and for a formula in a YAML double-quoted scalar how those quotes are written
 * there; the library written so loads.
 */
class HyphenatedToolNameTest {

    private static String lib(String guarantee) {
        return "library: t\ncontracts:\n  - id: t.mail\n    guarantee: " + guarantee + "\n    message: m\n";
    }

    @Test
    void theLoaderSaysToQuoteTheNameAndHowInTheScalarUsed() {
        LibraryException plain = catchThrowableOfType(LibraryException.class,
                () -> LibraryReader.read("lib.yaml", lib("G(call(send-email) -> O user)")));
        assertThat(plain.getMessage()).startsWith("lib.yaml:4:27: in formula 'G(call(send-email) -> O user)': unexpected character"
                + " '-', expected ',' or ')' ('send-email' has a '-', which ends a name in a formula;")
                .contains("is written in double quotes: call(\"send-email\"))")
                .doesNotContain("YAML double-quoted");
        LibrarySpec fixed = LibraryReader.read("lib.yaml", lib("G(call(\"send-email\") -> O user)"));
        assertThat(fixed.contracts()).hasSize(1);

        LibraryException quoted = catchThrowableOfType(LibraryException.class,
                () -> LibraryReader.read("lib.yaml", lib("\"G(call(send-email) -> O user)\"")));
        assertThat(quoted.hint()).startsWith("this formula is a YAML double-quoted scalar, so each quote around the name is"
                + " written \\\" inside it");
        assertThat(Library.compile(List.of(LibraryReader.read("lib.yaml", lib("\"G(call(\\\"send-email\\\") -> O user)\"")))).info())
                .hasSize(1);
    }
}
