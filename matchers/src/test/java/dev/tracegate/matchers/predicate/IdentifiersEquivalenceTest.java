package dev.tracegate.matchers.predicate;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.Arrays;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The single-pass identifier scan finds exactly the values, in the same order, as the scan it
 * replaced ({@link ReferenceIdentifiers}, the oracle), on texts built from the pieces values are made
 * of (digits in groups, e-mail and URL marks, quotes, brackets, non-ASCII letters and spaces).
 */
class IdentifiersEquivalenceTest {
    private static final String[] PIECES = {
        "a", "Z", "é", "ß", " ", "  ", "\u00A0", "\t", "\n", "0", "12", "345", "2024", "+", "-", "(", ")", ".", ":", "//", "@",
        "www.", "http://", "\"", "“", "”", "«", "»", "`", "'", ",", ";", "[", "]", "{", "}", "|", "*", "!", "?", "_",
        "A-1234", "NL91 ABNA 0417 1643 00", "+1 (415) 555-0100", "jane@example.com", "example.org", "ceramic", "Lyon",
        "{\"sku\":\"SKU-1001\",\"qty\":2}", "1 2 3 4 5 6 7", "AB12 CD", "x.co", "\uD83D\uDE00",
        "/", "https://", "HTTP://WWW.", "evil.example/pay", "EVIL.example/payroll/", "a.b/c", ":8080",
        "DE89", "de89", "3704", "0044\u00A0", "DE89\u00A0\u00A03704", "BUKB", "  \u00A0",
        "\u000B", "\f", "\u2003", "\u202F", "\u2007", "\u3000", "\u2028", "\u0085", "\r\n", "\t\t",
        "\u3002", "\uFF0E", "\uFF45", "\uFF20", "\uFF02", "\u24D4", "\u00B2", "\uFF10\uFF11\uFF12\uFF13",
        "DE89 3704 0044\n0532 0130 00", "BE68 5390\n0754 7034", "\n2024", "0532\u000B", "GB82 WEST 1234\n5698 7654 32",
        "=", "&", "KEY=", "\uFF1A", "sk-live-4f9a8b7c6d5e", "a=1&k=", ":5432",
        "请", "谢谢", "б", "é", "bob@corp.example", "@", "x.example.", "\uD83D\uDE00", "/",
    };

    @Provide Arbitrary<String> text() {
        return Arbitraries.of(PIECES).list().ofMaxSize(40).map(l -> String.join("", l));
    }

    @Property(tries = 3000)
    void sameValuesAsTheReferenceScan(@ForAll("text") String text, @ForAll @IntRange(min = 1, max = 70) int capacity,
                                      @ForAll @IntRange(min = 0, max = 2) int prefilled) {
        int start = Math.min(prefilled, capacity - 1);
        long[] expected = new long[capacity];
        long[] actual = new long[capacity];
        for (int k = 0; k < start; k++) expected[k] = actual[k] = 1000 + k;
        int ne = ReferenceIdentifiers.scan(text, expected, start);
        int na = Identifiers.scan(text, actual, start);
        assertThat(na).as("count for \"%s\"", text).isEqualTo(ne);
        assertThat(Arrays.copyOf(actual, na)).as("values for \"%s\"", text).containsExactly(Arrays.copyOf(expected, ne));
    }

    /**
     * Pieces around what the scan skips: plain words (ASCII chars that are no digit, quote, '@', '.', ':' or
     * bracket) of any length and mix (token chars like '-' '/' '_' '#' and non-token ones like ',' ';' '\''
     * space), then right before or after a digit, mark, quote, bracket or non-ASCII char, at either end.
     */
    private static final String[] AROUND_PLAIN = {
        "word", "ceramic", "x", "ab-cd", "a_b/c#d", "+", "-", "=", "&", "%", "!", "?", "*", "~", " ", "  ", ",", ";", "'", "<", ">",
        "[", "]", "{", "}", "|", "\t", "\n", "0", "7", "12", "2024", "555 0100", "@", ".", ":", "://", "www.", "\"", "`", "(", ")",
        "é", "café", "\u00A0", "\u2028", "\u3000", "“", "”", "«", "»", "\uD83D\uDE00", "Ω", "ﬁ", "İ",
    };

    @Provide Arbitrary<String> aroundPlain() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(AROUND_PLAIN), Arbitraries.of(PIECES),
                Arbitraries.strings().withCharRange(' ', '~').ofMaxLength(12),
                Arbitraries.strings().withChars("abcXYZ-_/ ,;'").ofMinLength(20).ofMaxLength(300));
        return piece.list().ofMaxSize(30).map(l -> String.join("", l));
    }

    @Property(tries = 3000)
    void skippingPlainCharsFindsTheReferenceValues(@ForAll("aroundPlain") String text,
                                                   @ForAll @IntRange(min = 1, max = 70) int capacity) {
        long[] expected = new long[capacity];
        long[] actual = new long[capacity];
        int ne = ReferenceIdentifiers.scan(text, expected, 0);
        int na = Identifiers.scan(text, actual, 0);
        assertThat(Arrays.copyOf(actual, na)).as("values for \"%s\"", text).containsExactly(Arrays.copyOf(expected, ne));
        // a CharSequence that is no String takes the copying path of its own
        int nb = Identifiers.scan(new StringBuilder(text), actual, 0);
        assertThat(Arrays.copyOf(actual, nb)).as("values for builder \"%s\"", text).containsExactly(Arrays.copyOf(expected, ne));
    }

    /**
     * Pieces of records that repeat (JSON keys and values, quoted strings with other quotes, numbers and groups
     * inside), so a quoted string often comes back: the scan passes over a repeated one's chars without walking
     * them again, which must find what the walk would.
     */
    private static final String[] RECORD_PIECES = {
        "{", "}", "[", "]", ",", ":", " ", "\"", "\"sku\"", "\"name\"", "\"SKU-1001\"", "\"SKU-1002\"", "\"ceramic mug, blue, 350 ml\"",
        "\"a`bc`d\"", "`a \"bcd\" e`", "\"x “yyy” z\"", "“q \"rrr\" s”", "«ttt»", "\"DE89 3704 0044 0532 0130 00\"", "\"+1 (415) 555-0100\"",
        "\"jane@example.com\"", "\"www.evil.example/pay\"", "\"1234\"", "12.90", "7", "\"ab\"", "\"abc\"", "\"ab“c\"", "\"12 345 6789\"",
        "\"é.fr\"", "\"x.co\" ", "\"“\"",
    };

    @Provide Arbitrary<String> records() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(RECORD_PIECES), Arbitraries.of(RECORD_PIECES), Arbitraries.of(PIECES));
        return piece.list().ofMaxSize(80).map(l -> String.join("", l));
    }

    @Property(tries = 3000)
    void repeatedQuotedStringsFindTheReferenceValues(@ForAll("records") String text,
                                                     @ForAll @IntRange(min = 1, max = 70) int capacity) {
        long[] expected = new long[capacity];
        long[] actual = new long[capacity];
        int ne = ReferenceIdentifiers.scan(text, expected, 0);
        int na = Identifiers.scan(text, actual, 0);
        assertThat(Arrays.copyOf(actual, na)).as("values for \"%s\"", text).containsExactly(Arrays.copyOf(expected, ne));
    }

    @Property(tries = 2000)
    void textHashOfCharsIsTextHashOfTheString(@ForAll("aroundPlain") String text, @ForAll @IntRange(min = 0, max = 400) int from,
                                              @ForAll @IntRange(min = 0, max = 400) int to) {
        int a = Math.min(from, text.length()), b = Math.max(a, Math.min(to, text.length()));
        assertThat(TextHash.of(text.toCharArray(), a, b)).as("\"%s\" [%d, %d)", text, a, b).isEqualTo(TextHash.of(text, a, b));
    }

    @Property(tries = 2000)
    void textHashFoldsAsCharacterToLowerCase(@ForAll("text") String text) {
        // the hash as it was before its ASCII fast path: every char not ignored, folded by Character.toLowerCase,
        // over the text a URL-shaped value keeps (urlForm, written with String operations and patterns)
        long h = 0xcbf29ce484222325L;
        boolean any = false;
        for (char c : urlForm(CompatTest.nfkcAscii(text)).toCharArray()) {
            if (TextHash.ignored(c)) continue;
            h = (h ^ Character.toLowerCase(c)) * 0x100000001b3L;
            any = true;
        }
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        long expected = !any ? TextHash.EMPTY : h == TextHash.EMPTY ? 1 : h;
        assertThat(TextHash.of(text)).as("\"%s\"", text).isEqualTo(expected);
    }

    /**
     * Oracle of the URL spelling TextHash ignores: a value with an http(s) scheme, or whose text up to
     * the first '/' is a domain (no '@' or white space, a dot then 2+ letters, optional :port), loses
     * the scheme, a leading "www." when its host keeps a dot, and one trailing '/'.
     */
    static String urlForm(String text) {
        int a = 0, b = text.length();
        while (a < b && TextHash.ignored(text.charAt(a))) a++;
        while (b > a && TextHash.ignored(text.charAt(b - 1))) b--;
        String t = text.substring(a, b);
        if (t.length() < 3) return text;
        java.util.regex.Matcher scheme = java.util.regex.Pattern.compile("(?i)^https?://").matcher(t);
        boolean hasScheme = scheme.find();
        if (hasScheme) t = t.substring(scheme.end());
        int slash = t.indexOf('/');
        String host = slash < 0 ? t : t.substring(0, slash);
        if (host.matches("(?s).*[@\\s\\p{Z}\\u0085\\u001C-\\u001F].*")) return hasScheme ? t : text; // white space: Java's
        if (!hasScheme && !host.matches("(?s).+\\.\\p{L}{2,}(:[^.]*)?")) return text;
        if (host.chars().filter(c -> c == '.').count() >= 2 && host.regionMatches(true, 0, "www.", 0, 4)) t = t.substring(4);
        if (t.endsWith("/")) t = t.substring(0, t.length() - 1);
        return t;
    }
}
