package dev.tracegate.matchers.pii;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DataCategoryExtractor#maskUntil} against {@link ReferenceDataCategoryExtractor}: what it returns is
 * found in the text (or known); when it holds no category of {@code stop}, it is the whole answer; when the
 * text holds a category of {@code stop} that is not known, it returns one. Texts with several e-mail
 * addresses, '@' signs that begin none, and other data after the first address (the scan stops at an
 * address without copying the text when e-mail is a stop category).
 */
class MaskUntilTest {
    private static final String[] PIECES = {
        "ann@example.com", "bob+x@mail.example.org", "@", "a@b", "x@y.z", "@example.com", "ann@", ".@ex.com", "a@-ex.com",
        "call +44 20 7946 0958", "4111 1111 1111 1111", "DE89 3704 0044 0532 0130 00", "born 12 March 1985", "diabetes",
        "salary", "192.168.0.1", "fe80::1", "221B Baker Street", "12345678Z", " ", ", ", "\"", "{\"email\":\"", "\"}", "\n",
        "text", "Hello", "1234", "\u00E9",
    };
    private static final SpanSink.Mask SCRATCH = new SpanSink.Mask();
    private static final long ALL = (1L << DataCategory.values().length) - 1;

    @Provide Arbitrary<String> text() {
        Arbitrary<String> piece = Arbitraries.oneOf(Arbitraries.of(PIECES), Arbitraries.strings().withChars("ab@.-1 ").ofMaxLength(8));
        return piece.list().ofMaxSize(10).map(l -> String.join("", l));
    }

    @Property(tries = 3000)
    void stopsOnlyAtACategoryOfStop(@ForAll("text") String text, @ForAll long known, @ForAll long stop) {
        long k = known & ALL & (known >>> 20); // about one category in four known
        long q = stop & ALL & (stop >>> 10) | (stop < 0 ? DataCategory.EMAIL.bit() : 0); // e-mail a stop category half the time
        long expected = 0;
        for (CategorySpan sp : ReferenceDataCategoryExtractor.INSTANCE.spans(text)) expected |= sp.category().bit();
        long got = DataCategoryExtractor.INSTANCE.maskUntil(text, SCRATCH, k, q);
        assertThat(got & ~(expected | k)).as("\"%s\": found only what is there", text).isZero();
        if ((got & q) == 0) assertThat(got | k).as("\"%s\": the whole answer", text).isEqualTo(expected | k);
        if ((expected & q & ~k) != 0) assertThat(got & q).as("\"%s\": a stop category", text).isNotZero();
    }

    @Test void aResultsFirstAddressEndsTheScanAndTheRestIsFoundWithoutStop() {
        String text = "{\"customer\":{\"email\":\"jane.roe@example.com\"},\"note\":\"born 12 March 1985, card 4111 1111 1111 1111\"}";
        long email = DataCategory.EMAIL.bit();
        assertThat(DataCategoryExtractor.INSTANCE.maskUntil(text, SCRATCH, 0, email)).isEqualTo(email);
        assertThat(DataCategoryExtractor.INSTANCE.maskUntil(text, SCRATCH, 0, 0))
                .isEqualTo(email | DataCategory.DATE_OF_BIRTH.bit() | DataCategory.PAYMENT_CARD.bit());
        assertThat(DataCategoryExtractor.INSTANCE.spans("a@b.co x@y.de @ z@w.org")).extracting(CategorySpan::start)
                .containsExactly(0, 7, 16);
    }
}
