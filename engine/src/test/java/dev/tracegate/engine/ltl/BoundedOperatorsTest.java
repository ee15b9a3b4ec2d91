package dev.tracegate.engine.ltl;

import dev.tracegate.engine.reference.Semantics;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Bounded operators of MTL, STL and Spot ({@code F[0,3] φ}, {@code G[1,5] φ}, {@code X[2] φ}, {@code φ U[0,2] ψ}) are
 * not in the syntax; the parser refused them with only "unexpected '[', expected a formula after 'F'" (trial21
 * leftover). The hint now names what was read and gives the formula to write with the operators there are; each
 * rewrite it offers is checked here against the bounded operator's definition (bounds counting events) at every
 * position of every trace of up to five events over two atoms, by the reference semantics.
 */
class BoundedOperatorsTest {

    private static ParseException error(String formula) {
        return catchThrowableOfType(ParseException.class, () -> Parser.parse(formula));
    }

    @Test
    void aBoundedOperatorIsNamedWithTheFormulaToWriteInstead() {
        ParseException e = error("G(call(a) -> F[0,3] call(b))");
        assertThat(e.column()).isEqualTo(15);
        assertThat(e.expected()).isEqualTo("a formula after 'F' ('F[0,3]' is a bounded operator, which tracegate does not have;"
                + " a bound counts events here (each call, result and message is one), not time: write F[0,3] φ as"
                + " (φ | X φ | X X φ | X X X φ))");
        assertThat(error("G[1,5] !call(a)").expected()).contains("'G[1,5]' is a bounded operator")
                .contains("write G[1,5] φ as (WX φ & WX WX φ & WX WX WX φ & WX WX WX WX φ & WX WX WX WX WX φ)");
        assertThat(error("F[0:3] call(a)").expected()).as("Spot's colon").contains("'F[0:3]' is a bounded operator")
                .contains("(φ | X φ | X X φ | X X X φ)");
        assertThat(error("F [2, 3] call(a)").expected()).contains("'F[2,3]'").contains("as (X X φ | X X X φ)");
        assertThat(error("X[2] call(a)").expected()).contains("write X[2] φ as X X φ");
        assertThat(error("G(call(a) -> F[1,$] call(b))").expected()).contains("write F[1,$] φ as X F φ");
        assertThat(error("call(a) U[0,2] call(b)").expected()).contains("'U[0,2]' is a bounded operator")
                .contains("write φ U[0,2] ψ as (ψ | (φ & X (ψ | (φ & X ψ))))");
        assertThat(error("F[0,5s] call(a)").expected()).as("a bound in time units")
                .contains("'F[' starts a bounded operator, which tracegate does not have")
                .contains("F[0,2] φ is (φ | X φ | X X φ)");
        // long bounds are described, not spelt out
        assertThat(error("F[0,20] call(a)").expected()).contains("write F[0,20] φ as (φ | X φ | ... up to 20 times X)");
        assertThat(error("F[9000,9999] call(a)").expected()).contains("'F[9000,9999]' is a bounded operator").hasSizeLessThan(400);
        // no hint where no operator comes before the '[' or it is no interval after an operator
        assertThat(error("[ call(a)").expected()).doesNotContain("bounded");
        assertThat(error("G(call(a) -> call(b)[0,3])").expected()).doesNotContain("bounded");
    }

    @Test
    void everyRewriteTheHintOffersMeansTheBoundedOperator() {
        Formula both = Parser.parse("call(a) & call(b)");
        List<Atom> atoms = Formulas.atoms(both);
        int checked = 0;
        for (String op : List.of("F", "G", "O", "H", "U")) {
            for (int lo = 0; lo <= 3; lo++) {
                for (int hi = -1; hi <= 4; hi++) {
                    if (hi >= 0 && hi < lo) continue;
                    String rewrite = Parser.bounded(op, lo, hi);
                    assertThat(rewrite).as("%s[%d,%d]", op, lo, hi).isNotNull();
                    Formula f = Parser.parse(rewrite.replace("φ", "call(a)").replace("ψ", "call(b)"));
                    for (int n = 1; n <= 5; n++) {
                        for (long bits = 0; bits < (1L << (2 * n)); bits++) {
                            long[] trace = new long[n];
                            for (int i = 0; i < n; i++) trace[i] = (bits >>> (2 * i)) & 3;
                            for (int i = 0; i < n; i++) {
                                assertThat(Semantics.holdsAt(f, atoms, trace, i))
                                        .as("%s[%d,%d] as %s at %d of %s", op, lo, hi, rewrite, i, java.util.Arrays.toString(trace))
                                        .isEqualTo(bounded(op, lo, hi, trace, i));
                            }
                        }
                    }
                    checked++;
                }
            }
        }
        for (String op : List.of("X", "Y")) {
            for (int k = 0; k <= 4; k++) {
                Formula f = Parser.parse(Parser.bounded(op, k, null).replace("φ", "call(a)"));
                for (int n = 1; n <= 5; n++) {
                    for (long bits = 0; bits < (1L << n); bits++) {
                        long[] trace = new long[n];
                        for (int i = 0; i < n; i++) trace[i] = (bits >>> i) & 1;
                        for (int i = 0; i < n; i++) {
                            int j = op.equals("X") ? i + k : i - k;
                            assertThat(Semantics.holdsAt(f, atoms, trace, i)).as("%s[%d] at %d", op, k, i)
                                    .isEqualTo(j >= 0 && j < n && (trace[j] & 1) != 0);
                        }
                    }
                }
                checked++;
            }
        }
        assertThat(checked).isEqualTo(5 * 18 + 10);
    }

    /** The bounded operator's definition at position i: φ is bit 0 (call(a)), ψ bit 1 (call(b)); hi -1 is unbounded. */
    private static boolean bounded(String op, int lo, int hi, long[] t, int i) {
        int n = t.length;
        boolean past = op.equals("O") || op.equals("H");
        int from = past ? (hi < 0 ? 0 : Math.max(0, i - hi)) : i + lo;
        int to = past ? i - lo : (hi < 0 ? n - 1 : Math.min(n - 1, i + hi));
        switch (op) {
            case "F", "O": {
                for (int j = from; j <= to; j++) if ((t[j] & 1) != 0) return true;
                return false;
            }
            case "G", "H": {
                for (int j = from; j <= to; j++) if ((t[j] & 1) == 0) return false;
                return true;
            }
            default: {
                for (int j = from; j <= to; j++) {
                    if ((t[j] & 2) == 0) continue;
                    boolean before = true;
                    for (int k = i; k < j; k++) before &= (t[k] & 1) != 0;
                    if (before) return true;
                }
                return false;
            }
        }
    }
}
