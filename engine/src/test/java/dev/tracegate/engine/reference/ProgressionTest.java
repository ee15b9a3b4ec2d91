package dev.tracegate.engine.reference;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_SATISFIED;
import static dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_VIOLATED;
import static dev.tracegate.engine.ltl.RvVerdict.PRESUMABLY_SATISFIED;
import static dev.tracegate.engine.ltl.RvVerdict.PRESUMABLY_VIOLATED;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Progression against the direct semantics, and its four-valued verdicts against hand-worked patterns. */
class ProgressionTest {
    private static final List<Atom> ABC = FormulaArbitraries.atoms(3);
    private static final long A = 1, B = 2, C = 4, NONE = 0;

    // ---------------------------------------------------------------- acceptance vs semantics

    @Property(tries = 10_000)
    void progressionAcceptsExactlyWhatTheSemanticsAcceptsAtEveryPrefix(@ForAll("withPast") FormulaArbitraries.Sample s) {
        Progression.Residual r = Progression.start(s.formula(), s.atoms());
        for (int i = 0; ; i++) {
            boolean expected = Semantics.holds(s.formula(), s.atoms(), s.prefix(i));
            assertThat(Progression.acceptsAtEnd(r)).as("%s after %d letters, residual %s", s, i, r).isEqualTo(expected);
            if (i == s.trace().length) break;
            r = Progression.step(r, s.trace()[i]);
        }
    }

    @Property(tries = 2_000)
    void futureOnlyFormulasAgreeToo(@ForAll("futureOnly") FormulaArbitraries.Sample s) {
        assertThat(Progression.accepts(s.formula(), s.atoms(), s.trace()))
                .as("%s", s).isEqualTo(Semantics.holds(s.formula(), s.atoms(), s.trace()));
    }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> withPast() { return FormulaArbitraries.samples(4, 4, true, 8); }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> futureOnly() {
        List<Atom> atoms = FormulaArbitraries.atoms(3);
        return net.jqwik.api.Combinators.combine(FormulaArbitraries.futureFormulas(3, 5), FormulaArbitraries.traces(3, 10))
                .as((f, t) -> new FormulaArbitraries.Sample(f, atoms, t));
    }

    // ---------------------------------------------------------------- verdicts vs semantics

    private int verdictSamples;
    private int verdictSkips;

    /**
     * A final verdict must hold for every short extension (checked by the semantics); a non-final one
     * must come with an extension that flips acceptance, and the semantics must confirm the flip.
     */
    @Property(tries = 1_000)
    void verdictsAreConfirmedByTheSemantics(@ForAll("verdictSamples") FormulaArbitraries.Sample s) {
        verdictSamples++;
        RvVerdict[] verdicts;
        try {
            verdicts = Progression.verdicts(s.formula(), s.atoms(), s.trace(), 20_000);
        } catch (ResidualLimitException e) {
            verdictSkips++;
            return;
        }
        for (int i = 0; i <= s.trace().length; i++) {
            long[] prefix = s.prefix(i);
            boolean accepting = Semantics.holds(s.formula(), s.atoms(), prefix);
            RvVerdict v = verdicts[i];
            assertThat(v.accepting()).as("%s after %d letters", s, i).isEqualTo(accepting);
            Optional<long[]> flip = Progression.flippingExtension(s.formula(), s.atoms(), prefix, 20_000);
            assertThat(flip.isPresent()).as("%s after %d letters: %s but flipping extension %s", s, i, v, flip)
                    .isEqualTo(!v.isFinal());
            if (flip.isPresent()) {
                long[] longer = concat(prefix, flip.get());
                assertThat(Semantics.holds(s.formula(), s.atoms(), longer))
                        .as("%s: %s extended by %s", s, v, FormulaArbitraries.show(flip.get(), s.atoms()))
                        .isEqualTo(!accepting);
            } else {
                for (long[] w : extensions(s.atoms().size(), 2)) {
                    assertThat(Semantics.holds(s.formula(), s.atoms(), concat(prefix, w)))
                            .as("%s: %s extended by %s", s, v, FormulaArbitraries.show(w, s.atoms()))
                            .isEqualTo(accepting);
                }
            }
        }
    }

    @AfterProperty
    void skipsAreRare() {
        // Only meaningful after the verdict property; the others leave both counters at zero.
        assertThat(verdictSkips).as("samples skipped for exceeding the residual limit, of %d", verdictSamples)
                .isLessThanOrEqualTo(verdictSamples / 100);
    }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> verdictSamples() { return FormulaArbitraries.samples(3, 4, true, 6); }

    private static long[] concat(long[] a, long[] b) {
        long[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** Every word of length 1 to {@code maxLength} over {@code atoms} atoms. */
    private static List<long[]> extensions(int atoms, int maxLength) {
        List<long[]> out = new java.util.ArrayList<>();
        long letters = 1L << atoms;
        for (int len = 1; len <= maxLength; len++) {
            long count = 1;
            for (int i = 0; i < len; i++) count *= letters;
            for (long code = 0; code < count; code++) {
                long[] w = new long[len];
                long c = code;
                for (int i = 0; i < len; i++) { w[i] = c % letters; c /= letters; }
                out.add(w);
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- verdicts on standard patterns

    private static RvVerdict verdict(String formula, long... prefix) {
        return Progression.verdict(Parser.parse(formula), ABC, prefix);
    }

    @Test
    void precedenceNoBBeforeA() {
        String f = "!b W a";
        assertThat(verdict(f)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, NONE)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A)).isEqualTo(PERMANENTLY_SATISFIED);
        assertThat(verdict(f, A | B)).isEqualTo(PERMANENTLY_SATISFIED);
        assertThat(verdict(f, B)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, NONE, C, B)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, NONE, A, B)).isEqualTo(PERMANENTLY_SATISFIED);
    }

    @Test
    void responseEveryAIsFollowedByB() {
        String f = "G(a -> F b)";
        assertThat(verdict(f)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, NONE)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A)).isEqualTo(PRESUMABLY_VIOLATED);
        assertThat(verdict(f, A, C)).isEqualTo(PRESUMABLY_VIOLATED);
        assertThat(verdict(f, A, B)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A | B)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, B, A)).isEqualTo(PRESUMABLY_VIOLATED);
    }

    @Test
    void boundedExistenceAtMostTwoAs() {
        String f = "!F(a & X F(a & X F a))";
        assertThat(verdict(f)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, NONE, A)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, NONE, A, B, A)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, A, A, A)).isEqualTo(PERMANENTLY_VIOLATED);
    }

    @Test
    void absenceOfBAfterA() {
        String f = "G(a -> G !b)";
        assertThat(verdict(f, B)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, B, A)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, NONE)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, B)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, A | B)).isEqualTo(PERMANENTLY_VIOLATED);
    }

    @Test
    void sinceBOnlyAfterAWithNoCInBetween() {
        String f = "G(b -> (!c S a))";
        assertThat(verdict(f)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, B)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, A, B)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A, C, B)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict(f, A, C, A, B)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict(f, A | B)).isEqualTo(PRESUMABLY_SATISFIED);
        // c at the position of a itself does not cancel it: (j, i] excludes j.
        assertThat(verdict(f, A | C, B)).isEqualTo(PRESUMABLY_SATISFIED);
    }

    @Test
    void finiteTraceCornerCases() {
        assertThat(verdict("true")).isEqualTo(PERMANENTLY_SATISFIED);
        assertThat(verdict("false")).isEqualTo(PRESUMABLY_SATISFIED);   // only the empty trace satisfies it
        assertThat(verdict("false", NONE)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict("F a")).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict("F a", NONE)).isEqualTo(PRESUMABLY_VIOLATED);
        assertThat(verdict("F a", NONE, A)).isEqualTo(PERMANENTLY_SATISFIED);
        assertThat(verdict("X a", NONE)).isEqualTo(PRESUMABLY_VIOLATED);
        assertThat(verdict("X a", NONE, A)).isEqualTo(PERMANENTLY_SATISFIED);
        assertThat(verdict("X a", NONE, NONE)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict("WX false", NONE)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict("WX false", NONE, NONE)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict("G a", A, A)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict("G a", A, NONE)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(verdict("H a", A)).isEqualTo(PERMANENTLY_SATISFIED);   // a past formula is read at position 0
        assertThat(verdict("G (a -> Y b)", B, A)).isEqualTo(PRESUMABLY_SATISFIED);
        assertThat(verdict("G (a -> Y b)", A)).isEqualTo(PERMANENTLY_VIOLATED);
    }

    @Test
    void verdictsAtEveryPrefixMatchSingleVerdicts() {
        Formula f = Parser.parse("G(b -> (!c S a))");
        long[] trace = {A, C, A, B, B, C, B};
        RvVerdict[] all = Progression.verdicts(f, ABC, trace);
        assertThat(all).hasSize(trace.length + 1);
        for (int i = 0; i <= trace.length; i++) {
            assertThat(all[i]).isEqualTo(Progression.verdict(f, ABC, Arrays.copyOf(trace, i)));
        }
        assertThat(all[trace.length]).isEqualTo(PERMANENTLY_VIOLATED);
    }

    // ---------------------------------------------------------------- residuals and limits

    @Test
    void residualsShowTheOpenObligation() {
        Formula f = Parser.parse("G(a -> F b)");
        Progression.Residual r = Progression.step(Progression.start(f, ABC), A);
        assertThat(r.isDecided()).isFalse();
        assertThat(Formulas.print(r.obligation())).isEqualTo("(X F b & WX G (a -> F b))");
        Progression.Residual done = Progression.step(Progression.start(Parser.parse("F a"), ABC), A);
        assertThat(done.isDecided()).isTrue();
        assertThat(done.obligation()).isEqualTo(Formula.Const.TRUE);
    }

    @Test
    void equalObligationsAreEqualResiduals() {
        Formula f = Parser.parse("G(a -> F b)");
        Progression.Residual start = Progression.start(f, ABC);
        Progression.Residual afterAB = Progression.step(Progression.step(start, A), B);
        Progression.Residual afterC = Progression.step(start, C);
        assertThat(afterAB).isEqualTo(afterC).hasSameHashCodeAs(afterC);
    }

    @Test
    void futureInsidePastIsRejectedWithTheOffendingSubformula() {
        assertThatThrownBy(() -> Progression.start(Parser.parse("G (a -> O X b)"), ABC))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("progression needs past-only operands of Y, O, H and S, but O X b has a future operator inside a past one");
    }

    @Test
    void exploringTooManyResidualsIsAClearError() {
        Formula f = Parser.parse("F(a & X X X X b)");
        assertThatThrownBy(() -> Progression.verdict(f, ABC, new long[0], 5))
                .isInstanceOf(ResidualLimitException.class)
                .hasMessage("formula F (a & X X X X b): more than 5 distinct residuals are reachable;"
                        + " raise the limit or use a smaller formula");
        assertThat(Progression.verdict(f, ABC, new long[0], 1_000)).isEqualTo(PRESUMABLY_SATISFIED);
    }
}
