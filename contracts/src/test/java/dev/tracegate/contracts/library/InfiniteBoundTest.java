package dev.tracegate.contracts.library;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A number a library writes outside the double range is refused at load, as a value that large in an event is not a
 * number (unevaluable, c1d995b): a bound "1e400" read as Infinity would make every comparison with it hold or fail.
 */
class InfiniteBoundTest {

    private static LibraryException refusal(String guarantee) {
        return catchThrowableOfType(LibraryException.class, () -> Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: b\ncontracts:\n  - id: b.c\n    guarantee: '" + guarantee + "'\n"))));
    }

    @Test
    void aBoundOrListItemBeyondTheRangeIsRefusedWhereItIsWritten() {
        LibraryException bound = refusal("G(arg(pay, amount) <= \"1e400\")");
        assertThat(bound).isNotNull();
        assertThat(bound.line()).isEqualTo(4);
        assertThat(bound.problem()).isEqualTo("atom `arg(pay, amount) <= \"1e400\"`: the number \"1e400\" is outside the range of numbers"
                + " (about ±1.8e308), where an event's value that large is not a number either (unevaluable)");
        assertThat(refusal("G(sum(pay, amount) <= 1" + "0".repeat(400) + ")")).isNotNull();
        assertThat(refusal("G !arg_in(pay, amount, [1, \"-1e999\"])")).isNotNull();
        // an exponent without quotes (trial36 02) is a number too, and refused the same beyond the range
        assertThat(refusal("G(call(pay) -> arg(pay, amount) <= 1e400)").problem()).contains("is outside the range of numbers");
    }

    @Test
    void largeFiniteNumbersLoad() {
        assertThatCode(() -> Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: b\ncontracts:\n  - id: b.c\n    guarantee: 'G(arg(pay, amount) <= \"1e300\" & sum(pay, amount) < 1" + "0".repeat(300) + ")'\n"))))
                .doesNotThrowAnyException();
        assertThatCode(() -> Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: b\ncontracts:\n  - id: b.c\n    guarantee: 'G(call(pay) -> arg(pay, amount) <= 1e3 & arg(pay, fee) < 1.5e2"
                        + " & sum(pay, amount) < 1e300)'\n")))).doesNotThrowAnyException();
        // a pattern that reads like a huge number is a pattern
        assertThatCode(() -> Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: b\ncontracts:\n  - id: b.c\n    guarantee: 'G !call(send, \"1e999\") & G !arg_matches(code, \"1e999\")'\n"))))
                .doesNotThrowAnyException();
    }
}
