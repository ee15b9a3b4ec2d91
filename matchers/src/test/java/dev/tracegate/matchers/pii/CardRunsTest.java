package dev.tracegate.matchers.pii;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Several payment cards in one run of digits (an answer listing two cards, separated by a single space or dash) are
 * each found with their own span, so redaction and category contracts see every one (fix8c's finding: none was
 * found), and a run that is no list of cards (an IBAN's tail, short numbers) gains none.
 */
class CardRunsTest {
    private static final DataCategoryExtractor X = DataCategoryExtractor.INSTANCE;

    private static List<String> cards(String text) {
        List<String> out = new ArrayList<>();
        for (CategorySpan s : X.spans(text)) if (s.category() == DataCategory.PAYMENT_CARD) out.add(s.in(text));
        return out;
    }

    @Test void twoCardsJoinedByOneSpaceAreBothFound() {
        assertThat(cards("4111 1111 1111 1111 5500 0000 0000 0004")).containsExactly("4111 1111 1111 1111", "5500 0000 0000 0004");
        assertThat(cards("cards: 4111111111111111 4012888888881881.")).containsExactly("4111111111111111", "4012888888881881");
        assertThat(cards("4111-1111-1111-1111-5500-0000-0000-0004")).containsExactly("4111-1111-1111-1111", "5500-0000-0000-0004");
        assertThat(cards("3782 822463 10005 6011 1111 1111 1117 4222222222222"))
                .containsExactly("3782 822463 10005", "6011 1111 1111 1117", "4222222222222");
    }

    @Test void aCardBesideOtherDigitsIsFound() {
        assertThat(cards("ref 12 4111 1111 1111 1111")).containsExactly("4111 1111 1111 1111");
        assertThat(cards("4111 1111 1111 1112 5500 0000 0000 0004")).containsExactly("5500 0000 0000 0004"); // first fails Luhn
        assertThat(cards("card 4111 1111 1111 1111 12/27")).containsExactly("4111 1111 1111 1111");
        // the masked answer holds neither card
        String answer = "Your cards are 4111 1111 1111 1111 5500 0000 0000 0004.";
        long mask = X.mask(answer, new SpanSink.Mask());
        assertThat(mask & DataCategory.PAYMENT_CARD.bit()).isNotZero();
    }

    /** A card next to another is not cut short by a longer window that takes the other's first group. */
    @Test void theSplitCoveringMoreDigitsWins() {
        // 3056 9309 0259 04 is a 14-digit Diners card; with 4111 it makes 18 digits, also Luhn-valid
        String dinersAndVisa = "3056 9309 0259 04 4002 1111 1111 1113";
        assertThat(luhnValid("305693090259044002")).isTrue(); // the trap is real
        assertThat(cards(dinersAndVisa)).containsExactly("3056 9309 0259 04", "4002 1111 1111 1113");
    }

    @Test void runsThatAreNoListOfCardsGainNone() {
        // a French IBAN's digits start with a Diners-like 3000 and 16 of them are Luhn-valid here: the IBAN, no card
        String iban = "IBAN: FR46 3000 4000 0312 3458 7890 143";
        assertThat(luhnValid("3000400003123458")).isTrue();
        assertThat(X.spans(iban)).extracting(CategorySpan::category).containsExactly(DataCategory.IBAN);
        // short numbers: a window of single digits starting with 4 may pass Luhn, but cards are not written so
        assertThat(luhnValid("4111111111111103")).isTrue();
        assertThat(cards("scores 4 1 1 1 1 1 1 1 1 1 1 1 1 1 0 3 5 2")).isEmpty();
        assertThat(cards("4111 1111 1111 1112 5500 0000 0000 0005")).isEmpty();
        assertThat(cards("41111111111111111111")).isEmpty(); // 20 digits unbroken: an account, not a card
    }

    // ---- property: cards joined by ' ', '-', ', ', ' and ', digits around

    record Part(String text, boolean valid) {}

    private static final String[][] ISSUERS = { // prefix, length
        {"4", "16"}, {"4", "13"}, {"4", "19"}, {"51", "16"}, {"55", "16"}, {"2221", "16"}, {"2720", "16"}, {"34", "15"},
        {"37", "15"}, {"6011", "16"}, {"65", "19"}, {"3528", "16"}, {"36", "14"}, {"305", "14"}, {"62", "17"}, {"67", "18"},
    };

    @Provide Arbitrary<Part> card() {
        Arbitrary<String[]> issuer = Arbitraries.of(ISSUERS);
        return Combinators.combine(issuer, Arbitraries.strings().numeric().ofLength(18), Arbitraries.integers().between(0, 9),
                Arbitraries.of("", " ", "-")).as((iss, body, broken, sep) -> {
            int n = Integer.parseInt(iss[1]);
            String payload = (iss[0] + body).substring(0, n - 1);
            int check = (checkDigit(payload) + broken) % 10;
            String digits = payload + check;
            return new Part(written(digits, sep), broken == 0);
        });
    }

    /** The card written unbroken, in groups of four, or (Amex) 4-6-5. */
    private static String written(String digits, String sep) {
        if (sep.isEmpty()) return digits;
        if (digits.length() == 15) return digits.substring(0, 4) + sep + digits.substring(4, 10) + sep + digits.substring(10);
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < digits.length(); k += 4) {
            if (k > 0) b.append(sep);
            b.append(digits, k, Math.min(k + 4, digits.length()));
        }
        return b.toString();
    }

    record Built(String text, List<String> validSpans) {}

    @Provide Arbitrary<Built> cardText() {
        Arbitrary<List<Part>> parts = card().list().ofMinSize(1).ofMaxSize(3);
        Arbitrary<List<String>> joiners = Arbitraries.of(" ", "-", ", ", " and ").list().ofSize(2);
        Arbitrary<String> digits = Arbitraries.strings().numeric().ofMinLength(1).ofMaxLength(6);
        Arbitrary<String> lead = Arbitraries.oneOf(Arbitraries.just(""), digits.map(d -> d + " "), digits.map(d -> d + ", "));
        Arbitrary<String> trail = Arbitraries.oneOf(Arbitraries.just(""), digits.map(d -> " " + d), digits.map(d -> ", " + d),
                Arbitraries.just(" 12/27"));
        Arbitrary<String> before = Arbitraries.of("", "cards ", "Paid with ", "{\"pan\":\"");
        Arbitrary<String> after = Arbitraries.of("", ".", " thanks", "\"}");
        return Combinators.combine(parts, joiners, lead, trail, before, after).as((ps, js, l, t, b, a) -> {
            StringBuilder s = new StringBuilder(b).append(l);
            List<String> valid = new ArrayList<>();
            for (int k = 0; k < ps.size(); k++) {
                if (k > 0) s.append(js.get(k - 1));
                int start = s.length();
                s.append(ps.get(k).text());
                if (ps.get(k).valid()) valid.add(start + "-" + s.length());
            }
            s.append(t).append(a);
            return new Built(s.toString(), valid);
        });
    }

    @Property(tries = 3000)
    void exactlyTheValidCardsAreFound(@ForAll("cardText") Built b) {
        Assume.that(noOtherCardLikeWindow(b));
        assertThat(cardSpans(X.spans(b.text()))).as("\"%s\"", b.text()).containsExactlyElementsOf(b.validSpans());
        assertThat(cardSpans(ReferenceDataCategoryExtractor.INSTANCE.spans(b.text()))).as("reference on \"%s\"", b.text())
                .containsExactlyElementsOf(b.validSpans());
        assertThat(X.categories(b.text()).contains(DataCategory.PAYMENT_CARD)).isEqualTo(!b.validSpans().isEmpty());
    }

    /** Where the text is ambiguous too (a window across two numbers that is a card by chance), both agree. */
    @Property(tries = 2000)
    void sameSpansAsTheReference(@ForAll("cardText") Built b) {
        assertThat(X.spans(b.text())).as("\"%s\"", b.text())
                .containsExactlyElementsOf(ReferenceDataCategoryExtractor.INSTANCE.spans(b.text()));
    }

    private static List<String> cardSpans(List<CategorySpan> spans) {
        List<String> out = new ArrayList<>();
        for (CategorySpan s : spans) if (s.category() == DataCategory.PAYMENT_CARD) out.add(s.start() + "-" + s.end());
        return out;
    }

    /**
     * No stretch of the text other than the valid cards is card-like: digits with single spaces or dashes between,
     * 13 to 19 of them, starting and ending at a word boundary, Luhn-valid, in an issuer's range. Such a stretch
     * (say the last groups of one number and the first of the next) makes the text ambiguous.
     */
    private static boolean noOtherCardLikeWindow(Built b) {
        String s = b.text();
        for (int a = 0; a < s.length(); a++) {
            if (!Character.isDigit(s.charAt(a)) || (a > 0 && Character.isLetterOrDigit(s.charAt(a - 1)))) continue;
            StringBuilder digits = new StringBuilder();
            for (int e = a; e < s.length(); e++) {
                char c = s.charAt(e);
                if (Character.isDigit(c)) digits.append(c);
                else if (!((c == ' ' || c == '-') && Character.isDigit(s.charAt(e - 1)) && e + 1 < s.length()
                        && Character.isDigit(s.charAt(e + 1)))) break;
                boolean endsWord = e + 1 == s.length() || !Character.isLetterOrDigit(s.charAt(e + 1));
                if (!Character.isDigit(c) || !endsWord || digits.length() < 13 || digits.length() > 19) continue;
                String d = digits.toString();
                if (luhnValid(d) && ReferenceDataCategoryExtractor.issuer(Long.parseLong(d.substring(0, 6)), d.length())
                        && !b.validSpans().contains(a + "-" + (e + 1))) return false;
            }
        }
        return true;
    }

    private static int checkDigit(String payload) {
        int sum = 0;
        for (int k = 0; k < payload.length(); k++) {
            int d = payload.charAt(payload.length() - 1 - k) - '0';
            if (k % 2 == 0) d = d * 2 > 9 ? d * 2 - 9 : d * 2; // the payload's last digit is doubled
            sum += d;
        }
        return (10 - sum % 10) % 10;
    }

    private static boolean luhnValid(String digits) {
        return checkDigit(digits.substring(0, digits.length() - 1)) == digits.charAt(digits.length() - 1) - '0';
    }
}
