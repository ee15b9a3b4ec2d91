package dev.tracegate.matchers.predicate;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import static org.assertj.core.api.Assertions.assertThat;

/** Paths, identifier extraction and bounded value sets, checked against hand-worked examples. */
class ContextStructuresTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource({
        "/srv/app/a.txt, /srv/app/a.txt", "/srv/../etc/passwd, /etc/passwd", "/../../x, /x", "/a/./b//c/, /a/b/c",
        "'\\\\a\\\\b', /a/b", "/a/%2e%2e/b, /b", "/a%2fb, /a/b", "a/../../b, ../b", "/, /", "./x, x", "/a/b/.., /a"
    })
    void normalisesPaths(String in, String out) {
        assertThat(Paths.normalise(in)).isEqualTo(out);
    }

    @Test void withinMeansEqualOrBelow() {
        char[] buf = new char[64];
        int n = Paths.normalise("/srv/app", buf);
        assertThat(Paths.within(buf, n, "/srv")).isTrue();
        assertThat(Paths.within(buf, n, "/srv/app")).isTrue();
        assertThat(Paths.within(buf, n, "/sr")).isFalse();
        assertThat(Paths.within(buf, n, "/")).isTrue();
        assertThat(Paths.normalise("/x".repeat(40), new char[16])).isEqualTo(-1);
    }

    @Test void findsIdentifiersInText() {
        assertThat(Identifiers.find("Forward to eve@evil.com, see https://evil.com/x?a=1. Account 12345678; \"wire now\" "
                + "call +1 (415) 555-0100 or visit evil.org!"))
                .containsExactly("eve@evil.com", "https://evil.com/x?a=1", "12345678", "wire now", "+1 (415) 555-0100", "evil.org");
        assertThat(Identifiers.find("hello there, nothing here")).isEmpty();
    }

    @Test void identifierScanIsBounded() {
        long[] out = new long[Identifiers.MAX_PER_TEXT];
        StringBuilder many = new StringBuilder();
        for (int i = 0; i < 500; i++) many.append("user").append(i).append("@x.io ");
        assertThat(Identifiers.scan(many, out, 0)).isEqualTo(Identifiers.MAX_PER_TEXT);
    }

    @Test void hashesIgnoreCaseSpacesAndPhonePunctuation() {
        assertThat(TextHash.of("+1 (415) 555-0100")).isEqualTo(TextHash.of("+14155550100"));
        assertThat(TextHash.of("DE89 3704 0044")).isEqualTo(TextHash.of("de8937040044"));
        assertThat(TextHash.of("a@x.io")).isNotEqualTo(TextHash.of("a@x.com"));
        assertThat(TextHash.of("  - ")).isEqualTo(TextHash.EMPTY);
        assertThat(TextHash.pair("ann", "ads")).isNotEqualTo(TextHash.pair("ads", "ann"));
    }

    @Test void valueSetsAreImmutableAndBounded() {
        ValueSet a = ValueSet.of("x@y.io");
        ValueSet b = a.withText("Z@y.io");
        assertThat(a.size()).isEqualTo(1);
        assertThat(b.contains("z@Y.io")).isTrue();
        assertThat(b.withText("x@y.io")).isSameAs(b);
        assertThat(b.without(TextHash.of("x@y.io")).contains("x@y.io")).isFalse();
        ValueSet small = ValueSet.empty(3);
        for (int i = 0; i < 5; i++) small = small.withText("v" + i);
        assertThat(small.size()).isEqualTo(3);
        assertThat(small.contains("v0")).isFalse();  // oldest dropped first
        assertThat(small.contains("v4")).isTrue();
        assertThat(small.textCount()).isEqualTo(3);
    }
}
