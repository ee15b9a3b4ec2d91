package dev.tracegate.contracts.fuzz;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;
import dev.tracegate.contracts.library.LibraryReader;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Regression test of a fuzzing finding (found by {@link LibraryFuzzTest#longRun}, fixed): a blank
 * name in a library section used to pass {@link LibraryReader#read} and escape {@link Library#compile}
 * as the IllegalArgumentException of the matchers' Policy/Latch builders, without file or line;
 * LibraryReader now rejects blank names with a {@link LibraryException} at their place.
 */
class BlankNamesTest {
    private static final String BASE = "library: x\ncontracts:\n  - id: a\n    guarantee: G !call(x)\n";

    @ParameterizedTest
    @ValueSource(strings = {
        "context:\n  - on: {kind: RETURN, tool: t}\n    set: \"\"\n",
        "context:\n  - on: {kind: RETURN, tool: t}\n    add: \" \"\n",
        "injection:\n  side-effecting:\n    \"\": [to]\n",
        "gdpr:\n  purposes:\n    \"\": [email]\n",
        "gdpr:\n  consent-tools:\n    \"\": {subject: s, purposes: p}\n",
        "gdpr:\n  erasure-tools:\n    \"\": {subject: s}\n",
        "gdpr:\n  fields:\n    t:\n      \"\": email\n",
        "gdpr:\n  subject-fields: [\"\"]\n",
        "permissions: [\"\"]\n",
        // finding 10 (long library fuzz run): an empty argument path in a context value
        "context:\n  - on: {kind: RETURN, tool: t}\n    set: k\n    value: arg()\n",
        "context:\n  - on: {kind: RETURN, tool: t}\n    set: k\n    value: arg(.)\n",
        "context:\n  - on: {kind: RETURN, tool: t}\n    set: k\n    value: arg(a..b)\n"})
    void aBlankNameIsALibraryExceptionWithItsPlace(String section) {
        String yaml = BASE + section;
        assertThatThrownBy(() -> Library.compile(List.of(LibraryReader.read("f.yaml", yaml))))
                .isInstanceOf(LibraryException.class).hasMessageStartingWith("f.yaml:");
    }
}
