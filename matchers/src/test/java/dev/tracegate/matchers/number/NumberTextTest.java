package dev.tracegate.matchers.number;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

class NumberTextTest {
    @ParameterizedTest(name = "\"{0}\" is {1}")
    @CsvSource(delimiter = '|', value = {
        "5000|5000", "-2.5|-2.5", "+7|7", "1e3|1000", "2.5E-2|0.025", "0|0", "007|7", ".5|0.5", "5.|5",
        "$5,000|5000", "$5,000.50|5000.5", "-$12|-12", "$-12|-12", "5000 USD|5000", "USD 5000|5000",
        "usd5000|5000", "5.000,50 €|5000.5", "€ 1.250.000|1250000", "EUR 1 250,00|1250", "1,500|1500",
        "12,5|12.5", "12,50|12.5", "1,234,567.89|1234567.89", "5.000|5", "5'000|5000", "1_000_000|1000000",
        "£99.99|99.99", "¥ 12,000|12000", "  42  |42", "123456789012345678901|1.2345678901234568E20",
        "0.1|0.1", "1e400|Infinity"
    })
    void parses(String text, String expected) {
        double want = Double.parseDouble(expected);
        assertThat(NumberText.parse(text)).isEqualTo(want);
    }

    @ParameterizedTest(name = "\"{0}\" is not a number")
    @ValueSource(strings = {"", "   ", "abc", "5k", "1,5,0", "1.2.3,4", "12,3456,7", "--5", "+-5", "$", "USD", "5 apples",
        "1e", "1e+", "1,000e3", "0x10", "5%", "₹1,00,000", "1 2", "12 34 567", "NaN", "Infinity", "$5$", "5.5.5,5,5"})
    void rejects(String text) {
        assertThat(NumberText.parse(text)).isNaN();
    }

    @org.junit.jupiter.api.Test void nullIsNotANumber() {
        assertThat(NumberText.parse(null)).isNaN();
    }

    @org.junit.jupiter.api.Test void agreesWithTheJdkOnPlainDecimals() {
        java.util.Random r = new java.util.Random(7);
        for (int i = 0; i < 20_000; i++) {
            String s = switch (i % 3) {
                case 0 -> Long.toString(r.nextLong() >> r.nextInt(60));
                case 1 -> Double.toString(r.nextDouble() * Math.pow(10, r.nextInt(30) - 15));
                default -> (r.nextInt(2000) - 1000) + "." + r.nextInt(1000);
            };
            assertThat(NumberText.parse(s)).as(s).isEqualTo(Double.parseDouble(s));
        }
    }
}
