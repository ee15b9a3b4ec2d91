package dev.tracegate.matchers.predicate;

import com.google.re2j.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The literal fast path answers exactly as RE2/J's unanchored find (the oracle). */
class LiteralPropertyTest {
    @Provide Arbitrary<String> pattern() {
        Arbitrary<String> body = Arbitraries.strings().withChars("abAB.-@ \\$^é").ofMaxLength(5);
        return Arbitraries.of("", "(?i)").flatMap(flag -> Arbitraries.of("", "^").flatMap(start -> body.flatMap(b ->
                Arbitraries.of("", "$").map(end -> flag + start + b + end))));
    }

    @Property(tries = 2000)
    void agreesWithRe2j(@ForAll("pattern") String pattern, @ForAll("text") String text) {
        Pattern re;
        try {
            re = Pattern.compile(pattern);
        } catch (RuntimeException invalid) {
            return; // the compiler rejects it before a literal is ever built
        }
        Literal lit = Literal.of(pattern);
        if (lit == null) return;
        assertThat(lit.find(text)).as("/%s/ on \"%s\"", pattern, text).isEqualTo(re.matcher(text).find());
    }

    @Provide Arbitrary<String> text() { return Arbitraries.strings().withChars("abAB.-@ $^éÉ\n").ofMaxLength(8); }

    @Test void recognisesOnlyPlainText() {
        assertThat(Literal.of("@evil\\.com$")).isNotNull();
        assertThat(Literal.of("(?i)ignore previous")).isNotNull();
        assertThat(Literal.of("a.b")).isNull();
        assertThat(Literal.of("\\d+")).isNull();
        assertThat(Literal.of("a|b")).isNull();
        assertThat(Literal.of("(?i)é")).isNull();
    }

    @Test void numberHashesEqualTextHashes() {
        for (long v : new long[] {0, 7, 10, 99, 12345, -42, Long.MAX_VALUE, Long.MIN_VALUE, 1_000_000_007L}) {
            assertThat(TextHash.of(v)).as("%d", v).isEqualTo(TextHash.of(Long.toString(v)));
        }
    }
}
