package dev.tracegate.matchers.pii;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The mask path's pre-pass leaves word starts out of the detector walk by the codes of their first three
 * or four chars (lowercase and capitalised words), and capitalised words by what follows them (a Germanic street
 * needs a space and a digit after its run of letters, '-' and '.'). These texts sit on both sides of
 * every such test: term and month prefixes cut after each letter and in every case, three-letter terms and
 * months before a letter, a digit, a space or the end, PO boxes and other
 * p-words, Romance and Germanic street forms with their near misses, NINO/NIE/postcode/IBAN shapes,
 * chars above ASCII second or third (some case-map to ASCII letters), numbers of every length before a
 * space and a capitalised, Romance or other word, and texts ending one or two chars after a word start. The oracle is {@link ReferenceDataCategoryExtractor}.
 */
class WordStartPrefilterTest {
    private static final String[] EDGES = {
        "d", "di", "dia", "diab", "Diabetes", "DIABETES", "dIaBeTeS", "the", "The", "THE", "ther", "Therapist", "th", "t",
        "mar", "Mar", "MAR", "march", "March", "marx", "Marx", "may", "May", "mai", "sept.", "Sept", "jan.", "Jan", "ja",
        "p", "P", "po", "PO", "po box 12", "PO Box 12", "P.O. Box 7", "p.o. box 7", "pO bOx 3", "P.", "p.", "p-", "price", "Price",
        "pregnant", "Pregnant", "pension", "pl61109010140000071219812874", "PL61 1090 1014 0000 0712 1981 2874", "pk", "Pk3",
        "Via", "via", "VIA", "Via Roma 12", "Viale Europa, 7", "Vi", "Vio", "Calle Mayor 5", "Cal", "Rua Augusta 3", "Ru", "Avenida",
        "Hauptstraße 5", "Haupt-Str. 5", "Haupt-Straße 5", "Kerkstraat 12", "Lange Gasse 3", "Weg 4", "Allee", "Allee.", "Allee-",
        "Bahnhof-", "Bahnhof.", "Lyon.", "Lyon. 5", "Lyon-5", "Lyon 5", "Lyon 55555", "Rue", "rue", "12 rue de la Paix",
        "AB 12 34 56 C", "AB123456C", "Ab123456C", "X1234567L", "x1234567l", "Y1234567X", "Z1", "SW1A 1AA", "W1 1AA", "Ec1A 1BB",
        "GB82 WEST 1234 5698 7654 32", "gb82west12345698765432", "De89370400440532013000", "DE8", "D", "NL", "N", "A-1234", "I", "A",
        "221B Baker Street", "1600 Pennsylvania Avenue", ", CA 94103", "CA 94103", "12 March 1985", "March 12, 1985", "born ",
        "\u00E9", "\u00C9t\u00E9", "d\u00E9", "ma\u0131", "\u0131ban", "\u017Fept", "\u212Aelvin", "\u0130stanbul", "\u00DF", "Stra\u00DFe 5",
        "Ma\u00DF", "Xa\u00DF", "P\u00F6", "\u00B2", "\u0661\u0662", "12", "1985", "7", "-", ".", ",", " ", "  ", "\n", "\"", ":", "@",
        "ann@example.com", "+44 20 7946 0958", "4111 1111 1111 1111", "192.168.0.1", "fe80::1",
        "hiv", "HIV", "hivx", "hiv-", "mri scan", "MRI-scan", "pay slip", "net worth", "network", "can", "cancer", "all",
        "allergy", "there", "them", "dec", "decide", "December", "sept", "septx", "jan1", "ma\u212Ach", "ban\u212A account",
        "1234 Main Street", "1234 arrived", "1234 rue de la Paix", "1234 Rue", "1234 allée des Roses", "1234 AVENUE Foch",
        "1234 \u0130stanbul Road", "1234 \u212Aing Street", "1234 bd Victor", "12345 Elm St", "123456 Elm St", "123 45 6789",
        "046 454 286", "12345678 Z", "1234 ", "1234", "12 March 1985", "1 Baker Street", "4 ",
    };

    private static final List<String> VALUES = ExtractorEquivalenceTest.fixtureValues();

    @Provide Arbitrary<String> edgeText() {
        Arbitrary<String> glue = Arbitraries.of(" ", " ", ", ", ".", "-", "\n", "", "(", ")", "\"", "1234 ", "12 ", "123 ", "12345678 ");
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(EDGES), Arbitraries.of(EDGES), glue, Arbitraries.of(VALUES),
                Arbitraries.strings().withChars("aAdDpPoOvViIxX.- 19\u00E9\u212A").ofMaxLength(6));
        Arbitrary<String> joined = piece.list().ofMaxSize(10).map(l -> String.join("", l));
        return Arbitraries.oneOf(joined, joined, joined.map(String::toUpperCase), joined.map(String::toLowerCase));
    }

    @Property(tries = 5000)
    void prefilteredWalkFindsWhatTheReferenceFinds(@ForAll("edgeText") String text) {
        assertSame(text);
    }

    /**
     * Every three-char word start from an alphabet of letters around the tables' keys, digits, separators and
     * chars above ASCII, alone, at the text's end and before completions that finish a term, month, street,
     * PO box, IBAN or identifier.
     */
    @Test void everyThreeCharStartBeforeEveryCompletion() {
        String alphabet = "aAdDpPoOvVmMtTeExX1 .-\u00E9\u212A";
        String[] completions = {"", " ", "betes", "rch 12, 1985", "o. box 12", " Box 12", "x 12", "a Roma 12", "straße 5", "-Str. 5",
            ". 5", " 5", "12 34 56 C", "1234567L", "82 WEST 1234 5698 7654 32", "89370400440532013000", "apist", "rgant"};
        List<String> texts = new ArrayList<>();
        for (int a = 0; a < alphabet.length(); a++) {
            for (int b = 0; b < alphabet.length(); b++) {
                for (int c = 0; c < alphabet.length(); c++) {
                    String start = "" + alphabet.charAt(a) + alphabet.charAt(b) + alphabet.charAt(c);
                    for (String done : completions) texts.add(start + done);
                    texts.add("x " + start.substring(0, 1));
                    texts.add("x " + start.substring(0, 2));
                }
            }
        }
        for (String t : texts) assertSame(t);
        assertThat(texts).hasSizeGreaterThan(200_000);
    }

    @Test void everyFixtureValueAndEdgePiece() {
        for (String v : VALUES) assertSame(v);
        for (String e : EDGES) {
            assertSame(e);
            assertSame("Note: " + e + " 12");
        }
    }

    private static final SpanSink.Mask SCRATCH = new SpanSink.Mask();

    /** The mask, the spans and the fused walk's spans are the reference's (AssertJ only on a difference: 300 000 texts). */
    private static void assertSame(String text) {
        List<CategorySpan> expected = ReferenceDataCategoryExtractor.INSTANCE.spans(text);
        long mask = 0;
        for (CategorySpan sp : expected) mask |= sp.category().bit();
        long got = DataCategoryExtractor.INSTANCE.mask(text, SCRATCH);
        if (got != mask) assertThat(got).as("mask \"%s\"", text).isEqualTo(mask);
        List<CategorySpan> spans = DataCategoryExtractor.INSTANCE.spans(text);
        if (!spans.equals(expected)) assertThat(spans).as("spans \"%s\"", text).containsExactlyElementsOf(expected);
        List<CategorySpan> fused = new ArrayList<>();
        DataCategoryExtractor.INSTANCE.detectFused(text, (s, e, c) -> fused.add(new CategorySpan(s, e, c)));
        if (!sorted(fused).equals(sorted(expected))) {
            assertThat(sorted(fused)).as("fused \"%s\"", text).containsExactlyElementsOf(sorted(expected));
        }
    }

    private static List<CategorySpan> sorted(List<CategorySpan> spans) {
        List<CategorySpan> out = new ArrayList<>(spans);
        out.sort(java.util.Comparator.comparingInt(CategorySpan::start).thenComparingInt(CategorySpan::end)
                .thenComparing(CategorySpan::category));
        return out;
    }
}
