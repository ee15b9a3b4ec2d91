package dev.tracegate.matchers.pii;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The faster extractor reports the same spans, in the same order, as the extractor it replaced
 * ({@link ReferenceDataCategoryExtractor}, the oracle), on the labelled fixture values and on texts
 * that splice fixture values, detector keywords, digits and punctuation together with case changes.
 */
class ExtractorEquivalenceTest {
    private static final List<String> VALUES = fixtureValues();
    private static final String[] GLUE = {
        " ", ", ", "; ", ": ", "\n", "\"", "{\"k\":\"", "\"}", "(", ")", "-", ".", "/", "#", "+", "v", "version ", "born ", "DOB: ",
        "phone ", "tel. ", "call me at ", "order ", "ISBN ", "SSN ", "social security ", "née ", "geb. ", "P.O. Box ", "PO box ",
        "Straße ", "strasse ", "Via ", "rue ", "Street", " St.", ", CA ", "March ", "sept. ", "12th ", "1985", "03/12/", "12.03.",
        "technical debt", "DEBT", "Diabetes", "blood Pressure", "MEDICATIONS", "\u212Aelvin", "\u0130stanbul", "é", "ß", "0", "7",
        "12", "345", "6789", "4111", "::", "fe80::1", "192.168.", "NL", "GB82", " WEST ",
    };

    @Provide Arbitrary<String> text() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(VALUES), Arbitraries.of(GLUE), Arbitraries.of(GLUE));
        Arbitrary<String> joined = piece.list().ofMaxSize(12).map(l -> String.join("", l));
        return Arbitraries.oneOf(joined, joined, joined.map(String::toUpperCase), joined.map(String::toLowerCase),
                joined.map(t -> t.replace(' ', '\u00A0')));
    }

    @Property(tries = 4000)
    void sameSpansAsTheReferenceExtractor(@ForAll("text") String text) {
        assertThat(DataCategoryExtractor.INSTANCE.spans(text)).as("\"%s\"", text)
                .containsExactlyElementsOf(ReferenceDataCategoryExtractor.INSTANCE.spans(text));
    }

    /**
     * Pieces around what the mask path skips: lowercase words that begin (or almost begin) a term or a month
     * name, cut after every letter, IBANs and PO boxes in lowercase, chars that case-map to ASCII letters
     * (dotless i, long s, Kelvin sign), numbers of every length a detector counts on next to quotes, brackets
     * and separators, and runs of hex digits and colons just short of and at an IPv6
     * address's seven colons or two in a row, next to JSON's colons.
     */
    private static final String[] AROUND_SKIPS = {
        "d", "di", "dia", "diab", "diabetes", "deb", "debt", "technical ", "ma", "mar", "marc", "march", "may", "se", "sep", "sept",
        "sept.", "ju", "jun", "june", "in", "inc", "income", "insulin", "the", "therapist", "an", "and", "anx", "wa", "wag", "wages",
        "p", "po", "po box 12", "p.o. box 7", "pO Box 3", "gb82 west 1234 5698 7654 32", "gb82", "de89370400440532013000", "nl91abna0417164300",
        "\u0131ban", "\u017Fept", "\u212Aelvin", "ma\u0131", "\u00E9t\u00E9", " ", "  ", ", ", "\n", "12", "1985", "born ", "1", "7",
        "1:2:3:4:5:6:7:8", "1:2:3:4:5:6", "a:b:c:d:e:f:1", "fe80::", "::1", ":", "::", ":::", "{\"k\":\"v\"}", "\":\"", "\":12,", "abc:",
        "2001:db8:85a3:0:0:8a2e:370:7334", "g:h:i:j:k:l:m:n",
        "123", "12345", "12345678", "123456789", "1234567890", "12345678Z", "X1234567L", "1st", "2nd", "12th", "221B", "\"", "}", ")", "]",
        "-", "/", ".", "1.", "12.", "\u00B2", "\u0661\u0662",
    };

    @Provide Arbitrary<String> aroundSkips() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(AROUND_SKIPS), Arbitraries.of(AROUND_SKIPS), Arbitraries.of(GLUE),
                Arbitraries.of(VALUES), Arbitraries.strings().withChars("abcdef0123456789: ").ofMaxLength(24));
        Arbitrary<String> joined = piece.list().ofMaxSize(14).map(l -> String.join("", l));
        return Arbitraries.oneOf(joined, joined, joined.map(String::toUpperCase));
    }

    @Property(tries = 4000)
    void skipsLoseNoSpanOfTheReferenceExtractor(@ForAll("aroundSkips") String text) {
        List<CategorySpan> expected = ReferenceDataCategoryExtractor.INSTANCE.spans(text);
        long mask = 0;
        for (CategorySpan sp : expected) mask |= sp.category().bit();
        assertThat(DataCategoryExtractor.INSTANCE.spans(text)).as("\"%s\"", text).containsExactlyElementsOf(expected);
        assertThat(sorted(fused(text))).as("fused \"%s\"", text).containsExactlyElementsOf(sorted(expected));
        assertThat(DataCategoryExtractor.INSTANCE.mask(text, SCRATCH)).as("mask \"%s\"", text).isEqualTo(mask);
    }

    private static final SpanSink.Mask SCRATCH = new SpanSink.Mask();

    /** The grounding's mask (one reused scratch, detectors of already known categories left out) is the reference's categories. */
    @Property(tries = 4000)
    void sameMaskAsTheReferenceExtractor(@ForAll("text") String text, @ForAll long known) {
        long expected = 0;
        for (CategorySpan sp : ReferenceDataCategoryExtractor.INSTANCE.spans(text)) expected |= sp.category().bit();
        long all = (1L << DataCategory.values().length) - 1;
        long k = known & all & (known >>> 17); // about one category in four known
        assertThat(DataCategoryExtractor.INSTANCE.mask(text, SCRATCH)).as("\"%s\"", text).isEqualTo(expected);
        assertThat(k | DataCategoryExtractor.INSTANCE.mask(text, SCRATCH, k)).as("\"%s\" knowing %s", text, k).isEqualTo(k | expected);
    }

    private static final String[] NAME_PARTS = {"email", "Email", "EMAIL", "address", "Address", "mac", "ip", "IP", "date", "Of", "of",
        "birth", "Birth", "dob", "DOB", "phone", "Number", "card", "iban", "hotel", "pan", "cake", "customer", "_", "-", ".", " ", "1",
        "x", "ü", "É", "ß", "\u0130", "street", "Zip", "code", "social", "Security", "number"};

    @Provide Arbitrary<String> fieldName() {
        return Arbitraries.oneOf(Arbitraries.of(NAME_PARTS).list().ofMaxSize(6).map(l -> String.join("", l)),
                Arbitraries.strings().withChars("aZé_-1 .Ö").ofMaxLength(30));
    }

    /** Field-name hints: the reference's answer for every name (the word starts are now found inline). */
    @Property(tries = 3000)
    void sameFieldHintAsTheReferenceExtractor(@ForAll("fieldName") String name) {
        assertThat(DataCategoryExtractor.INSTANCE.fieldHint(name)).as("\"%s\"", name)
                .isEqualTo(ReferenceDataCategoryExtractor.INSTANCE.fieldHint(name));
    }

    /**
     * The mask path walks the word starts once for five detectors (fused); it finds exactly the spans the
     * detector-by-detector walk of spans() finds, only in another order.
     */
    @Property(tries = 4000)
    void fusedWalkFindsTheSpansOfTheDetectorByDetectorWalk(@ForAll("text") String text) {
        assertThat(sorted(fused(text))).as("\"%s\"", text).containsExactlyElementsOf(sorted(DataCategoryExtractor.INSTANCE.spans(text)));
    }

    @Test void fusedWalkOnEveryFixtureValue() {
        for (String v : VALUES) {
            assertThat(sorted(fused(v))).as("\"%s\"", v).containsExactlyElementsOf(sorted(DataCategoryExtractor.INSTANCE.spans(v)));
        }
    }

    private static List<CategorySpan> fused(String text) {
        List<CategorySpan> out = new ArrayList<>();
        DataCategoryExtractor.INSTANCE.detectFused(text, (s, e, c) -> out.add(new CategorySpan(s, e, c)));
        return out;
    }

    private static List<CategorySpan> sorted(List<CategorySpan> spans) {
        List<CategorySpan> out = new ArrayList<>(spans);
        out.sort(java.util.Comparator.comparingInt(CategorySpan::start).thenComparingInt(CategorySpan::end)
                .thenComparing(CategorySpan::category));
        return out;
    }

    @Test void sameSpansOnEveryFixtureValue() {
        for (String v : VALUES) {
            assertThat(DataCategoryExtractor.INSTANCE.spans(v)).as("\"%s\"", v)
                    .containsExactlyElementsOf(ReferenceDataCategoryExtractor.INSTANCE.spans(v));
        }
        assertThat(VALUES).hasSizeGreaterThan(300);
    }

    /** The texts of the labelled fixture set (src/test/resources/pii/labelled.tsv). */
    static List<String> fixtureValues() {
        List<String> out = new ArrayList<>();
        try (InputStream in = ExtractorEquivalenceTest.class.getResourceAsStream("/pii/labelled.tsv");
             BufferedReader r = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8))) {
            for (String line = r.readLine(); line != null; line = r.readLine()) {
                int tab = line.indexOf('\t');
                if (line.startsWith("#") || tab < 0) continue;
                out.add(line.substring(tab + 1));
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        return out;
    }
}
