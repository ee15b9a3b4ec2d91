package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compiled automaton against MONA: for each formula MONA decides whether the automaton (encoded
 * in M2L-Str, its states in binary over a few set variables) accepts exactly the nonempty strings satisfying the
 * formula (translated to first-order logic over positions). A disagreement fails with the formula and
 * MONA's shortest distinguishing trace.
 */
class MonaOracleTest {
    static final List<String> PATTERNS = List.of(
            "G(a -> F b)", "!b W a", "G(b -> O a)", "G(refund -> O approve)", "G(a -> WX G !a)",
            "G(a -> WX G(a -> WX G !a))", "G(q -> G !p)", "G(grant -> (!revoke S consent))", "F a", "X a",
            "G(request -> X(ack U done))", "(a U b) & G(c -> Y d)", "G(a -> (b R c))", "F(a & X X b)",
            "G(b -> (!c S a)) & F d", "G(H a | O b) -> F(c W d)", "(a <-> X b) U (c & Y Y d)", "true", "false");

    /*
     * One mona process per formula (two at a time): the 1,000 random formulas this default run used to check took 36 s
     * of a loaded two-core host's time, most of the engine module's unit tests. 300 of every size (sizes cycle with the
     * index) keep the check in the default run; -Plong checks 5,000 more (manyMoreRandomFormulasAgreeWithMona).
     */
    private static final int RANDOM = 300;
    private static final int RANDOM_LONG = 5_000;

    @TempDir
    static Path work;

    @BeforeAll
    static void needsMona() {
        boolean present = Mona.executable() != null;
        if (!present) System.err.println("MonaOracleTest SKIPPED: the mona executable is not on PATH (apt-get install mona; .ci/run installs it)");
        Assumptions.assumeTrue(present, "mona is not installed: the MONA oracle cannot run (apt-get install mona)");
    }

    @Test
    void standardPatternsAgreeWithMona() throws Exception {
        List<Formula> fs = new ArrayList<>();
        for (String p : PATTERNS) fs.add(Parser.parse(p));
        assertThat(disagreements(fs)).isEmpty();
    }

    @Test
    void randomFormulasAgreeWithMona() throws Exception {
        assertThat(disagreements(random(RANDOM, 11))).isEmpty();
    }

    @Test
    @Tag("long")
    void manyMoreRandomFormulasAgreeWithMona() throws Exception {
        assertThat(disagreements(random(RANDOM_LONG, 12345))).isEmpty();
    }

    @Test
    void theOracleCatchesAWrongAutomaton() throws Exception {
        // The automaton of G(a -> X b) checked against G(a -> F b): MONA must find a trace telling them apart.
        Formula claimed = Parser.parse("G(a -> F b)");
        Dfa wrong = new DfaCompiler(100).compile(Parser.parse("G(a -> WX b)"));
        Mona.Disagreement d = Mona.check(claimed, wrong, work);
        assertThat(d).isNotNull();
        TraceSemantics sem = new TraceSemantics(claimed);
        assertThat(wrong.accepting(wrong.run(d.trace()))).isNotEqualTo(sem.satisfies(claimed, d.trace()));
    }

    private static List<Formula> random(int count, long seed) {
        List<Formula> fs = new ArrayList<>();
        for (int i = 0; i < count; i++) fs.add(new RandomFormulas(seed * 1_000_003L + i, 1 + i % 4).next(2 + i % 4));
        return fs;
    }

    /** Checks every formula (two mona processes at a time); returns one line per disagreement. */
    private static List<String> disagreements(List<Formula> fs) throws Exception {
        DfaCompiler compiler = new DfaCompiler(10_000);
        List<String> failures = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            List<Future<?>> jobs = new ArrayList<>();
            for (Formula f : fs) {
                jobs.add(pool.submit(() -> {
                    Dfa dfa = compiler.compile(f);
                    if (!dfa.accepting(dfa.initialState())) failures.add(Formulas.print(f) + ": empty trace rejected");
                    Mona.Disagreement d = Mona.check(f, dfa, work);
                    if (d != null) {
                        failures.add(Formulas.print(f) + ": automaton says " + dfa.accepting(dfa.run(d.trace()))
                                + " on trace " + Arrays.toString(d.trace()) + " (bit j = atom j of " + dfa.atoms()
                                + "), MONA disagrees");
                    }
                    return null;
                }));
            }
            for (Future<?> j : jobs) j.get();
        } finally {
            pool.shutdownNow();
        }
        return failures;
    }
}
