package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.reference.Progression;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An INCOMPATIBLE finding names a minimal set of contracts whose assumptions clash, not every contract of the library
 * (trial10 repro check-incompatible-names-every-contract: contracts without an assumption, or with one that fits the
 * others, were named too). Oracle: the engine's reference progression over every trace up to a length bound (not the
 * automata the analysis uses): no named set's assumptions hold together on a trace, and without any one of them
 * they do on some trace; when the analysis finds none, some trace satisfies all assumptions.
 */
class IncompatibleOracleTest {
    private static final int BOUND = 4;
    private static final List<Atom> ATOMS = Formulas.atoms(Parser.parse("p & user & call(a)"));
    private static final long[] LETTERS = letters();
    private final LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(5_000));

    /** One event is one kind: user and call(a) never hold together (the analysis's axiom). */
    private static long[] letters() {
        int u = ATOMS.indexOf(Parser.parse("user")), a = ATOMS.indexOf(Parser.parse("call(a)"));
        List<Long> out = new ArrayList<>();
        for (long l = 0; l < 8; l++) if (((l >>> u) & 1) == 0 || ((l >>> a) & 1) == 0) out.add(l);
        return out.stream().mapToLong(Long::longValue).toArray();
    }

    @Test
    void theReposLibraryNamesTheTwoClashingAssumptions() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("inc.first-user", "user", "G !call(x)"),
                c("inc.first-call", "call(a)", "G !call(y)"),
                c("inc.unrelated", "true", "G(count(search) <= 3)"),
                c("inc.unrelated2", "F returned(q)", "G !call(z)")));
        LibraryAnalysis.Finding inc = f.stream().filter(x -> x.kind() == LibraryAnalysis.Kind.INCOMPATIBLE).findFirst().orElseThrow();
        assertThat(inc.contracts()).containsExactly("inc.first-user", "inc.first-call");
        assertThat(inc.explanation()).contains("dropping any one of them resolves it");
    }

    @Property(tries = 60)
    void theNamedContractsAreAMinimalSetOfClashingAssumptions(@ForAll("libraries") List<Contract> library) {
        List<LibraryAnalysis.Finding> findings = analysis.analyse(library);
        List<LibraryAnalysis.Finding> inc = findings.stream().filter(x -> x.kind() == LibraryAnalysis.Kind.INCOMPATIBLE).toList();
        Statistics.collect(inc.isEmpty() ? "compatible" : "incompatible");
        Statistics.coverage(check -> check.check("incompatible").count(n -> n >= 3));
        if (inc.isEmpty()) {
            assertThat(holdTogether(library)).as("the assumptions hold together on some trace up to %d", BOUND).isTrue();
            return;
        }
        java.util.Set<String> all = new java.util.HashSet<>();
        for (LibraryAnalysis.Finding finding : inc) {
            List<Contract> named = library.stream().filter(c -> finding.contracts().contains(c.id())).toList();
            assertThat(named).hasSize(finding.contracts().size());
            assertThat(named).allMatch(c -> !(c.assume() instanceof Formula.Const k && k.value()), "each has an assumption");
            assertThat(holdTogether(named)).as("the named assumptions hold together on a trace").isFalse();
            for (Contract drop : named) {
                List<Contract> rest = named.stream().filter(c -> c != drop).toList();
                if (!rest.isEmpty()) assertThat(holdTogether(rest)).as("without %s they still clash", drop.id()).isTrue();
            }
            for (String id : finding.contracts()) assertThat(all.add(id)).as("%s named once", id).isTrue();
        }
        // every clash is named: the assumptions of the contracts no finding names hold together (trial21 01)
        assertThat(holdTogether(library.stream().filter(c -> !all.contains(c.id())).toList()))
                .as("the assumptions left out of every finding hold together").isTrue();
    }

    /** trial21 (01): two contracts whose own assumptions cannot hold, and two clashing pairs, are each named. */
    @Test
    void everyContractOrSetWhoseAssumptionsCannotHoldIsNamed() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(c("inc.a", "F user & G !user", "G !call(x)"),
                c("inc.b", "G X true", "G !call(y)")));
        assertThat(f).filteredOn(x -> x.kind() == LibraryAnalysis.Kind.INCOMPATIBLE).extracting(LibraryAnalysis.Finding::contracts)
                .containsExactlyInAnyOrder(List.of("inc.a"), List.of("inc.b"));
        List<LibraryAnalysis.Finding> pairs = analysis.analyse(List.of(c("cf.i1", "F returned(x)", "true"),
                c("cf.i2", "G !returned(x)", "true"), c("cf.j1", "F returned(y)", "true"), c("cf.j2", "G !returned(y)", "true")));
        assertThat(pairs).filteredOn(x -> x.kind() == LibraryAnalysis.Kind.INCOMPATIBLE).extracting(LibraryAnalysis.Finding::contracts)
                .containsExactlyInAnyOrder(List.of("cf.i1", "cf.i2"), List.of("cf.j1", "cf.j2"));
    }

    /** Some non-empty trace up to {@link #BOUND} events satisfies every assumption (finite-trace reading). */
    private static boolean holdTogether(List<Contract> cs) {
        Formula all = Formula.Const.TRUE;
        for (Contract c : cs) all = Formulas.and(all, c.assume());
        for (int len = 1; len <= BOUND; len++) {
            int total = 1;
            for (int i = 0; i < len; i++) total *= LETTERS.length;
            for (int code = 0; code < total; code++) {
                long[] trace = new long[len];
                for (int i = 0, x = code; i < len; i++, x /= LETTERS.length) trace[i] = LETTERS[x % LETTERS.length];
                if (Progression.accepts(all, ATOMS, trace)) return true;
            }
        }
        return false;
    }

    @Provide
    Arbitrary<List<Contract>> libraries() {
        // a few assumptions about the first events, each satisfiable alone, some clashing; and contracts without one
        Arbitrary<String> assume = Arbitraries.frequencyOf(Tuple.of(2, Arbitraries.just("true")),
                Tuple.of(5, Arbitraries.of("user", "call(a)", "p", "!p", "X p", "X !p", "X user", "G !call(a)", "F call(a)",
                        "G p", "F !p", "user & X call(a)", "WX false", "X X true")));
        Arbitrary<String> guarantee = Arbitraries.of("G !call(b)", "G(user -> F call(a))", "true");
        return net.jqwik.api.Combinators.combine(assume, guarantee).as((a, g) -> new String[] {a, g}).list().ofMinSize(2).ofMaxSize(6)
                .map(specs -> {
                    List<Contract> out = new ArrayList<>();
                    for (int i = 0; i < specs.size(); i++) out.add(c("c" + i, specs.get(i)[0], specs.get(i)[1]));
                    return out;
                });
    }

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }
}
