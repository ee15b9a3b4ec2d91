package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every compiled automaton is minimal (all states reachable, no two states equivalent, checked by
 * the textbook pair-marking algorithm on the letters, independently of the compiler's refinement)
 * and its verdicts are right: a state is final exactly when every state reachable from it has its
 * acceptance, and then it is a sink.
 */
class MinimalityTest {
    private final DfaCompiler compiler = new DfaCompiler(10_000);

    @Test
    void randomFormulasCompileToMinimalAutomataWithCorrectVerdicts() {
        for (int i = 0; i < 400; i++) {
            Formula f = new RandomFormulas(77_000 + i, 1 + i % 4).next(2 + i % 4);
            checkMinimalAndClassified(f, compiler.compile(f));
        }
        for (String p : MonaOracleTest.PATTERNS) checkMinimalAndClassified(Parser.parse(p), compiler.compile(Parser.parse(p)));
    }

    @Test
    void diagramAutomataAreMinimalToo() {
        // 11 atoms: above the table limit, so transitions are decision diagrams.
        Formula f = Parser.parse("(x0 U x1) & G(x2 -> F(x3 | x4)) & G(x5 -> O x6) & G(x7 -> (!x8 S x9)) & F x10");
        Dfa dfa = compiler.compile(f);
        assertThat(dfa.isTable()).isFalse();
        checkMinimalAndClassified(f, dfa);
    }

    @Test
    void theCheckRejectsAnAutomatonWithTwoEquivalentStates() {
        // "F a" with its waiting state duplicated: 0 -!a-> 1 -!a-> 3 -!a-> 1, a -> 2 (done).
        Formula f = Parser.parse("F a");
        Dfa doubled = Dfa.ofTable(f, java.util.List.of(dev.tracegate.engine.ltl.Atom.of("a")), 0,
                new boolean[] {true, false, true, false}, new boolean[] {false, false, true, false},
                new String[4], new int[] {1, 2, 3, 2, 2, 2, 1, 2});
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> checkMinimalAndClassified(f, doubled))
                .hasMessageContaining("states 1 and 3 are equivalent");
    }

    static void checkMinimalAndClassified(Formula f, Dfa dfa) {
        String what = Formulas.print(f);
        int n = dfa.stateCount();
        int letters = 1 << dfa.atoms().size();
        int[][] next = new int[n][letters];
        for (int s = 0; s < n; s++) for (int l = 0; l < letters; l++) next[s][l] = dfa.next(s, l);

        boolean[] seen = reachable(dfa.initialState(), next);
        for (int s = 0; s < n; s++) assertThat(seen[s]).as("%s: state %d unreachable", what, s).isTrue();

        boolean[][] distinct = new boolean[n][n];
        for (int p = 0; p < n; p++) for (int q = 0; q < n; q++) distinct[p][q] = dfa.accepting(p) != dfa.accepting(q);
        boolean changed = true;
        while (changed) {
            changed = false;
            for (int p = 0; p < n; p++) {
                for (int q = p + 1; q < n; q++) {
                    if (distinct[p][q]) continue;
                    for (int l = 0; l < letters; l++) {
                        if (distinct[next[p][l]][next[q][l]]) {
                            distinct[p][q] = distinct[q][p] = true;
                            changed = true;
                            break;
                        }
                    }
                }
            }
        }
        for (int p = 0; p < n; p++) {
            for (int q = p + 1; q < n; q++) {
                assertThat(distinct[p][q]).as("%s: states %d and %d are equivalent", what, p, q).isTrue();
            }
        }

        for (int s = 0; s < n; s++) {
            boolean[] from = reachable(s, next);
            boolean uniform = true;
            for (int t = 0; t < n; t++) if (from[t] && dfa.accepting(t) != dfa.accepting(s)) uniform = false;
            assertThat(dfa.verdict(s).isFinal()).as("%s: state %d final", what, s).isEqualTo(uniform);
            assertThat(dfa.verdict(s).accepting()).isEqualTo(dfa.accepting(s));
            if (uniform) for (int l = 0; l < letters; l++) assertThat(next[s][l]).as("%s: final state %d is a sink", what, s).isEqualTo(s);
        }
    }

    private static boolean[] reachable(int from, int[][] next) {
        boolean[] seen = new boolean[next.length];
        ArrayDeque<Integer> queue = new ArrayDeque<>(List.of(from));
        seen[from] = true;
        while (!queue.isEmpty()) {
            int s = queue.poll();
            for (int t : next[s]) {
                if (!seen[t]) {
                    seen[t] = true;
                    queue.add(t);
                }
            }
        }
        return seen;
    }
}
