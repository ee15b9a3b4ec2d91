package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Formulas whose automata blow up are refused with a message that names the formula, the bound and the fix. */
class StateLimitTest {

    @Test
    void aFarLookaheadExceedsTheBoundWithAnExactMessage() {
        // F(a & X^10 b) must remember the last ten positions: about 2^10 states.
        Formula f = Parser.parse("F(a & X X X X X X X X X X b)");
        assertThatThrownBy(() -> new DfaCompiler(64).compile(f))
                .isInstanceOf(StateLimitException.class)
                .hasMessage("formula F (a & X X X X X X X X X X b) needs more than 64 automaton states; split the "
                        + "contract into smaller formulas, or raise the bound (system property "
                        + "tracegate.engine.max-states, or the library's max-states setting)")
                .satisfies(e -> {
                    StateLimitException s = (StateLimitException) e;
                    assertThat(s.bound()).isEqualTo(64);
                    assertThat(s.formula()).isEqualTo("F (a & X X X X X X X X X X b)");
                });
        // With room enough it compiles, and is minimal.
        Dfa dfa = new DfaCompiler(100_000).compile(Parser.parse("F(a & X X X X b)"));
        MinimalityTest.checkMinimalAndClassified(Parser.parse("F(a & X X X X b)"), dfa);
    }

    @Test
    void manyIndependentEventualitiesOverDistinctAtomsAreRefusedNotRunOutOfMemory() {
        // 2^24 minimal states; diagram form (24 atoms); refused at the bound.
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 24; i++) parts.add("F e" + i);
        Formula f = Parser.parse(String.join(" & ", parts));
        assertThatThrownBy(() -> new DfaCompiler(2_000).compile(f))
                .isInstanceOf(StateLimitException.class)
                .hasMessageContaining("needs more than 2000 automaton states")
                // A long formula is cut in the message, with its full length given.
                .hasMessageContaining(" ... (")
                .hasMessageContaining(" chars) needs more");
    }

    @Test
    void nestedUntilsThatGrowTheNormalFormAreRefusedToo() {
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 16; i++) parts.add("(a" + i + " U b" + i + ")");
        Formula f = Parser.parse("G(" + String.join(" | ", parts) + ")");
        assertThatThrownBy(() -> new DfaCompiler(500).compile(f)).isInstanceOf(StateLimitException.class);
    }

    @Test
    void manyAlternativeNextObligationsStaySmallBecauseObligationsAreCanonical() {
        // Thirteen "a_i or b_i next, if any" at once: 2^13 clauses as a DNF, a line as a BDD.
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 13; i++) parts.add("(WX a" + i + " | WX b" + i + ")");
        Formula f = Parser.parse("G(" + String.join(" & ", parts) + ")");
        Dfa dfa = new DfaCompiler(100).compile(f);
        // Next letter unconstrained, next letter constrained, violated.
        assertThat(dfa.stateCount()).isEqualTo(3);
        long allA = 0;
        for (int i = 0; i < 13; i++) allA |= 1L << dfa.atoms().indexOf(dev.tracegate.engine.ltl.Atom.of("a" + i));
        long missingA7 = allA & ~(1L << dfa.atoms().indexOf(dev.tracegate.engine.ltl.Atom.of("a7")));
        assertThat(dfa.verdict(dfa.run(0L, allA, allA)).name()).isEqualTo("PRESUMABLY_SATISFIED");
        assertThat(dfa.verdict(dfa.run(0L, allA, missingA7)).name()).isEqualTo("PERMANENTLY_VIOLATED");
    }

    @Test
    void intermediateWorkBeyondWhatTheBoundAllowsIsRefusedWithItsOwnReason() {
        // The same obligations, but the F part first numbers all a's before all b's, so the
        // obligation's BDD (literals in that order) needs 2^17 nodes: more than a bound of 1000 allows.
        List<String> as = new ArrayList<>();
        List<String> bs = new ArrayList<>();
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 17; i++) {
            as.add("a" + i);
            bs.add("b" + i);
            parts.add("(WX a" + i + " | WX b" + i + ")");
        }
        Formula f = Parser.parse("F(" + String.join(" & ", as) + " & " + String.join(" & ", bs) + ") | G("
                + String.join(" & ", parts) + ")");
        assertThatThrownBy(() -> new DfaCompiler(1_000).compile(f))
                .isInstanceOf(StateLimitException.class)
                .hasMessageEndingWith(" is too large to compile within the bound of 1000 automaton states (its "
                        + "intermediate normal forms outgrew what that bound allows); split the contract into smaller "
                        + "formulas, or raise the bound (system property tracegate.engine.max-states, or the "
                        + "library's max-states setting)");
    }

    @Test
    void theBoundMustBePositive() {
        assertThatThrownBy(() -> new DfaCompiler(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxStates must be at least 1, got 0");
    }
}
