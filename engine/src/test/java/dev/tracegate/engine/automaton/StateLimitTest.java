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
                .hasMessage("formula F ((a & X X X X X X X X X X b)) needs more than 64 automaton states; split the "
                        + "contract into smaller formulas, or raise the bound (system property "
                        + "tracegate.engine.max-states, or the library's max-states setting)")
                .satisfies(e -> {
                    StateLimitException s = (StateLimitException) e;
                    assertThat(s.bound()).isEqualTo(64);
                    assertThat(s.formula()).isEqualTo("F ((a & X X X X X X X X X X b))");
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
    void aNormalFormThatOutgrowsTheBoundIsRefusedWithItsOwnReason() {
        // Thirteen "a_i or b_i next, if any" obligations at once: the obligations' DNF has 2^13 clauses even
        // though the minimal automaton is tiny. This is a known limit of the construction, reported as such.
        List<String> parts = new ArrayList<>();
        for (int i = 0; i < 13; i++) parts.add("(WX a" + i + " | WX b" + i + ")");
        Formula f = Parser.parse("G(" + String.join(" & ", parts) + ")");
        assertThatThrownBy(() -> new DfaCompiler(10_000).compile(f))
                .isInstanceOf(StateLimitException.class)
                .hasMessageEndingWith(" is too large to compile within the bound of 10000 automaton states (its "
                        + "intermediate normal forms outgrew what that bound allows); split the contract into smaller "
                        + "formulas, or raise the bound (system property tracegate.engine.max-states, or the "
                        + "library's max-states setting)");
        // Six of them fit: not yet constrained, constrained, violated.
        Formula six = Parser.parse("G(" + String.join(" & ", parts.subList(0, 6)) + ")");
        Dfa sixDfa = new DfaCompiler(10_000).compile(six);
        assertThat(sixDfa.stateCount()).isEqualTo(3);
        MinimalityTest.checkMinimalAndClassified(six, sixDfa);
    }

    @Test
    void theBoundMustBePositive() {
        assertThatThrownBy(() -> new DfaCompiler(0)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxStates must be at least 1, got 0");
    }
}
