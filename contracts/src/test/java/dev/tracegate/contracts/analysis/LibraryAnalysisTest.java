package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class LibraryAnalysisTest {
    private final LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(5_000));

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }

    @Test
    void aSoundLibraryHasNoFindings() {
        assertThat(analysis.analyse(List.of(
                c("precedence", "true", "G(call(refund) -> O returned(approve_refund))"),
                c("cap", "true", "G(count(search) <= 3)"),
                c("respond", "true", "G(user -> F assistant)")))).isEmpty();
    }

    @Test
    void contractWhoseAssumptionContradictsItsGuaranteeIsInconsistent() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(c("odd", "G p", "F !p"), c("fine", "true", "G !q")));
        assertThat(f).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.INCONSISTENT);
        assertThat(f.get(0).contracts()).containsExactly("odd");
    }

    @Test
    void incompatibleAssumptionsAreReported() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(c("a", "G p", "true"), c("b", "F !p", "true")));
        assertThat(f).extracting(LibraryAnalysis.Finding::kind).contains(LibraryAnalysis.Kind.INCOMPATIBLE);
    }

    @Test
    void conflictIsReportedWithAMinimalCore() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("must-search-first", "true", "call(search)"),
                c("unrelated", "true", "G(count(pay) <= 2)"),
                c("never-search", "true", "G !call(search)")));
        assertThat(f).hasSize(1);
        assertThat(f.get(0).kind()).isEqualTo(LibraryAnalysis.Kind.CONFLICT);
        assertThat(f.get(0).contracts()).containsExactlyInAnyOrder("must-search-first", "never-search");
    }

    @Test
    void eventAxiomsPreventFalseConflicts() {
        // Without the axiom "one event is one call", these two look contradictory to a plain LTL tool
        // only if both tools could be called at once; with it the library is fine.
        assertThat(analysis.analyse(List.of(
                c("first-a", "true", "call(a)"),
                c("never-a-and-b", "true", "G !(call(a) & call(b))")))).isEmpty();
    }

    @Test
    void aConflictDoesNotHideTheDeadEndOfTheOtherContracts() {
        // trial13 check-conflict-hides-dead-end: beside an inconsistent contract the pay dead end was reported, beside
        // a conflicting pair it was not (the pay automata cannot wait, so all four are one part)
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("pay.then-receipt", "true", "G(call(pay) -> X call(receipt))"),
                c("pay.no-receipt-after-user", "true", "G(user -> G !call(receipt))"),
                c("z.must", "true", "F call(z)"),
                c("z.never", "true", "G !call(z)")));
        assertThat(f).extracting(LibraryAnalysis.Finding::kind)
                .containsExactly(LibraryAnalysis.Kind.CONFLICT, LibraryAnalysis.Kind.DEAD_END);
        assertThat(f.get(0).contracts()).containsExactly("z.must", "z.never");
        assertThat(f.get(1).contracts()).containsExactly("pay.then-receipt", "pay.no-receipt-after-user");
        assertThat(f.get(1).witness()).containsExactly(List.of("user"), List.of("call(pay)"));
    }

    @Test
    void twoConflictsInOnePartAreBothNamed() {
        // pay.then-receipt cannot wait, so the five contracts are one part
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("pay.then-receipt", "true", "G(call(pay) -> X call(receipt))"),
                c("z.must", "true", "F call(z)"), c("z.never", "true", "G !call(z)"),
                c("y.must", "true", "F call(y)"), c("y.never", "true", "G !call(y)")));
        assertThat(f).extracting(LibraryAnalysis.Finding::kind).containsOnly(LibraryAnalysis.Kind.CONFLICT);
        assertThat(f).extracting(LibraryAnalysis.Finding::contracts)
                .containsExactlyInAnyOrder(List.of("z.must", "z.never"), List.of("y.must", "y.never"));
    }

    @Test
    void aTrapWithAnOpenObligationIsADeadEndWithAShortestWitness() {
        // trial2 R6: after [user], [call(pay)] neither contract is violated, but every further event
        // breaks one and ending leaves X call(receipt) open
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("pay-then-receipt", "true", "G(call(pay) -> X call(receipt))"),
                c("no-receipt-after-user", "true", "G(user -> G !call(receipt))")));
        assertThat(f).hasSize(1);
        assertThat(f.get(0).kind()).isEqualTo(LibraryAnalysis.Kind.DEAD_END);
        assertThat(f.get(0).contracts()).containsExactly("pay-then-receipt", "no-receipt-after-user");
        assertThat(f.get(0).witness()).containsExactly(List.of("user"), List.of("call(pay)"));
        assertThat(f.get(0).explanation()).contains("no contract is violated yet").contains("ending now leaves unmet: X call(receipt) (pay-then-receipt)");
    }

    @Test
    void aDeadEndNamesOnlyTheTrappedContracts() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("cap", "true", "G(count(search) <= 3)"),
                c("pay-then-receipt", "true", "G(call(pay) -> X call(receipt))"),
                c("respond", "true", "G(user -> F assistant)"),
                c("no-receipt-after-user", "true", "G(user -> G !call(receipt))")));
        assertThat(f).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(f.get(0).contracts()).containsExactly("pay-then-receipt", "no-receipt-after-user");
        // count(search) <= 3 holds too (the cap is kept), as it does on a real trace
        assertThat(f.get(0).witness()).hasSize(2);
        assertThat(f.get(0).witness().get(0)).contains("user").doesNotContain("call(pay)");
        assertThat(f.get(0).witness().get(1)).contains("call(pay)").doesNotContain("user");
    }

    @Test
    void havingToEndTheSessionIsNotADeadEnd() {
        // ending right after delete keeps the contract, so the session is not trapped
        assertThat(analysis.analyse(List.of(c("stop-after-delete", "true", "G(call(delete) -> WX false)")))).isEmpty();
    }

    @Test
    void aPrefixThatAlreadyViolatesAContractIsNotADeadEnd() {
        // after [call(delete)] nothing keeps the library, but the contract is violated outright:
        // the monitor refuses that call, so it is not a trap
        assertThat(analysis.analyse(List.of(c("no-delete", "true", "G !call(delete)"),
                c("no-user-then-delete", "true", "G(user -> G !call(delete))")))).isEmpty();
    }

    @Test
    void aContractWhoseAssumptionCanStillBreakLeavesAWayOut() {
        // after [pay] the first contract is kept by any continuation in which q holds once (its
        // assumption breaks, it goes IDLE), so the library is not trapped; with assumption true it is
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("pay-then-receipt", "G !q", "G(call(pay) -> X call(receipt))"),
                c("no-receipt-after-pay", "true", "G(call(pay) -> G !call(receipt))")));
        assertThat(f).isEmpty();
        assertThat(analysis.analyse(List.of(
                c("pay-then-receipt", "true", "G(call(pay) -> X call(receipt))"),
                c("no-receipt-after-pay", "true", "G(call(pay) -> G !call(receipt))"))))
                .extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
    }

    @Test
    void aProductAboveTheBoundIsTooLargeNotSearched() {
        // each automaton fits in 4 states, their product of waiting obligations does not
        List<Contract> three = List.of(c("a", "true", "G(p -> X q)"), c("b", "true", "G(r -> X s)"), c("c", "true", "G(t -> X u)"));
        assertThatThrownBy(() -> new DeadEnds(three, new DfaCompiler(4)).search())
                .isInstanceOf(DeadEnds.TooLarge.class).hasMessageContaining("needs more than 4 states");
        // 17 atoms that can hold together, and an obligation (an invariant alone has no dead end, at any size)
        StringBuilder wide = new StringBuilder("G((a0");
        for (int i = 1; i <= DeadEnds.MAX_LOCAL_ATOMS; i++) wide.append(" & a").append(i);
        List<Contract> one = List.of(c("wide", "true", wide + ") -> X b)"));
        assertThatThrownBy(() -> new DeadEnds(one, new DfaCompiler(100)))
                .isInstanceOf(DeadEnds.TooLarge.class).hasMessageContaining("reads 18 atoms");
        assertThat(new LibraryAnalysis(new DfaCompiler(100)).analyse(one))
                .extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.TOO_LARGE);
    }

    /**
     * trial27 06: a tool allow-list of 60 tools compiles to 2 states, but its consistency and conflict checks were
     * skipped as TOO_LARGE at the default bound (the one-event-one-call axioms, a G per pair of tools, 1770 of them,
     * outgrew the compiler's work bound). They run now: the allow-list alone has no finding but the dead-end check's
     * documented atom limit, and with two of its tools called at one event it is inconsistent.
     */
    @Test
    void aToolAllowListOfSixtyToolsIsCheckedAtTheDefaultBound() {
        StringBuilder tools = new StringBuilder();
        for (int i = 0; i < 60; i++) tools.append(i == 0 ? "" : " | ").append("call(t").append(Integer.toHexString(i * 7919)).append("x)");
        String allow = "G(call -> (" + tools + "))";
        LibraryAnalysis bounded = new LibraryAnalysis(new DfaCompiler(20_000));
        List<LibraryAnalysis.Finding> alone = bounded.analyse(List.of(c("allow.only-known-tools", "true", allow)));
        assertThat(alone).as("an invariant alone has no dead end (trial36 04)").isEmpty();
        // two calls at one event: no event is that (the axioms), so no trace keeps this one
        String both = "F(call(t" + Integer.toHexString(7919) + "x) & call(t" + Integer.toHexString(2 * 7919) + "x))";
        List<LibraryAnalysis.Finding> broken = bounded.analyse(List.of(c("allow.broken", "true", allow + " & " + both)));
        assertThat(broken).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.INCONSISTENT);
    }

    /**
     * trial36 04: the documented allow-list G(call -> (call(t0) | ... | call(tN))) was TOO_LARGE from 16 tools on (its
     * dead-end check enumerated 2^(N+2) letters), so check exited 1 for good, advising a split that changes the meaning.
     * Calls of different tools exclude each other, so it has 2(N + 2) events to try; with another contract the check
     * runs and still finds a dead end; alone an invariant has none, at any length.
     */
    @Test
    void aToolAllowListIsDeadEndCheckedWhateverItsLength() {
        LibraryAnalysis bounded = new LibraryAnalysis(new DfaCompiler(20_000));
        for (int n : new int[] {16, 20, 40, 61, 200}) {
            StringBuilder tools = new StringBuilder();
            for (int i = 0; i < n; i++) tools.append(i == 0 ? "" : " | ").append("call(t").append(i).append(")");
            String allow = "G(call -> (" + tools + "))";
            assertThat(bounded.analyse(List.of(c("al.only-listed-tools", "true", allow)))).as(n + " tools").isEmpty();
            if (n > 60) continue;
            // the dead-end check runs over the list with contracts it shares atoms with (two that trap after t0)
            List<LibraryAnalysis.Finding> trapped = bounded.analyse(List.of(c("al.only-listed-tools", "true", allow),
                    c("al.then-t1", "true", "G(call(t0) -> X call(t1))"), c("al.not-t1", "true", "G(call(t0) -> X !call(t1))")));
            assertThat(trapped).as(n + " tools and a deadline").extracting(LibraryAnalysis.Finding::kind).contains(LibraryAnalysis.Kind.DEAD_END)
                    .doesNotContain(LibraryAnalysis.Kind.TOO_LARGE);
        }
    }

    @Test
    void theBuiltinLibrariesHaveNoFindings() {
        for (String name : List.of("gdpr", "injection", "temporal-classes", "sop-refund",
                "builtin:agentdojo/banking", "builtin:agentdojo/travel", "builtin:agentdojo/workspace", "builtin:agentdojo/slack")) {
            Library lib = Library.compile(List.of(Library.read(name, null)));
            assertThat(analysis.analyse(lib.contracts().contracts())).as(name).isEmpty();
        }
        Library together = Library.compile(List.of(Library.read("gdpr", null), Library.read("injection", null),
                Library.read("temporal-classes", null), Library.read("sop-refund", null)));
        assertThat(new LibraryAnalysis(new DfaCompiler(20_000)).analyse(together.contracts().contracts())).isEmpty();
    }

    @Test
    void englishReadsCommonPatterns() {
        assertThat(English.of(Parser.parse("G(call(refund) -> O returned(approve_refund))")))
                .isEqualTo("Whenever the agent calls refund, the tool approve_refund returns a result at some point so far.");
        assertThat(English.of(Parser.parse("G(count(search) <= 3)")))
                .isEqualTo("At every event, the number of calls to search so far is at most 3.");
        assertThat(English.of(Parser.parse("G !call(delete)"))).isEqualTo("The agent never calls delete.");
        assertThat(English.of(Parser.parse("G(request -> F response)"))).isEqualTo("Whenever `request`, eventually `response`.");
    }
}
