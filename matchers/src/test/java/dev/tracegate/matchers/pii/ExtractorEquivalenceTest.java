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

    private static List<String> fixtureValues() {
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
