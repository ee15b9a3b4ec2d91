package dev.tracegate.bench;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.reference.Progression;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Why contracts are compiled: advancing every formula of the same contract set by one event, as a
 * table lookup in its minimal DFA versus formula progression (the engine's reference evaluator,
 * {@link Progression}: rewrite the residual obligation, then check whether it collapsed to false).
 * Both read the same precomputed per-formula letters, so neither pays for grounding or projection.
 * Progression's check is the cheaper, weaker one (it sees a violation only once the residual is
 * {@code false}; the DFA's state classification also knows "permanently satisfied" and
 * "presumably violated"), so the ratio understates what compiling saves.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class DfaVsProgressionBenchmark {

    static final int CYCLE = 1024;

    /** Each distinct formula of the contract set as a DFA and as a progression residual. */
    @State(Scope.Thread)
    public static class Formulas {
        @Param({"1", "10", "100"})
        public int contracts;

        Dfa[] dfas;
        int[] states;
        boolean[][] violated;
        Progression.Residual[] residuals;
        /** letters[event][formula]: the event's letter over that formula's own atoms. */
        long[][] letters;
        int cursor;

        @Setup(Level.Trial)
        public void setUp() {
            ContractSet set = Workload.compile(contracts);
            Workload.Traffic t = Workload.ordered(set, CYCLE, 0, 42);
            List<Dfa> fs = set.formulas();
            int n = fs.size();
            dfas = fs.toArray(new Dfa[0]);
            states = new int[n];
            violated = new boolean[n][];
            residuals = new Progression.Residual[n];
            for (int f = 0; f < n; f++) {
                states[f] = dfas[f].initialState();
                violated[f] = new boolean[dfas[f].stateCount()];
                for (int s = 0; s < violated[f].length; s++) {
                    violated[f][s] = dfas[f].verdict(s) == RvVerdict.PERMANENTLY_VIOLATED;
                }
                residuals[f] = Progression.start(dfas[f].formula(), dfas[f].atoms());
            }
            letters = new long[CYCLE][n];
            for (int i = 0; i < CYCLE; i++) {
                long[] v = t.valuations()[i];
                for (int f = 0; f < n; f++) letters[i][f] = letter(v, set.atomIndex(f));
            }
        }

        static long letter(long[] valuation, int[] atomIndex) {
            long l = 0;
            for (int j = 0; j < atomIndex.length; j++) {
                int g = atomIndex[j];
                l |= ((valuation[g >>> 6] >>> g) & 1L) << j;
            }
            return l;
        }

        long[] nextLetters() {
            final int i = cursor;
            cursor = (i + 1) & (CYCLE - 1);
            return letters[i];
        }
    }

    /** Table lookup per formula; returns how many formulas are permanently violated. */
    @Benchmark
    public int dfa(Formulas s) {
        final long[] letter = s.nextLetters();
        final Dfa[] dfas = s.dfas;
        final int[] states = s.states;
        final boolean[][] violated = s.violated;
        int n = 0;
        for (int f = 0; f < dfas.length; f++) {
            int next = dfas[f].next(states[f], letter[f]);
            states[f] = next;
            if (violated[f][next]) n++;
        }
        return n;
    }

    /** Progression per formula; returns how many residuals collapsed to false. */
    @Benchmark
    public int progression(Formulas s) {
        final long[] letter = s.nextLetters();
        final Progression.Residual[] residuals = s.residuals;
        int n = 0;
        for (int f = 0; f < residuals.length; f++) {
            Progression.Residual r = Progression.step(residuals[f], letter[f]);
            residuals[f] = r;
            if (r.isDecided() && !Progression.acceptsAtEnd(r)) n++;
        }
        return n;
    }
}
