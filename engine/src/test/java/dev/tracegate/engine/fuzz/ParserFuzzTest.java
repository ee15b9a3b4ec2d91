package dev.tracegate.engine.fuzz;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.ParseException;
import dev.tracegate.engine.ltl.Parser;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.Iterator;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The formula parser, fed random token soup, mutated valid formulas and pathological nesting,
 * either returns a formula or throws {@link ParseException} with a position, and always answers.
 * The default run takes a few seconds; {@code -Plong} runs {@link #longRun} for
 * {@code tracegate.fuzz.minutes} minutes (default 10).
 */
class ParserFuzzTest {
    static final List<String> VALID = List.of(
            "G (call(refund) -> O returned(approve_refund))",
            "G !(personal_data & !consented)",
            "(!call(send)) W returned(verify)",
            "G (arg(refund, amount) > 5000 -> ctx(approved) == true)",
            "F end & G (call(x) -> X !call(x))",
            "H (untrusted_target -> !side_effect) S user_matches(\"ok\\n\")",
            "G (call(send, \"\\\"to\\\":\\\"[^\\\"]*@evil\") -> false) # comment",
            "arg_in(send, to, [\"a\", 1, -2.5, [x]]) <-> WX Y O true",
            "count(send) <= 3 && since(call(verify)) < 3 || path_within(path, [\"/srv\"])",
            "p U q R r S s W t");
    static final String[] PIECES = {"(", ")", "[", "]", ",", "!", "&", "&&", "|", "||", "->", "<->", "<", "<=", ">", ">=",
        "==", "!=", "X", "WX", "F", "G", "U", "W", "R", "S", "Y", "O", "H", "true", "false", "call", "arg", "a.b", "x",
        "\"s\"", "\"\\\"", "\"\\q\"", "\"", "1", "-2.5", "1.", "-", ".", "#", "\n", " ", "\t", "\u0000", "é", "🙂", "a..b", "_"};
    /** One daemon worker for the whole class; a hang leaves it stuck, but the test has already failed. */
    private static final Bounded BOUNDED = new Bounded();

    @Provide Arbitrary<String> tokenSoup() {
        return Combinators.combine(Arbitraries.of(PIECES).list().ofMaxSize(40), Arbitraries.of("", " "))
                .as((l, sep) -> String.join(sep, l));
    }

    @Provide Arbitrary<String> mutatedValid() {
        return Combinators.combine(Arbitraries.of(VALID), Arbitraries.integers().between(1, 6), Arbitraries.longs())
                .as((base, n, seed) -> Mutation.mutate(base, n, new java.util.Random(seed), PIECES));
    }

    @Provide Arbitrary<String> deep() {
        return Combinators.combine(Arbitraries.of("(", "!", "X ", "G ", "[", "call(", "f(", "a U ", "a -> ", "a & ("),
                        Arbitraries.oneOf(Arbitraries.integers().between(Parser.MAX_DEPTH - 8, Parser.MAX_DEPTH + 2),
                                Arbitraries.integers().between(Parser.MAX_DEPTH, 20_000)),
                        Arbitraries.of("", "a", "a)", ")"))
                .as((open, n, tail) -> open.repeat(n) + tail + ")".repeat(n / 2));
    }

    @Property(tries = 1500) void tokenSoupParsesOrExplains(@ForAll("tokenSoup") String text) throws Throwable { check(text); }

    @Property(tries = 1500) void mutatedFormulasParseOrExplain(@ForAll("mutatedValid") String text) throws Throwable { check(text); }

    /**
     * Fuzzing finding (fixed): once the parser is JIT-compiled (after ~100,000 parses), 496 nested
     * parentheses could overflow a default-size (1 MB) thread stack although {@link Parser#MAX_DEPTH}
     * promises none; Parser.parse now turns a stack overflow into a ParseException. Long because it
     * needs the JIT warm-up: {@code mvn -Plong -pl engine test -Dtest=ParserFuzzTest}.
     */
    @Tag("long") @Property(tries = 60) void deepNestingIsRefusedWithoutStackOverflow(@ForAll("deep") String text) throws Throwable { check(text); }

    @Property(tries = 800) void arbitraryUnicodeParsesOrExplains(@ForAll String text) throws Throwable { check(text); }

    /** Nesting just beyond the limit is refused with a ParseException naming it (the limit itself works). */
    @Test void nestingBeyondTheLimitIsRefused() throws Throwable {
        String text = "!".repeat(Parser.MAX_DEPTH + 10) + "a";
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> BOUNDED.run(text, () -> Parser.parse(text)))
                .isInstanceOf(ParseException.class).hasMessageContaining("nesting depth");
    }

    @Test void validCorpusParses() throws Throwable {
        for (String v : VALID) assertThat(check(v)).as(v).isNotNull();
    }

    /** {@code -Plong}: all generators round-robin for a fixed wall-clock budget; a finding fails with its input. */
    @Test @Tag("long") void longRun() throws Throwable {
        long end = System.nanoTime() + java.util.concurrent.TimeUnit.MINUTES.toNanos(Long.getLong("tracegate.fuzz.minutes", 10));
        List<Iterator<String>> sources = List.of(tokenSoup().sampleStream().iterator(), mutatedValid().sampleStream().iterator(),
                deep().sampleStream().iterator(), Arbitraries.strings().ofMaxLength(200).sampleStream().iterator());
        long inputs = 0;
        while (System.nanoTime() < end) {
            for (Iterator<String> s : sources) { check(s.next()); inputs++; }
        }
        System.out.println("ParserFuzzTest.longRun: " + inputs + " inputs, 0 findings");
    }

    /** Parses within the deadline; a result or a ParseException with a position is fine, anything else fails. */
    static Formula check(String text) throws Throwable {
        try {
            return BOUNDED.run(text, () -> Parser.parse(text));
        } catch (ParseException e) {
            assertThat(e.getMessage()).as("message of the error for %s", Bounded.abbreviate(text)).isNotBlank();
            return null;
        } catch (Throwable t) {
            return fail("Parser.parse threw " + t + " (only ParseException is documented) for input: " + Bounded.abbreviate(text), t);
        }
    }
}
