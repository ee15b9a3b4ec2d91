package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** A future operator inside a past operator is refused with what, where and how to rewrite it. */
class PastOperandTest {
    private final DfaCompiler compiler = new DfaCompiler(1_000);

    @Test
    void futureInsidePastIsRefusedWithAnExactMessage() {
        assertThatThrownBy(() -> compiler.compile(Parser.parse("G(b -> O(a & F c))")))
                .isInstanceOf(CompileException.class)
                .isNotInstanceOf(StateLimitException.class)
                .hasMessage("future operator F at column 18 inside past operator O at column 10 of "
                        + "G (b -> O (a & F c)) (its atom c is at line 1:16 of the source): the operands of Y, O, H and S must be "
                        + "past-only. Rewrite so that the future operator is outside and the past one inside, "
                        + "e.g. G(b -> O a) (every b preceded by an a) instead of O(F ...) or H(X ...)");
    }

    @Test
    void everyPastOperatorChecksBothOperands() {
        for (String bad : new String[] {"Y X a", "H(a U b)", "a S WX b", "(G a) S b", "O(Y(a R b))"}) {
            assertThatThrownBy(() -> compiler.compile(Parser.parse(bad))).as(bad)
                    .isInstanceOf(CompileException.class)
                    .hasMessageStartingWith("future operator ")
                    .hasMessageContaining("must be past-only");
        }
    }
}
