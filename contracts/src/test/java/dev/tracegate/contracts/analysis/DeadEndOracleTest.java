package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.reference.Progression;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The dead-end check against brute force: every trace up to a length bound, each contract's
 * verdicts by the engine's reference progression (not the compiled automata the check uses).
 */
class DeadEndOracleTest {
    private static final int BOUND = 3;
    private static final List<Atom> ATOMS = Formulas.atoms(Parser.parse("p & call(a) & call(b)"));
    /** One event is one call: call(a) and call(b) never hold together (the analysis's axiom). */
    private static final long[] LETTERS = letters();
    private static final Formula ONE_CALL = Parser.parse("G !(call(a) & call(b))");

    private static long[] letters() {
        int a = ATOMS.indexOf(Parser.parse("call(a)")), b = ATOMS.indexOf(Parser.parse("call(b)"));
        List<Long> out = new ArrayList<>();
        for (long l = 0; l < 8; l++) if (((l >>> a) & 1) == 0 || ((l >>> b) & 1) == 0) out.add(l);
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    @Property(tries = 50)
    void theCheckFindsADeadEndExactlyWhenBruteForceDoes(@ForAll("libraries") List<Contract> library) throws Exception {
        DeadEnds.DeadEnd found = new DeadEnds(library, new DfaCompiler(5_000)).search();
        int shortest = shortestDeadEnd(library);
        Statistics.collect(found == null ? "no dead end" : "dead end");
        // the property is only worth something if random libraries do contain dead ends
        Statistics.coverage(check -> check.check("dead end").count(n -> n >= 1));
        if (found == null) {
            assertThat(shortest).as("brute force found a dead end the check missed").isZero();
            return;
        }
        long[] witness = new long[found.trace().size()];
        for (int i = 0; i < witness.length; i++) {
            for (Atom a : found.trace().get(i)) witness[i] |= 1L << ATOMS.indexOf(a);
        }
        assertThat(isDeadEnd(library, witness)).as("the witness is a dead end by the reference semantics").isTrue();
        // the check's witness is a shortest one
        if (witness.length <= BOUND) assertThat(shortest).isEqualTo(witness.length);
        else assertThat(shortest).isZero();
    }

    @Property(tries = 40)
    void theNamedContractsAreAMinimalTrappedSubset(@ForAll("libraries") List<Contract> library) {
        List<LibraryAnalysis.Finding> findings = new LibraryAnalysis(new DfaCompiler(5_000)).analyse(library);
        // an inconsistent contract is left out of the later checks, and so are the contracts of a conflict's core: the
        // dead ends are those of the rest (b64d81f: a conflict does not hide the rest's dead ends)
        List<Contract> checked = library.stream().filter(c -> findings.stream()
                .noneMatch(f -> (f.kind() == LibraryAnalysis.Kind.INCONSISTENT || f.kind() == LibraryAnalysis.Kind.CONFLICT)
                        && f.contracts().contains(c.id()))).toList();
        for (LibraryAnalysis.Finding f : findings) {
            if (f.kind() != LibraryAnalysis.Kind.DEAD_END) continue;
            long[] w = new long[f.witness().size()];
            for (int i = 0; i < w.length; i++) {
                for (String key : f.witness().get(i)) w[i] |= 1L << ATOMS.indexOf(Parser.parse(key));
            }
            List<Contract> named = library.stream().filter(c -> f.contracts().contains(c.id())).toList();
            assertThat(isDeadEnd(checked, w)).isTrue();
            assertThat(trapped(named, w)).as("the named contracts alone are trapped").isTrue();
            for (Contract drop : named) {
                List<Contract> rest = named.stream().filter(c -> c != drop).toList();
                assertThat(!rest.isEmpty() && trapped(rest, w)).as("still trapped without " + drop.id()).isFalse();
            }
        }
    }

    /** The length of a shortest dead end up to {@link #BOUND}, or 0 when there is none. */
    private static int shortestDeadEnd(List<Contract> library) {
        int best = 0;
        int total = 1;
        for (int i = 0; i < BOUND; i++) total *= LETTERS.length;
        for (int code = 0; code < total; code++) {
            long[] trace = new long[BOUND];
            for (int i = 0, c = code; i < BOUND; i++, c /= LETTERS.length) trace[i] = LETTERS[c % LETTERS.length];
            int at = firstDeadEnd(library, trace);
            if (at > 0 && (best == 0 || at < best)) best = at;
        }
        return best;
    }

    /** The first prefix length of {@code trace} that is a dead end, 0 if a contract fails first or none is. */
    private static int firstDeadEnd(List<Contract> library, long[] trace) {
        RvVerdict[][] a = new RvVerdict[library.size()][], g = new RvVerdict[library.size()][];
        for (int c = 0; c < library.size(); c++) {
            a[c] = Progression.verdicts(library.get(c).assume(), ATOMS, trace);
            g[c] = Progression.verdicts(library.get(c).guarantee(), ATOMS, trace);
        }
        RvVerdict[] all = Progression.verdicts(keptByAll(library), ATOMS, trace);
        for (int i = 1; i <= trace.length; i++) {
            for (int c = 0; c < library.size(); c++) {
                if (a[c][i] != RvVerdict.PERMANENTLY_VIOLATED && g[c][i] == RvVerdict.PERMANENTLY_VIOLATED) return 0;
            }
            if (all[i] == RvVerdict.PERMANENTLY_VIOLATED) return i;
        }
        return 0;
    }

    private static boolean isDeadEnd(List<Contract> library, long[] w) {
        return w.length > 0 && firstDeadEnd(library, w) == w.length;
    }

    /** No continuation of {@code w} keeps every contract of {@code cs} (read as assumption -> guarantee). */
    private static boolean trapped(List<Contract> cs, long[] w) {
        return Progression.verdict(keptByAll(cs), ATOMS, w) == RvVerdict.PERMANENTLY_VIOLATED;
    }

    private static Formula keptByAll(List<Contract> cs) {
        Formula f = ONE_CALL;
        for (Contract c : cs) f = Formulas.and(f, Formulas.binary(Formula.BinOp.IMPLIES, c.assume(), c.guarantee()));
        return f;
    }

    @Provide
    Arbitrary<List<Contract>> libraries() {
        Arbitrary<String> assume = Arbitraries.frequencyOf(Tuple.of(3, Arbitraries.just("true")), Tuple.of(1, future(2)));
        // response and prohibition patterns ("whenever x, next / eventually / never y") make traps common
        Arbitrary<String> pattern = Combinators.combine(future(1), Arbitraries.of("X", "F", "G", "WX", "G !", "X !"), future(1))
                .as((x, op, y) -> "G((" + x + ") -> " + op + "(" + y + "))");
        Arbitrary<String> guarantee = Arbitraries.frequencyOf(Tuple.of(1, future(3)), Tuple.of(4, pattern));
        return Combinators.combine(assume, guarantee).as((a, g) -> new String[] {a, g}).list().ofMinSize(2).ofMaxSize(3)
                .map(specs -> {
                    List<Contract> out = new ArrayList<>();
                    for (int i = 0; i < specs.size(); i++) {
                        out.add(new Contract("c" + i, Parser.parse(specs.get(i)[0]), Parser.parse(specs.get(i)[1]), "block", ""));
                    }
                    return out;
                });
    }

    private static Arbitrary<String> literal() {
        return Combinators.combine(Arbitraries.of("", "!"), Arbitraries.of("p", "call(a)", "call(b)")).as((n, a) -> n + a);
    }

    private static Arbitrary<String> future(int depth) {
        if (depth == 0) return literal();
        return Arbitraries.lazyOf(
                DeadEndOracleTest::literal,
                () -> Combinators.combine(Arbitraries.of("!", "X", "WX", "F", "G"), future(depth - 1)).as((op, f) -> op + "(" + f + ")"),
                () -> Combinators.combine(future(depth - 1), Arbitraries.of("&", "|", "->", "U", "W", "R"), future(depth - 1))
                        .as((l, op, r) -> "(" + l + ") " + op + " (" + r + ")"),
                () -> past(depth - 1));
    }

    /** Past operators take past or plain operands only (the compiler refuses a future inside the past). */
    private static Arbitrary<String> past(int depth) {
        if (depth == 0) return literal();
        return Arbitraries.lazyOf(
                DeadEndOracleTest::literal,
                () -> Combinators.combine(Arbitraries.of("!", "Y", "O", "H"), past(depth - 1)).as((op, f) -> op + "(" + f + ")"),
                () -> Combinators.combine(past(depth - 1), Arbitraries.of("&", "|", "S"), past(depth - 1))
                        .as((l, op, r) -> "(" + l + ") " + op + " (" + r + ")"));
    }
}
