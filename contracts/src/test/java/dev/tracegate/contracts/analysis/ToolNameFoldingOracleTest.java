package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.reference.Progression;
import dev.tracegate.matchers.event.ToolName;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The analysis compares tool names as events do (trial13 check-tool-name-folding): its consistency and conflict
 * findings against an oracle that runs formula progression over the letters concrete events give, each atom's truth
 * by {@link ToolName#matches} (case folding, the mcp__server__ prefix), so call(A) and call(a) are one atom there
 * and a call of mcp__s__a makes both call(mcp__s__a) and call(a) true; {@code erasure} holds on an ERASURE event and
 * on a call of an erasure tool (trial13 check-erasure-tool-exclusive), whichever tools the policy names.
 */
class ToolNameFoldingOracleTest {
    private static final List<Atom> ATOMS = Formulas.atoms(Parser.parse(
            "call(a) & call(A) & call(mcp__s__a) & call(b) & returned(a) & erasure"));
    private static final String[] TOOLS = {"a", "A", " mcp__S__a", "mcp__s__a", "mcp__t__mcp__s__a", "b", "mcp__s__b", "zz"};
    private static final long[] LETTERS = letters();

    /**
     * Every letter some event makes: a call or a result of each tool, a call of each as an erasure tool of the policy
     * (erasure holds too), an ERASURE event, or an event of another kind (no atom holds).
     */
    private static long[] letters() {
        long erasure = 1L << ATOMS.indexOf(Parser.parse("erasure"));
        Set<Long> out = new LinkedHashSet<>();
        out.add(0L);
        out.add(erasure);
        for (String tool : TOOLS) {
            for (String kind : List.of("call", "returned")) {
                long l = 0;
                for (int g = 0; g < ATOMS.size(); g++) {
                    Atom a = ATOMS.get(g);
                    if (a.args().isEmpty()) continue;
                    String wanted = Formulas.print(a).substring(a.name().length() + 1, Formulas.print(a).length() - 1);
                    if (a.name().equals(kind) && ToolName.matches(tool, wanted)) l |= 1L << g;
                }
                out.add(l);
                if (kind.equals("call")) out.add(l | erasure);
            }
        }
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void theTrialsTwoLibraries() {
        LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(5_000));
        assertThat(analysis.analyse(List.of(Contract.of("m.both", Parser.parse("F(call(mcp__s__a) & call(a))"))))).isEmpty();
        assertThat(analysis.analyse(List.of(Contract.of("c.never", Parser.parse("F call(A) & G !call(a)")))))
                .extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.INCONSISTENT);
        assertThat(analysis.analyse(List.of(Contract.of("c.must", Parser.parse("F call(A)")), Contract.of("c.not", Parser.parse("G !call(a)")))))
                .extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.CONFLICT);
        // trial13 check-erasure-tool-exclusive: a call of the erasure tool forget is an erasure
        assertThat(analysis.analyse(List.of(Contract.of("c.eras", Parser.parse("F(erasure & call(forget))"))))).isEmpty();
        // but an ERASURE event is no result and no user message
        assertThat(analysis.analyse(List.of(Contract.of("c.ret", Parser.parse("F(erasure & (returned(forget) | user))")))))
                .extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.INCONSISTENT);
    }

    // about 2-7% of the random libraries conflict: 60 tries gave fewer than the 3 conflicts the coverage check asks for
    // in about one run of three (seen in session 10's clean-clone verify); 800 tries expect 16-56 (under 3: ~1e-5), ~4 s
    @Property(tries = 800)
    void findingsAgreeWithProgressionOverRealEvents(@ForAll("libraries") List<Contract> library) {
        // the oracle's letters let a result of a come with no call of a before it, so the checks are compared without the
        // fact that a result comes after its call (G returned(a) is consistent here, INCONSISTENT with it):
        // ResultsAfterCallsChecksTest compares them with brute force over sessions seen from their start
        List<LibraryAnalysis.Finding> findings = new LibraryAnalysis(new DfaCompiler(5_000), false, null).analyse(library);
        List<Contract> consistent = new ArrayList<>();
        for (Contract c : library) {
            boolean sat = satisfiable(Formulas.and(c.assume(), c.guarantee()));
            boolean reported = findings.stream().anyMatch(f -> f.kind() == LibraryAnalysis.Kind.INCONSISTENT && f.contracts().contains(c.id()));
            assertThat(reported).as("INCONSISTENT %s (%s)", c.id(), Formulas.print(c.guarantee())).isEqualTo(!sat);
            if (sat) consistent.add(c);
        }
        Formula all = Formula.Const.TRUE;
        for (Contract c : consistent) all = Formulas.and(all, Formulas.and(c.assume(), c.guarantee()));
        boolean conflict = !consistent.isEmpty() && !satisfiable(all);
        Statistics.collect(conflict ? "conflict" : "no conflict");
        Statistics.coverage(check -> check.check("conflict").count(n -> n >= 3));
        assertThat(findings.stream().anyMatch(f -> f.kind() == LibraryAnalysis.Kind.CONFLICT)).as("CONFLICT").isEqualTo(conflict);
    }

    /** Whether some non-empty trace of real events' letters satisfies {@code f}: breadth-first over progression residuals. */
    private static boolean satisfiable(Formula f) {
        Set<Progression.Residual> seen = new HashSet<>();
        ArrayDeque<Progression.Residual> todo = new ArrayDeque<>();
        Progression.Residual start = Progression.start(f, ATOMS);
        for (long l : LETTERS) {
            Progression.Residual r = Progression.step(start, l);
            if (seen.add(r)) todo.add(r);
        }
        while (!todo.isEmpty()) {
            Progression.Residual r = todo.poll();
            if (Progression.acceptsAtEnd(r)) return true;
            for (long l : LETTERS) {
                Progression.Residual n = Progression.step(r, l);
                if (seen.add(n)) todo.add(n);
            }
        }
        return false;
    }

    @Provide
    Arbitrary<List<Contract>> libraries() {
        // formulas from a seed (jqwik's lazyOf failed inside its own generator here); the seed is printed on failure
        return Arbitraries.longs().map(seed -> {
            java.util.Random r = new java.util.Random(seed);
            List<Contract> out = new ArrayList<>();
            for (int i = 0, n = 1 + r.nextInt(3); i < n; i++) out.add(Contract.of("c" + i, Parser.parse(future(r, 3))));
            return out;
        });
    }

    private static final String[] LITERALS = {"call(a)", "call(A)", "call(mcp__s__a)", "call(b)", "returned(a)", "erasure"};

    private static String future(java.util.Random r, int depth) {
        int pick = depth == 0 ? 0 : r.nextInt(3);
        if (pick == 0) return (r.nextBoolean() ? "" : "!") + LITERALS[r.nextInt(LITERALS.length)];
        if (pick == 1) return new String[] {"!", "X", "F", "G"}[r.nextInt(4)] + "(" + future(r, depth - 1) + ")";
        return "(" + future(r, depth - 1) + ") " + new String[] {"&", "&", "|", "->", "U"}[r.nextInt(5)] + " (" + future(r, depth - 1) + ")";
    }
}
