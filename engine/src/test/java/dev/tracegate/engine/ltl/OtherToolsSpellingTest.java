package dev.tracegate.engine.ltl;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * trial21 (03): operators written together as Spot and most LTL tools accept them ({@code GF}, {@code FG}, {@code XX})
 * are read as an atom's name, and the error pointed at the next token without saying so; {@code []}, {@code <>} and
 * {@code ~} only got "unexpected". Each now says what it was read as and what to write; the formula is still refused.
 */
class OtherToolsSpellingTest {

    private static ParseException error(String formula) {
        return catchThrowableOfType(ParseException.class, () -> Parser.parse(formula));
    }

    @Test
    void gluedOperatorsAreNamedWithTheOperatorsApart() {
        assertThat(error("G(call(a) -> GF call(b))").expected())
                .contains("'GF' is no operator here, so it is read as an atom's name; write the operators apart: G F");
        assertThat(error("G(call(a) -> FG !call(b))").expected()).contains("'FG' is no operator here").contains("F G");
        assertThat(error("XX call(b)").expected()).contains("'XX' is no operator here").contains("X X");
        assertThat(Parser.gluedOperators("GO")).isNotNull();
        assertThat(Parser.gluedOperators("WX")).as("an operator itself").isNull();
        assertThat(Parser.gluedOperators("Go")).isNull();
        assertThat(Parser.gluedOperators("G")).isNull();
    }

    @Test
    void otherToolsSpellingsOfAlwaysEventuallyAndNotSayWhatToWrite() {
        assertThat(error("[] call(a)").expected()).contains("'[]' is no operator here: write G φ");
        assertThat(error("<> call(a)").expected()).contains("'<>' is no operator here: write F φ");
        assertThat(error("G ~call(a)").expected()).contains("'~' is no operator here: write !φ");
        assertThat(error("[ call(a)").expected()).doesNotContain("'[]'");
    }
}
