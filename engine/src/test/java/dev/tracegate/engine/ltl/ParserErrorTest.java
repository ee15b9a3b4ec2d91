package dev.tracegate.engine.ltl;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/** Malformed formulas: each gets one exact message naming the place, the token and what would fit. */
class ParserErrorTest {

    static Stream<Arguments> malformed() {
        return Stream.of(
                bad("empty input", "",
                        "line 1:1: unexpected end of input, expected a formula", ""),
                bad("only a comment", "# nothing here\n",
                        "line 1:1: unexpected end of input, expected a formula", "# nothing here"),
                bad("unclosed parenthesis", "(p",
                        "line 1:3: unexpected end of input, expected an operator or ')' to close '(' at 1:1", "(p"),
                bad("unopened parenthesis", "p)",
                        "line 1:2: unexpected ')', expected an operator or end of input", "p)"),
                bad("one closing parenthesis too many", "(a & b))",
                        "line 1:8: unexpected ')', expected an operator or end of input", "(a & b))"),
                bad("until without right operand", "p U",
                        "line 1:4: unexpected end of input, expected a formula after 'U'", "p U"),
                bad("next without operand", "X",
                        "line 1:2: unexpected end of input, expected a formula after 'X'", "X"),
                bad("missing operand between conjunctions", "p & & q",
                        "line 1:5: unexpected '&', expected a formula after '&'", "p & & q"),
                bad("missing left operand", "->p",
                        "line 1:1: unexpected '->', expected a formula", "->p"),
                bad("operand after iff missing", "a <-> ",
                        "line 1:6: unexpected end of input, expected a formula after '<->'", "a <-> "),
                bad("eventually of nothing", "F(",
                        "line 1:3: unexpected end of input, expected a formula after '('", "F("),
                bad("two atoms without operator", "p q",
                        "line 1:3: unexpected 'q', expected an operator or end of input", "p q"),
                bad("trailing garbage", "G p ]",
                        "line 1:5: unexpected ']', expected an operator or end of input", "G p ]"),
                bad("illegal character", "p @ q",
                        "line 1:3: unexpected character '@', expected an operator or end of input", "p @ q"),
                bad("control character", "p \u0007",
                        "line 1:3: unexpected character U+0007, expected an operator or end of input", "p \u0007"),
                bad("reserved binary word as atom name", "U(x)",
                        "line 1:1: unexpected 'U', expected a formula ('U' is a binary operator and cannot name an atom)", "U(x)"),
                bad("reserved binary word after an operator", "a | W",
                        "line 1:5: unexpected 'W', expected a formula after '|' ('W' is a binary operator and cannot name an atom)", "a | W"),
                bad("unary operator word used as atom name", "F(x, y)",
                        "line 1:4: unexpected ',', expected an operator or ')'"
                                + " ('F' is an operator and takes one formula; it cannot name an atom)", "F(x, y)"),
                bad("constant used as atom name", "true(x)",
                        "line 1:5: unexpected '(', expected an operator ('true' is a constant and cannot name an atom)", "true(x)"),
                bad("unterminated string", "call(\"abc",
                        "line 1:6: unexpected unterminated string \"abc, expected a closing '\"' on the same line", "call(\"abc"),
                bad("string broken by a newline", "x > \"a\nb\"",
                        "line 1:5: unexpected unterminated string \"a, expected a closing '\"' on the same line", "x > \"a"),
                bad("unknown escape", "call(\"a\\qb\")",
                        "line 1:8: unexpected escape '\\q' in a string, expected one of \\\" \\\\ \\n", "call(\"a\\qb\")"),
                bad("RE2 class escaped once", "user_matches(\"\\d{4}\")",
                        "line 1:15: unexpected escape '\\d' in a string, expected one of \\\" \\\\ \\n (a pattern's backslash is"
                                + " written twice in a formula: \\\\d, and four times inside a YAML double-quoted scalar: \\\\\\\\d)",
                        "user_matches(\"\\d{4}\")"),
                bad("weak yesterday of another tool", "G(call(a) -> Z call(b))",
                        "line 1:16: unexpected 'call', expected an operator or ')' ('Z' is no operator here, so it is read as an"
                                + " atom's name; the past operators are Y, O, H and S, and weak yesterday Z φ is written !Y !φ)",
                        "G(call(a) -> Z call(b))"),
                bad("weak yesterday of a negation", "Z !p",
                        "line 1:3: unexpected '!', expected an operator or end of input ('Z' is no operator here, so it is read as an"
                                + " atom's name; the past operators are Y, O, H and S, and weak yesterday Z φ is written !Y !φ)", "Z !p"),
                bad("before of another tool", "B call(a)",
                        "line 1:3: unexpected 'call', expected an operator or end of input ('B' is no operator here, so it is read as an"
                                + " atom's name; the past operators are Y, O, H and S: write B φ (weak yesterday, 'before') as !Y !φ and"
                                + " weak since φ B ψ as (φ S ψ) | H φ)", "B call(a)"),
                bad("weak since of another tool", "call(a) B call(b)",
                        "line 1:9: unexpected 'B', expected an operator or end of input ('B' is no operator here, so it is read as an"
                                + " atom's name; the past operators are Y, O, H and S: write B φ (weak yesterday, 'before') as !Y !φ and"
                                + " weak since φ B ψ as (φ S ψ) | H φ)", "call(a) B call(b)"),
                bad("previous of another tool", "G(P returned(a))",
                        "line 1:5: unexpected 'returned', expected an operator or ')' ('P' is no operator here, so it is read as an"
                                + " atom's name; the past operators are Y, O, H and S: write P φ (previous) as Y φ, or as O φ if it means"
                                + " 'at some earlier time')", "G(P returned(a))"),
                bad("a bound named Z is no operator", "count(x) < Z p",
                        "line 1:14: unexpected 'p', expected an operator or end of input", "count(x) < Z p"),
                bad("comparison without bound", "count(x) <=",
                        "line 1:12: unexpected end of input, expected a value after '<='", "count(x) <="),
                bad("chained comparison", "a < b < c",
                        "line 1:7: unexpected '<', expected an operator or end of input"
                                + " (a comparison relates one atom to one value; write a < b & b < c)", "a < b < c"),
                bad("single equals sign", "a = 5",
                        "line 1:3: unexpected character '=', expected an operator or end of input (compare with '==')", "a = 5"),
                bad("empty argument", "f(,)",
                        "line 1:3: unexpected ',', expected an argument or ')'", "f(,)"),
                bad("trailing comma in arguments", "f(a,)",
                        "line 1:5: unexpected ')', expected an argument after ','", "f(a,)"),
                bad("missing comma between arguments", "f(a b)",
                        "line 1:5: unexpected 'b', expected ',' or ')'", "f(a b)"),
                bad("unclosed argument list", "f(a",
                        "line 1:4: unexpected end of input, expected ',' or ')' to close '(' at 1:2", "f(a"),
                bad("unclosed list", "f([a, b",
                        "line 1:8: unexpected end of input, expected ',' or ']' to close '[' at 1:3", "f([a, b"),
                bad("number with two dots", "amount > 1.2.3",
                        "line 1:10: unexpected malformed number '1.2.3', expected a number such as 12, -2.5 or 1e3", "amount > 1.2.3"),
                bad("number glued to letters", "f(12ab)",
                        "line 1:3: unexpected malformed number '12ab', expected a number such as 12, -2.5 or 1e3", "f(12ab)"),
                bad("number as formula", "1.5",
                        "line 1:1: unexpected '1.5', expected a formula", "1.5"),
                bad("string as formula", "\"s\" & p",
                        "line 1:1: unexpected '\"s\"', expected a formula", "\"s\" & p"),
                bad("dangling dot in a name", "ctx. > 3",
                        "line 1:4: unexpected character '.', expected an operator or end of input", "ctx. > 3"),
                bad("error on a later line", "G (a ->\n   F)",
                        "line 2:5: unexpected ')', expected a formula after 'F'", "   F)"),
                bad("end of input after a comment points after the last token", "p & # to be continued\n\n",
                        "line 1:4: unexpected end of input, expected a formula after '&'", "p & # to be continued"),
                // other tools' spellings (trial42 02, 04): the hint names what to write here
                bad("MONA's implication in parentheses", "G(a => F b)",
                        "line 1:5: unexpected character '=', expected an operator or ')' ('=>' is no operator here: write -> for implication)", "G(a => F b)"),
                bad("MONA's implication at the top", "a => b",
                        "line 1:3: unexpected character '=', expected an operator or end of input ('=>' is no operator here: write -> for implication)", "a => b"),
                bad("MONA's equivalence", "G(a <=> F b)",
                        "line 1:5: unexpected '<=', expected an operator ('<=>' is no operator here: write <-> for equivalence)", "G(a <=> F b)"),
                bad("Spot's strong next", "X[!] a",
                        "line 1:2: unexpected '[', expected a formula after 'X' ('X[!]' is Spot's strong next: X is strong here already (false at the last event; WX is the weak one), so write X φ)", "X[!] a"),
                bad("weak next written N", "G(a -> N b)",
                        "line 1:10: unexpected 'b', expected an operator or ')' ('N' is no operator here, so it is read as an atom's name; weak next (true at the last event) is written WX φ, strong next X φ)", "G(a -> N b)"));
    }

    private static Arguments bad(String what, String input, String first, String sourceLine) {
        return Arguments.of(what, input, first, sourceLine);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("malformed")
    void reportsExactMessage(String what, String input, String first, String sourceLine) {
        ParseException e = catchThrowableOfType(ParseException.class, () -> Parser.parse(input));
        assertThat(e).as("parse error for %s", what).isNotNull();
        int column = Integer.parseInt(first.substring(first.indexOf(':') + 1, first.indexOf(": ")));
        String caret = " ".repeat(column - 1) + "^";
        assertThat(e.getMessage()).isEqualTo(first + "\n" + sourceLine + "\n" + caret);
    }

    @Test
    void fieldsNameLineColumnTokenAndExpectation() {
        ParseException e = catchThrowableOfType(ParseException.class, () -> Parser.parse("G (a ->\n   b c)"));
        assertThat(e.line()).isEqualTo(2);
        assertThat(e.column()).isEqualTo(6);
        assertThat(e.token()).isEqualTo("c");
        assertThat(e.expected()).isEqualTo("an operator or ')'");
        assertThat(e.reason()).isEqualTo("unexpected 'c', expected an operator or ')'");

        ParseException end = catchThrowableOfType(ParseException.class, () -> Parser.parse("a U"));
        assertThat(end.token()).isEqualTo("end of input");
    }

    @Test
    void anUnclosedBracketsPlaceIsGivenForACallerToMap() {
        ParseException e = catchThrowableOfType(ParseException.class, () -> Parser.parse("G(a ->\n  F (b"));
        assertThat(e.openedAt()).containsExactly(2, 5);
        assertThat(e.reasonWithOpening(14, 20)).isEqualTo("unexpected end of input, expected an operator or ')' to close '(' at 14:20");
        ParseException closed = catchThrowableOfType(ParseException.class, () -> Parser.parse("a & & b"));
        assertThat(closed.openedAt()).isNull();
        assertThat(closed.reasonWithOpening(3, 4)).isEqualTo(closed.reason());
    }

    @Test
    void caretKeepsTabsSoItLinesUp() {
        assertThatThrownBy(() -> Parser.parse("\tp &"))
                .hasMessage("line 1:5: unexpected end of input, expected a formula after '&'\n\tp &\n\t   ^");
    }

    @Test
    void windowsLineEndsAreNotShown() {
        assertThatThrownBy(() -> Parser.parse("a &\r\nb b"))
                .hasMessage("line 2:3: unexpected 'b', expected an operator or end of input\nb b\n  ^");
    }

    private static final String TOO_DEEP = "at most 500 nested levels (group long chains with parentheses or split the formula)";

    @Test
    void parenthesesDeeperThanTheLimitAreAClearErrorNotAStackOverflow() {
        String ok = "(".repeat(500) + "p" + ")".repeat(500);
        assertThat(Parser.parse(ok)).isEqualTo(Atom.of("p"));

        String deep = "(".repeat(5000) + "p" + ")".repeat(5000);
        assertThatThrownBy(() -> Parser.parse(deep))
                .isInstanceOf(ParseException.class)
                .hasMessage("line 1:501: unexpected '(' beyond nesting depth 500, expected " + TOO_DEEP
                        + "\n" + deep + "\n" + " ".repeat(500) + "^");
    }

    /** A formula within the nesting limit parses even from a thread with little stack (the parser retries on its own). */
    @Test
    void aFormulaWithinTheLimitParsesOnASmallStack() throws Exception {
        String ok = "(".repeat(500) + "p" + ")".repeat(500);
        Object[] got = new Object[1];
        Thread t = new Thread(null, () -> {
            try {
                got[0] = Parser.parse(ok);
            } catch (Throwable e) {
                got[0] = e;
            }
        }, "small-stack", 128 * 1024);
        t.start();
        t.join();
        assertThat(got[0]).isEqualTo(Atom.of("p"));
    }

    @Test
    void operatorChainsDeeperThanTheLimitAreAClearError() {
        String nots = "!".repeat(499) + "p"; // tree depth 500
        assertThat(Formulas.size(Parser.parse(nots))).isEqualTo(500);
        String tooMany = "!".repeat(100_000) + "p";
        ParseException e = catchThrowableOfType(ParseException.class, () -> Parser.parse(tooMany));
        // The 500th '!' counted from the atom would make depth 501.
        assertThat(e.reason()).isEqualTo("unexpected '!' beyond nesting depth 500, expected " + TOO_DEEP);
        assertThat(e.column()).isEqualTo(100_000 - 499);

        String conjunction = "p" + " & p".repeat(10_000);
        ParseException c = catchThrowableOfType(ParseException.class, () -> Parser.parse(conjunction));
        assertThat(c.reason()).startsWith("unexpected '&' beyond nesting depth 500");
        assertThat(c.column()).isEqualTo(3 + 4 * 499); // the 500th '&'

        String implications = "p" + " -> p".repeat(10_000);
        assertThatThrownBy(() -> Parser.parse(implications)).isInstanceOf(ParseException.class)
                .hasMessageContaining("beyond nesting depth 500");

        String calls = "f(".repeat(10_000) + "x" + ")".repeat(10_000);
        assertThatThrownBy(() -> Parser.parse(calls)).isInstanceOf(ParseException.class)
                .hasMessageStartingWith("line 1:1002: unexpected '(' beyond nesting depth 500");
    }
}
