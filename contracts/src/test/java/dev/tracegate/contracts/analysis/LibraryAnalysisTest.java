package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

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
    void deadEndIsFoundWithAWitness() {
        List<LibraryAnalysis.Finding> f = analysis.analyse(List.of(
                c("stop-after-delete", "true", "G(call(delete) -> WX false)")));
        assertThat(f).hasSize(1);
        assertThat(f.get(0).kind()).isEqualTo(LibraryAnalysis.Kind.DEAD_END);
        assertThat(f.get(0).witness()).isNotEmpty();
        assertThat(f.get(0).witness().get(f.get(0).witness().size() - 1)).contains("call(delete)");
    }

    @Test
    void englishReadsCommonPatterns() {
        assertThat(English.of(Parser.parse("G(call(refund) -> O returned(approve_refund))")))
                .isEqualTo("Whenever the agent calls refund, approve_refund returns a result at some point so far.");
        assertThat(English.of(Parser.parse("G(count(search) <= 3)")))
                .isEqualTo("At every event, the number of calls to search so far is at most 3.");
        assertThat(English.of(Parser.parse("G !call(delete)"))).isEqualTo("The agent never calls delete.");
        assertThat(English.of(Parser.parse("G(request -> F response)"))).isEqualTo("Whenever `request`, eventually `response`.");
    }
}
