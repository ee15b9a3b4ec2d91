package dev.tracegate.contracts.library;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The did-you-mean distance counts a swap of two adjacent letters as one edit (trial18 repro 07). */
class SpellingTest {

    @Test
    void aSwapIsOneEdit() {
        assertThat(Spelling.distance("cuont", "count")).isEqualTo(1);
        assertThat(Spelling.distance("conut", "count")).isEqualTo(1);
        assertThat(Spelling.distance("ab", "ba")).isEqualTo(1);
        assertThat(Spelling.distance("cout", "count")).isEqualTo(1);
        assertThat(Spelling.distance("count", "count")).isZero();
        assertThat(Spelling.distance("", "abc")).isEqualTo(3);
        assertThat(Spelling.distance("kitten", "sitting")).isEqualTo(3);
        // restricted: a swapped pair is not edited again (ca -> ac -> abc would be 2)
        assertThat(Spelling.distance("ca", "abc")).isEqualTo(3);
    }

    /** Oracle: the recursive definition of the optimal string alignment distance, on the strings' ends. */
    private static int osa(String a, String b) {
        if (a.isEmpty()) return b.length();
        if (b.isEmpty()) return a.length();
        int i = a.length(), j = b.length();
        int best = Math.min(osa(a.substring(0, i - 1), b) + 1, osa(a, b.substring(0, j - 1)) + 1);
        best = Math.min(best, osa(a.substring(0, i - 1), b.substring(0, j - 1)) + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1));
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
            best = Math.min(best, osa(a.substring(0, i - 2), b.substring(0, j - 2)) + 1);
        }
        return best;
    }

    @Property(tries = 2000)
    void agreesWithTheRecursiveDefinition(@ForAll("shortWords") String a, @ForAll("shortWords") String b) {
        assertThat(Spelling.distance(a, b)).as("%s / %s", a, b).isEqualTo(osa(a, b));
        assertThat(Spelling.distance(a, b)).isEqualTo(Spelling.distance(b, a));
    }

    @Provide
    Arbitrary<String> shortWords() {
        return Arbitraries.strings().withChars("abc").ofMinLength(0).ofMaxLength(6);
    }
}
