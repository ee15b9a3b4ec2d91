package dev.tracegate.matchers.pii;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class DataCategoryExtractorTest {
    private final DataCategoryExtractor x = DataCategoryExtractor.INSTANCE;

    @Test void spansCoverExactlyTheData() {
        String s = "Mail ann@example.com or call +44 20 7946 0958; card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00.";
        List<CategorySpan> spans = x.spans(s);
        assertThat(spans).extracting(sp -> sp.category() + "=" + sp.in(s)).containsExactlyInAnyOrder(
                "EMAIL=ann@example.com", "PHONE=+44 20 7946 0958", "PAYMENT_CARD=4111 1111 1111 1111",
                "IBAN=DE89 3704 0044 0532 0130 00");
    }

    /**
     * An international number is someone's number when its length is possible for its country code, assigned range
     * or not (trial4: +44 7700 900123, in a UK range kept for fiction, was missed while 07700 900123 was found); a
     * '+' followed by too few digits for any country is not a number.
     */
    @Test void anInternationalNumberOfAPossibleLengthIsAPhoneWhetherOrNotItsRangeIsAssigned() {
        assertThat(x.categories("call me on +44 7700 900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("call me on +447700900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("call me on 07700 900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("call me on +1 415 555 2671")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("version +12 34 of the list")).doesNotContain(DataCategory.PHONE);
    }

    /**
     * "00" and a country code is how most of Europe writes the international prefix (trial43 02: `phone: 0044 7700
     * 900123` and `tel 0049 30 12345678` were no phone while the same numbers with '+' were). Read like '+', but only
     * with phone-like formatting or a phone word, as the prefix is a weaker signal than '+': zero-padded ids stay no
     * phone.
     */
    @Test void theDoubleZeroInternationalPrefixReadsLikeAPlus() {
        assertThat(x.categories("phone: 0044 7700 900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("call me on 0044 7700 900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("phone: 00447700900123")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("tel 0049 30 12345678")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("phone: 0033 1 42 68 53 00")).containsExactly(DataCategory.PHONE);
        assertThat(x.categories("reach the desk at 0044 20 7946 0958 today")).containsExactly(DataCategory.PHONE);
        List<CategorySpan> spans = x.spans("phone: 0044 7700 900123.");
        assertThat(spans).extracting(sp -> sp.in("phone: 0044 7700 900123.")).containsExactly("0044 7700 900123");
        // no formatting and no phone word: a zero-padded number is not read as a phone
        assertThat(x.categories("id 00447700900123")).doesNotContain(DataCategory.PHONE);
        // a country code no country has (+0..): not a number; fewer than seven digits after the prefix, as after a '+': not a number
        assertThat(x.categories("phone: 0004 7700 900123")).doesNotContain(DataCategory.PHONE);
        assertThat(x.categories("phone: 0044 12 34")).doesNotContain(DataCategory.PHONE);
    }

    @Test void checksumsDecide() {
        assertThat(x.categories("4111 1111 1111 1111")).containsExactly(DataCategory.PAYMENT_CARD);
        assertThat(x.categories("4111 1111 1111 1112")).isEmpty();          // Luhn fails
        assertThat(x.categories("DE89370400440532013000")).containsExactly(DataCategory.IBAN);
        assertThat(x.categories("DE88370400440532013000")).isEmpty();       // mod 97 fails
        assertThat(x.categories("DE8937040044053201300")).isEmpty();        // German IBANs have 22 characters
        assertThat(x.categories("12345678Z")).containsExactly(DataCategory.NATIONAL_ID);
        assertThat(x.categories("12345678A")).isEmpty();                    // DNI check letter
    }

    @Test void contextTurnsADateIntoADateOfBirth() {
        assertThat(x.categories("appointment 1985-03-12")).isEmpty();
        assertThat(x.categories("born 1985-03-12")).containsExactly(DataCategory.DATE_OF_BIRTH);
        assertThat(x.categories("birthday 2024-01-15T10:00:00Z")).isEmpty();
    }

    @Test void fieldNameHintsMatchWholeTrailingWords() {
        assertThat(x.fieldHint("customer_email")).isEqualTo(DataCategory.EMAIL);
        assertThat(x.fieldHint("customerEmail")).isEqualTo(DataCategory.EMAIL);
        assertThat(x.fieldHint("dateOfBirth")).isEqualTo(DataCategory.DATE_OF_BIRTH);
        assertThat(x.fieldHint("DOB")).isEqualTo(DataCategory.DATE_OF_BIRTH);
        assertThat(x.fieldHint("billing-address")).isEqualTo(DataCategory.POSTAL_ADDRESS);
        assertThat(x.fieldHint("ip_address")).isEqualTo(DataCategory.IP_ADDRESS);
        assertThat(x.fieldHint("email_address")).isEqualTo(DataCategory.EMAIL);
        assertThat(x.fieldHint("mac_address")).isNull();
        assertThat(x.fieldHint("hotel")).isNull();
        assertThat(x.fieldHint("pancake")).isNull();
        assertThat(x.fieldHint("query")).isNull();
        assertThat(x.fieldHint("iban")).isEqualTo(DataCategory.IBAN);
    }

    @Test void categoryNamesAndAliases() {
        assertThat(DataCategory.parse("Payment-Card")).isEqualTo(DataCategory.PAYMENT_CARD);
        assertThat(DataCategory.parse("dob")).isEqualTo(DataCategory.DATE_OF_BIRTH);
        assertThat(DataCategory.parse("genetic")).isNull();
    }

    @Test void emptyAndHugeInputs() {
        assertThat(x.categories("")).isEmpty();
        String big = "a".repeat(DataCategoryExtractor.MAX_SCAN) + " ann@example.com";
        assertThat(x.categories(big)).isEmpty(); // beyond the scan bound
    }
}
