package dev.tracegate.engine.ltl;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * Other LTLf-with-past tools write weak yesterday {@code Z φ} and weak since {@code φ B ψ}; tracegate has neither, and
 * the parser's hint and docs/FORMULAS.md give {@code !Y !φ} and {@code (φ S ψ) | H φ} instead. Both are checked here
 * against the operators' definitions written out over every trace of up to six events (not against the engine's own
 * evaluators), through the compiler the monitor uses.
 */
class ForeignPastOperatorsTest {

    private static final int MAX_LEN = 6;

    /** Z p at i: i is the first position, or p held at i-1. */
    private static boolean weakYesterday(boolean[] p, int i) {
        return i == 0 || p[i - 1];
    }

    /** p B q at i: q held at some j <= i and p at every position after j up to i, or p held at every position up to i. */
    private static boolean weakSince(boolean[] p, boolean[] q, int i) {
        boolean always = true;
        for (int k = 0; k <= i; k++) always &= p[k];
        if (always) return true;
        for (int j = i; j >= 0; j--) {
            if (q[j]) return true;
            if (!p[j]) return false;
        }
        return false;
    }

    @Test
    void theRewritesMeanWeakYesterdayAndWeakSinceAtEveryPosition() {
        DfaCompiler compiler = new DfaCompiler(1_000);
        // a past formula holds at the last event of a prefix exactly when the prefix satisfies F(ψ & WX false)
        Dfa z = compiler.compile(Parser.parse("F((!Y !p) & WX false)"));
        Dfa b = compiler.compile(Parser.parse("F(((p S q) | H p) & WX false)"));
        int checked = 0;
        for (int len = 1; len <= MAX_LEN; len++) {
            for (int bits = 0; bits < 1 << (2 * len); bits++) {
                boolean[] p = new boolean[len];
                boolean[] q = new boolean[len];
                for (int i = 0; i < len; i++) {
                    p[i] = (bits >>> (2 * i) & 1) != 0;
                    q[i] = (bits >>> (2 * i + 1) & 1) != 0;
                }
                int i = len - 1;
                assertThat(accepts(z, p, q, len)).as("!Y !p at %d of p=%s", i, java.util.Arrays.toString(p))
                        .isEqualTo(weakYesterday(p, i));
                assertThat(accepts(b, p, q, len)).as("(p S q) | H p at %d of p=%s q=%s", i, java.util.Arrays.toString(p),
                        java.util.Arrays.toString(q)).isEqualTo(weakSince(p, q, i));
                checked++;
            }
        }
        assertThat(checked).isEqualTo(5460);
    }

    private static boolean accepts(Dfa d, boolean[] p, boolean[] q, int len) {
        List<Atom> atoms = d.atoms();
        int s = d.initialState();
        for (int i = 0; i < len; i++) {
            long letter = 0;
            for (int j = 0; j < atoms.size(); j++) {
                boolean v = atoms.get(j).name().equals("p") ? p[i] : q[i];
                if (v) letter |= 1L << j;
            }
            s = d.next(s, letter);
        }
        return d.accepting(s);
    }

    /** The hint names the past operators that docs/FORMULAS.md lists, and the page gives the same rewrites. */
    @Test
    void theHintAndTheDocsAgree() throws Exception {
        String hint = catchThrowableOfType(ParseException.class, () -> Parser.parse("Z p")).expected();
        assertThat(hint).contains("the past operators are Y, O, H and S").contains("!Y !φ");
        String doc = Files.readString(Path.of("../docs/FORMULAS.md"));
        for (String row : List.of("| `Y φ` |", "| `O φ` |", "| `H φ` |", "| `φ S ψ` |")) assertThat(doc).contains(row);
        assertThat(doc).contains("`!Y !φ`").contains("`(φ S ψ) | H φ`");
    }
}
