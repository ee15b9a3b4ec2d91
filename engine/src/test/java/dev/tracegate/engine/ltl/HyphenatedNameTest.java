package dev.tracegate.engine.ltl;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A tool name with '-' written bare ({@code call(send-email)}) is read as the name {@code send} and then a '-' no
 * argument may start with: the parser said only "unexpected character '-', expected ',' or ')'" ({@code call(tool-2)}:
 * "unexpected '-2'", {@code call(gpt-4o)}: "malformed number '-4o'"), though docs/FORMULAS.md writes such names in double
 * quotes (trial21 leftover). The error now says so, with the atom as it is to be written, which parses.
 */
class HyphenatedNameTest {

    private static ParseException error(String formula) {
        return catchThrowableOfType(ParseException.class, () -> Parser.parse(formula));
    }

    /** The fixed atom the hint offers, after "is written in double quotes: ". */
    private static String fixed(ParseException e) {
        String expected = e.expected();
        String marker = "is written in double quotes: ";
        assertThat(expected).contains(marker);
        return expected.substring(expected.indexOf(marker) + marker.length(), expected.length() - 1);
    }

    @Test
    void aHyphenatedToolNameIsToBeQuotedAndTheHintSaysHow() {
        ParseException e = error("G(call(send-email) -> O user)");
        assertThat(e.line()).isEqualTo(1);
        assertThat(e.column()).isEqualTo(12);
        assertThat(e.expected()).isEqualTo("',' or ')' ('send-email' has a '-', which ends a name in a formula; a tool or field"
                + " name with '-' (or any character besides letters, digits, _ and .) is written in double quotes:"
                + " call(\"send-email\"))");
        assertThat(Parser.parse("G(" + fixed(e) + " -> O user)")).isEqualTo(Parser.parse("G(call(\"send-email\") -> O user)"));

        ParseException both = error("G(call(send-email) -> arg(send-email, reply-to) != \"a-b\")");
        assertThat(fixed(both)).isEqualTo("call(\"send-email\")");
        ParseException args = error("G(call(\"send-email\") -> arg(send-email, reply-to) != \"a-b\")");
        assertThat(fixed(args)).as("every hyphenated name of the atom, strings left as they are")
                .isEqualTo("arg(\"send-email\", \"reply-to\")");
        Parser.parse("G(call(\"send-email\") -> " + fixed(args) + " != \"a-b\")");
    }

    @Test
    void aHyphenBeforeDigitsGetsTheSameHint() {
        ParseException number = error("G(count(tool-2) <= 3)");
        assertThat(number.reason()).startsWith("unexpected '-2', expected ',' or ')'");
        assertThat(fixed(number)).isEqualTo("count(\"tool-2\")");
        ParseException malformed = error("G !call(gpt-4o)");
        assertThat(malformed.reason()).as("not 'malformed number'").startsWith("unexpected '-4o', expected ',' or ')'");
        assertThat(fixed(malformed)).isEqualTo("call(\"gpt-4o\")");
        ParseException nested = error("G(len(arg(send-email, body)) <= 100)");
        assertThat(fixed(nested)).isEqualTo("arg(\"send-email\", body)");
        // a '-' apart from the name is something else
        assertThat(error("G(call(a -1))").expected()).doesNotContain("double quotes");
        assertThat(Parser.parse("G(arg(a, n) > -1)")).isNotNull();
    }
}
