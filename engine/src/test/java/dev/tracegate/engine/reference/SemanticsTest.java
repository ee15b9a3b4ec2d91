package dev.tracegate.engine.reference;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The oracle itself, on traces small enough to check by hand against the definitions. */
class SemanticsTest {
    private static final List<Atom> ABC = FormulaArbitraries.atoms(3);
    private static final long A = 1, B = 2, C = 4, NONE = 0;

    private static boolean holds(String formula, long... trace) {
        return Semantics.holds(Parser.parse(formula), ABC, trace);
    }

    private static boolean holdsAt(String formula, int i, long... trace) {
        return Semantics.holdsAt(Parser.parse(formula), ABC, trace, i);
    }

    @Test
    void theEmptyTraceSatisfiesEveryFormula() {
        assertThat(holds("false")).isTrue();
        assertThat(holds("X a")).isTrue();
        assertThat(holds("F a & G !a")).isTrue();
    }

    @Test
    void strongAndWeakNext() {
        assertThat(holds("X a", A)).isFalse();          // no next position
        assertThat(holds("WX a", NONE)).isTrue();       // no next position
        assertThat(holds("WX false", NONE)).isTrue();
        assertThat(holds("WX false", NONE, NONE)).isFalse();
        assertThat(holds("X a", NONE, A)).isTrue();
        assertThat(holds("X a", NONE, B)).isFalse();
        assertThat(holds("X X true", NONE, NONE)).isFalse();
        assertThat(holds("X X true", NONE, NONE, NONE)).isTrue();
    }

    @Test
    void untilWeakUntilRelease() {
        assertThat(holds("a U b", A, A, B)).isTrue();
        assertThat(holds("a U b", A, A)).isFalse();
        assertThat(holds("a U b", A, NONE, B)).isFalse();
        assertThat(holds("a U b", B)).isTrue();
        assertThat(holds("a W b", A, A)).isTrue();
        assertThat(holds("a W b", A, NONE)).isFalse();
        assertThat(holds("a R b", B, B)).isTrue();          // b to the end
        assertThat(holds("a R b", B, A | B, NONE)).isTrue(); // released by a
        assertThat(holds("a R b", B, NONE)).isFalse();
        assertThat(holds("a R b", A)).isFalse();            // b must hold where a releases it
    }

    @Test
    void eventuallyAndAlways() {
        assertThat(holds("F a", NONE, NONE, A)).isTrue();
        assertThat(holds("F a", NONE, NONE)).isFalse();
        assertThat(holds("G a", A, A)).isTrue();
        assertThat(holds("G a", A, NONE)).isFalse();
        assertThat(holds("G (a -> F b)", A, NONE, B, A)).isFalse();
        assertThat(holds("G (a -> F b)", A, NONE, B, A | B)).isTrue();
    }

    @Test
    void pastOperators() {
        assertThat(holdsAt("Y a", 0, A)).isFalse();
        assertThat(holdsAt("Y a", 1, A, NONE)).isTrue();
        assertThat(holdsAt("O a", 2, A, NONE, NONE)).isTrue();
        assertThat(holdsAt("O a", 1, NONE, NONE, A)).isFalse();
        assertThat(holdsAt("H a", 1, A, A, NONE)).isTrue();
        assertThat(holdsAt("H a", 2, A, A, NONE)).isFalse();
        assertThat(holdsAt("a S b", 2, B, A, A)).isTrue();
        assertThat(holdsAt("a S b", 2, B, NONE, A)).isFalse();
        assertThat(holdsAt("a S b", 0, B)).isTrue();
        assertThat(holdsAt("a S b", 1, A, A)).isFalse();    // b never held
        // The since pattern: a b needs an earlier-or-same a with no c after it.
        assertThat(holds("G (b -> (!c S a))", A | C, B)).isTrue();
        assertThat(holds("G (b -> (!c S a))", A, C, B)).isFalse();
        assertThat(holds("G (b -> (!c S a))", A, C, A, B)).isTrue();
    }

    @Test
    void futureInsidePastIsEvaluatedToo() {
        assertThat(holdsAt("O X a", 0, NONE, A)).isTrue();
        assertThat(holdsAt("H F b", 1, NONE, B, NONE)).isTrue();
        assertThat(holdsAt("H F b", 2, NONE, B, NONE)).isFalse();
    }

    @Test
    void lettersFollowTheGivenAtomOrder() {
        Formula f = Parser.parse("c & !a");
        assertThat(Semantics.holds(f, ABC, new long[] {C})).isTrue();
        assertThat(Semantics.holds(f, List.of(Atom.of("c"), Atom.of("a")), new long[] {1})).isTrue();
        assertThat(Semantics.holds(f, List.of(Atom.of("c"), Atom.of("a")), new long[] {C})).isFalse();
    }

    @Test
    void anAtomOutsideTheAlphabetIsRejected() {
        assertThatThrownBy(() -> Semantics.holds(Parser.parse("z"), ABC, new long[] {0}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("atom z is not in the alphabet [a, b, c]");
    }
}
