package dev.tracegate.matchers.predicate;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One value, several spellings (trial5 findings): the hashed identifiers read a URL without its
 * scheme, a leading www., its host's case and one trailing slash, and find a domain with a path; the
 * whole-word provenance reads a URL without scheme and www. too, and finds an IBAN in groups (spaces,
 * no-break spaces, dashes) where it was written compact and the reverse.
 */
class ValueSpellingTest {

    @Test
    void aUrlHashesTheSameInEverySpelling() {
        long h = TextHash.of("evil.example/pay");
        for (String s : new String[] {"http://evil.example/pay", "https://evil.example/pay", "https://EVIL.example/pay/",
                "HTTPS://www.evil.example/pay", "evil.example/pay/", " http://evil.example/pay "}) {
            assertThat(TextHash.of(s)).as(s).isEqualTo(h);
            char[] cs = ("<" + s + ">").toCharArray();
            assertThat(TextHash.of(cs, 1, cs.length - 1)).as("chars of " + s).isEqualTo(h);
        }
        assertThat(TextHash.of("https://evil.example")).isEqualTo(TextHash.of("evil.example/"));
    }

    @Test
    void otherUrlsStayOtherValues() {
        long h = TextHash.of("https://evil.example/pay");
        assertThat(TextHash.of("https://evil.example/payroll")).isNotEqualTo(h);
        assertThat(TextHash.of("https://evil.example/pay//")).isNotEqualTo(h); // one trailing slash only
        assertThat(TextHash.of("https://evil.example/pay/x")).isNotEqualTo(h);
        assertThat(TextHash.of("ftp://evil.example/pay")).isNotEqualTo(h);
        assertThat(TextHash.of("www.com")).isNotEqualTo(TextHash.of("com")); // www. only when a domain remains
        assertThat(TextHash.of("notes/")).isNotEqualTo(TextHash.of("notes")); // not URL-shaped: hashed whole
    }

    @Test
    void aDomainWithAPathIsAnIdentifier() {
        assertThat(Identifiers.find("Details: evil.example/pay.")).containsExactly("evil.example/pay");
        assertThat(Identifiers.find("see notes/landlord.txt")).containsExactly("notes/landlord.txt");
        assertThat(Identifiers.find("and/or")).isEmpty();
        long[] out = new long[8];
        int n = Identifiers.scan("Details: evil.example/pay", out, 0);
        assertThat(java.util.Arrays.copyOf(out, n)).contains(TextHash.of("https://EVIL.example/pay/"));
    }

    @Test
    void theHashedIdentifiersFindAnIbanInGroupsHoweverSpaced() {
        long compact = TextHash.of("DE89370400440532013000");
        for (String t : new String[] {"Pay to DE89 3704 0044 0532 0130 00.", "Pay to DE89  3704  0044  0532  0130  00.",
                "Pay to DE89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000.", "Pay to de89 \u00A03704  0044 0532 0130 00.",
                "Pay to DE89-3704-0044-0532-0130-00."}) {
            long[] out = new long[16];
            int n = Identifiers.scan(t, out, 0);
            assertThat(java.util.Arrays.copyOf(out, n)).as(t).contains(compact);
        }
        // a phone number in groups takes one space (or a no-break space) between them; numbers in columns stay apart
        assertThat(Identifiers.find("call +1\u00A0415\u00A0555\u00A00100 now")).containsExactly("+1\u00A0415\u00A0555\u00A00100");
        assertThat(Identifiers.find("2024  12345  67890")).containsExactly("2024", "12345", "67890");
    }

    @Test
    void anIbanHasOneCompactSpelling() {
        assertThat(IbanSpelling.compact("de89370400440532013000")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de89 3704 0044 0532 0130 00")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("gb33 bukb 2020 1555 5555 55")).isEqualTo("gb33bukb20201555555555");
        assertThat(IbanSpelling.compact("de89  3704  0044  0532  0130  00")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de89-3704-0044-0532-0130-00")).isEqualTo("de89370400440532013000");
        // not groups of four: the IBAN when its check digits are right (a payee's parser drops the spaces), else no IBAN
        assertThat(IbanSpelling.compact("de89 3704 0044 0532 013 000")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de 89 3704 0044 0532 0130 00")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de89 3704 0044 0532 013 001")).isNull();
        assertThat(IbanSpelling.compact("de89 3704 0044 0532 0130 00 ")).isNull(); // folded values carry no trailing blank
        assertThat(IbanSpelling.compact("de89--3704 0044 0532 0130 00")).isEqualTo("de89370400440532013000");
        assertThat(IbanSpelling.compact("de89.3704.0044.0532.0130.00")).isNull(); // dots are no IBAN separator
        assertThat(IbanSpelling.compact("1234567890123456")).isNull(); // no country code
        assertThat(IbanSpelling.compact("abcdefghijklmnopq")).isNull(); // no check digits
        assertThat(IbanSpelling.compact("de89")).isNull();
    }

    @Test
    void anIbanOccursInATextInAnyGrouping() {
        String c = "de89370400440532013000";
        assertThat(IbanSpelling.occursIn("pay to iban de89 3704 0044 0532 0130 00 please.", c)).isTrue();
        assertThat(IbanSpelling.occursIn("pay to iban de89370400440532013000.", c)).isTrue();
        assertThat(IbanSpelling.occursIn("iban: de89-3704-0044-0532-0130-00", c)).isTrue();
        assertThat(IbanSpelling.occursIn("iban:\u00A0de89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000", c)).isTrue();
        assertThat(IbanSpelling.occursIn("de89  3704  0044  0532  0130  00", c)).isTrue();
        assertThat(IbanSpelling.occursIn("iban de89 3704 0044 0532 0130 001", c)).isFalse(); // a longer value
        assertThat(IbanSpelling.occursIn("xde89 3704 0044 0532 0130 00", c)).isFalse();
        assertThat(IbanSpelling.occursIn("de89 3704 0044 0532 0130 01 and de89 3704 0044 0532 0130 00", c)).isTrue();
        // split inside a group: the same chars, which a payee's parser reads as the same account (session 16)
        assertThat(IbanSpelling.occursIn("de89 37 04 0044 0532 0130 00", c)).isTrue();
    }

    @Test
    void wholeWordProvenanceMatchesAnIbanInGroupsAndCompact() {
        Provenance p = Provenance.builder().build();
        Sightings grouped = Sightings.EMPTY.output("c1", "Pay to IBAN DE89 3704 0044 0532 0130 00 please.", null, p);
        assertThat(grouped.untrusted("DE89370400440532013000", p)).isTrue();
        assertThat(grouped.untrusted("DE89370400440532013001", p)).isFalse();
        assertThat(grouped.untrusted("DE8937040044053201300", p)).isFalse();
        Sightings compact = Sightings.EMPTY.output("c1", "Pay to IBAN DE89370400440532013000 please.", null, p);
        assertThat(compact.untrusted("DE89 3704 0044 0532 0130 00", p)).isTrue();
        assertThat(compact.untrusted("DE89 3704 0044 0532 0130 01", p)).isFalse();
        // the user wrote it the other way: trusted
        assertThat(grouped.user("send it to DE89370400440532013000", p).untrusted("DE89370400440532013000", p)).isFalse();
        assertThat(compact.user("send to de89 3704 0044 0532 0130 00", p).untrusted("DE89 3704 0044 0532 0130 00", p)).isFalse();
    }

    @Test
    void wholeWordProvenanceMatchesAnIbanWhateverItsSeparators() {
        Provenance p = Provenance.builder().build();
        Sightings grouped = Sightings.EMPTY.output("c1", "Pay to IBAN DE89 3704 0044 0532 0130 00 please.", null, p);
        assertThat(grouped.untrusted("DE89  3704  0044  0532  0130  00", p)).isTrue();
        assertThat(grouped.untrusted("DE89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000", p)).isTrue();
        assertThat(grouped.untrusted("DE89-3704-0044-0532-0130-00", p)).isTrue();
        assertThat(grouped.untrusted("DE89-3704-0044-0532-0130-01", p)).isFalse();
        Sightings dashed = Sightings.EMPTY.output("c1", "IBAN: DE89-3704-0044-0532-0130-00", null, p);
        assertThat(dashed.untrusted("DE89370400440532013000", p)).isTrue();
        assertThat(dashed.user("to DE89 3704 0044 0532 0130 00", p).untrusted("DE89370400440532013000", p)).isFalse();
        Sightings nbsp = Sightings.EMPTY.output("c1", "IBAN:\u00A0DE89\u00A03704\u00A00044\u00A00532\u00A00130\u00A000", null, p);
        assertThat(nbsp.untrusted("DE89 3704 0044 0532 0130 00", p)).isTrue();
        // a whole field in another spelling is still that field
        Provenance fields = Provenance.builder().wholeFields(true).build();
        com.fasterxml.jackson.databind.JsonNode tree = Provenance.JSON_OUTPUTS.apply("{\"iban\": \"DE89-3704-0044-0532-0130-00\"}");
        Sightings field = Sightings.EMPTY.output("c1", "{\"iban\": \"DE89-3704-0044-0532-0130-00\"}", tree, fields);
        assertThat(field.untrusted("DE89370400440532013000", fields)).isFalse();
        assertThat(field.untrusted("DE89370400440532013000", p)).isTrue();
    }

    @Test
    void wholeWordProvenanceReadsAUrlWithoutItsWww() {
        Provenance p = Provenance.builder().build();
        Sightings bare = Sightings.EMPTY.output("c1", "Details at evil.example/pay", null, p);
        assertThat(bare.untrusted("https://www.evil.example/pay", p)).isTrue();
        assertThat(bare.untrusted("WWW.Evil.Example/pay/", p)).isTrue();
        assertThat(bare.untrusted("https://www.evil.example/payroll", p)).isFalse();
        Sightings www = Sightings.EMPTY.output("c1", "Details at https://www.evil.example/pay", null, p);
        assertThat(www.untrusted("evil.example/pay", p)).isTrue();
        assertThat(www.user("open evil.example/pay", p).untrusted("https://www.evil.example/pay", p)).isFalse();
        assertThat(bare.user("open www.evil.example/pay", p).untrusted("evil.example/pay", p)).isFalse();
        assertThat(Sightings.fold("www.com")).isEqualTo("www.com"); // www. only when a domain remains
        assertThat(Sightings.fold("https://WWW.shop.example/")).isEqualTo("shop.example");
    }

    private static final String IBAN = "[a-z]{2}[0-9]{2}[a-z0-9]{11,30}";
    /** Separators: white space as Java defines it (white space or space chars), NEL, and dashes. */
    private static final String SEP = "[\\s\\p{Z}\\u0085\\u001C-\\u001F-]+";

    /**
     * Oracle: the compact IBAN by patterns (groups of four, each boundary with or without separators; or separators
     * anywhere between its chars when its check digits are right, by BigInteger).
     */
    static String compactByPattern(String v) {
        String c = v.replaceAll(SEP, "");
        if (!c.matches(IBAN) || !v.matches("[a-z0-9]((" + SEP + ")?[a-z0-9])*")) return null;
        boolean fours = v.matches("[a-z0-9]{4}((" + SEP + ")?[a-z0-9]{4})*((" + SEP + ")?[a-z0-9]{1,4})?");
        return fours || ReferenceIdentifiers.validIban(c) ? c : null;
    }

    /** Oracle: a pattern for the IBAN's chars, optional separators between them, no letter or digit around. */
    static boolean occursByPattern(String text, String compact) {
        StringBuilder re = new StringBuilder("(?<![\\p{L}\\p{Nd}])");
        for (int i = 0; i < compact.length(); i++) {
            if (i > 0) re.append("(?:").append(SEP).append(")?");
            re.append(java.util.regex.Pattern.quote(compact.substring(i, i + 1)));
        }
        re.append("(?![\\p{L}\\p{Nd}])");
        return java.util.regex.Pattern.compile(re.toString()).matcher(text).find();
    }

    @Provide Arbitrary<String> ibanish() {
        Arbitrary<String> compact = Arbitraries.strings().withChars("de0189 -\u00A0\t\n\u2003").ofMinLength(0).ofMaxLength(44);
        Arbitrary<String> real = Arbitraries.strings().withChars("abz0129").ofMinLength(11).ofMaxLength(31)
                .map(t -> "de89" + t);
        Arbitrary<String> seps = Arbitraries.of("", " ", "  ", "-", "\u00A0", "\t", " - ", "--", "\n", "\u000B", "\f",
                "\u2003", "\u202F", "\u2007", "\u3000", "\u2028", " \r\n");
        Arbitrary<String> grouped = Combinators.combine(real, seps).as((t, sep) -> t.replaceAll("(.{4})(?=.)", "$1" + sep));
        // an IBAN with right check digits, separators at random places (a payee's parser drops them all)
        Arbitrary<String> valid = Arbitraries.strings().withChars("abz0129").ofMinLength(11).ofMaxLength(30).map(ValueSpellingTest::withCheck);
        Arbitrary<String> anywhere = Combinators.combine(valid, seps, Arbitraries.integers().between(1, 7))
                .as((t, sep, every) -> t.replaceAll("(.{" + every + "})(?=.)", "$1" + sep));
        return Arbitraries.oneOf(compact, real, grouped, valid, anywhere);
    }

    /** {@code de}, the check digits that make {@code bban} a valid IBAN, then {@code bban}. */
    static String withCheck(String bban) {
        for (int d = 0; d < 100; d++) {
            String iban = String.format("de%02d%s", d, bban);
            if (ReferenceIdentifiers.validIban(iban)) return iban;
        }
        throw new AssertionError(bban);
    }

    @Property(tries = 3000)
    void theCompactSpellingIsThePatternsOne(@ForAll("ibanish") String v) {
        assertThat(IbanSpelling.compact(v)).as("\"%s\"", v).isEqualTo(compactByPattern(v));
    }

    @Property(tries = 3000)
    void anIbanOccursWhereThePatternFindsIt(@ForAll("ibanish") String v, @ForAll("ibanish") String before,
                                            @ForAll("ibanish") String after) {
        String c = compactByPattern(v);
        if (c == null) c = "de89370400440532013000";
        String text = before + v + after;
        assertThat(IbanSpelling.occursIn(text, c)).as("\"%s\" in \"%s\"", c, text).isEqualTo(occursByPattern(text, c));
    }
}
