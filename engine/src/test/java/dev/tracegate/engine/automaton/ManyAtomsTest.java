package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** Formulas over many atoms compile to decision-diagram automata whose steps follow the semantics. */
class ManyAtomsTest {
    private final DfaCompiler compiler = new DfaCompiler(10_000);

    private static String join(List<String> parts, String op) { return "(" + String.join(" " + op + " ", parts) + ")"; }

    /** 40 atoms: 18 implications that must always hold, an until, a past-time response. */
    private static Formula fortyAtoms() {
        List<String> implications = new ArrayList<>();
        for (int i = 0; i < 18; i++) implications.add("(x" + (2 * i) + " -> x" + (2 * i + 1) + ")");
        return Parser.parse("G" + join(implications, "&") + " & (!x36 W x37) & G(x38 -> O x39)");
    }

    @Test
    void fortyAtomsCompileToADiagramWhoseStepsAgreeWithTheSemantics() {
        Formula f = fortyAtoms();
        Dfa dfa = compiler.compile(f);
        assertThat(dfa.atoms()).hasSize(40);
        assertThat(dfa.isTable()).isFalse();
        TraceSemantics sem = new TraceSemantics(f);
        // Global valuation: atom j sits at bit 3j + 5 (two words), as in a contract set with other atoms.
        int[] atomIndex = new int[40];
        for (int j = 0; j < 40; j++) atomIndex[j] = 3 * j + 5;
        Random random = new Random(40);
        int accepted = 0;
        for (int t = 0; t < 400; t++) {
            long[] trace = new long[1 + random.nextInt(12)];
            int s = dfa.initialState();
            int viaStep = dfa.initialState();
            for (int p = 0; p < trace.length; p++) {
                long letter = 0;
                for (int j = 0; j < 40; j++) {
                    // Mostly keep the implications (odd atoms usually on), so traces get past the first letters.
                    double on = j % 2 == 1 ? 0.97 : 0.3;
                    if (random.nextDouble() < on) letter |= 1L << j;
                }
                trace[p] = letter;
                long[] valuation = new long[3];
                for (int j = 0; j < 40; j++) if (((letter >>> j) & 1) != 0) valuation[atomIndex[j] >>> 6] |= 1L << atomIndex[j];
                s = dfa.next(s, letter);
                viaStep = dfa.step(viaStep, valuation, atomIndex);
                assertThat(viaStep).isEqualTo(s);
                boolean expected = sem.satisfies(f, Arrays.copyOf(trace, p + 1));
                assertThat(dfa.accepting(s)).as("prefix %d of trace %d", p + 1, t).isEqualTo(expected);
                if (expected) accepted++;
            }
        }
        assertThat(accepted).as("the traces exercise accepting prefixes too").isGreaterThan(100);
    }

    @Test
    void manyAtomsWithFewStatesStayFew() {
        // 40 atoms, one response obligation and an invariant: waiting or not, plus the violation.
        List<String> xs = new ArrayList<>();
        List<String> ys = new ArrayList<>();
        List<String> guards = new ArrayList<>();
        for (int i = 0; i < 15; i++) {
            xs.add("x" + i);
            ys.add("y" + i);
        }
        for (int i = 0; i < 5; i++) guards.add("(p" + i + " -> !q" + i + ")");
        Formula f = Parser.parse("G(" + join(xs, "|") + " -> F" + join(ys, "&") + ") & G" + join(guards, "&"));
        Dfa dfa = compiler.compile(f);
        assertThat(dfa.atoms()).hasSize(40);
        assertThat(dfa.stateCount()).isEqualTo(3);
        long allY = 0;
        for (int i = 0; i < 15; i++) allY |= 1L << dfa.atoms().indexOf(Atom.of("y" + i));
        long x3 = 1L << dfa.atoms().indexOf(Atom.of("x3"));
        long p2q2 = (1L << dfa.atoms().indexOf(Atom.of("p2"))) | (1L << dfa.atoms().indexOf(Atom.of("q2")));
        assertThat(dfa.verdict(dfa.run(x3)).name()).isEqualTo("PRESUMABLY_VIOLATED");
        assertThat(dfa.pending(dfa.run(x3)))
                .isEqualTo("X " + Formulas.print(Formulas.unary(Formula.UnOp.EVENTUALLY, Parser.parse(join(ys, "&")))));
        assertThat(dfa.verdict(dfa.run(x3, allY)).name()).isEqualTo("PRESUMABLY_SATISFIED");
        assertThat(dfa.verdict(dfa.run(x3, p2q2)).name()).isEqualTo("PERMANENTLY_VIOLATED");
    }

    @Test
    void moreAtomsThanALongHoldsAreSteppedThroughTheGlobalValuation() {
        // 70 atoms: next() takes one long, so only step() can drive it; check it against the semantics.
        List<String> us = new ArrayList<>();
        List<String> vs = new ArrayList<>();
        for (int i = 0; i < 35; i++) {
            us.add("u" + i);
            vs.add("v" + i);
        }
        Formula f = Parser.parse("G(" + join(us, "&") + " -> O" + join(vs, "|") + ")");
        Dfa dfa = compiler.compile(f);
        assertThat(dfa.atoms()).hasSize(70);
        assertThat(dfa.stateCount()).isEqualTo(3);
        int rejected = 0;
        int[] atomIndex = new int[70];
        for (int j = 0; j < 70; j++) atomIndex[j] = j;
        Random random = new Random(70);
        for (int t = 0; t < 200; t++) {
            int len = 1 + random.nextInt(6);
            long[][] trace = new long[len][];
            int s = dfa.initialState();
            for (int p = 0; p < len; p++) {
                long[] valuation = new long[2];
                // u's mostly on (so that all of them together happen), v's rarely.
                for (int j = 0; j < 70; j++) {
                    boolean isU = dfa.atoms().get(j).name().startsWith("u");
                    if (isU ? random.nextInt(60) != 0 : random.nextInt(300) == 0) valuation[j >>> 6] |= 1L << j;
                }
                trace[p] = valuation;
                s = dfa.step(s, valuation, atomIndex);
                boolean expected = holds(dfa.atoms(), Arrays.copyOf(trace, p + 1));
                assertThat(dfa.accepting(s)).isEqualTo(expected);
                if (!expected) rejected++;
            }
        }
        assertThat(rejected).as("the traces reach the violation too").isGreaterThan(20);
    }

    /** G(AND_i u_i -> O(OR_i v_i)) evaluated directly: no position with all u before the first v. */
    private static boolean holds(List<Atom> atoms, long[][] trace) {
        boolean seenV = false;
        for (long[] letter : trace) {
            boolean allU = true;
            for (int i = 0; i < 35; i++) {
                allU &= bit(letter, atoms.indexOf(Atom.of("u" + i)));
                seenV |= bit(letter, atoms.indexOf(Atom.of("v" + i)));
            }
            if (allU && !seenV) return false;
        }
        return true;
    }

    private static boolean bit(long[] valuation, int j) { return ((valuation[j >>> 6] >>> j) & 1L) != 0; }
}
