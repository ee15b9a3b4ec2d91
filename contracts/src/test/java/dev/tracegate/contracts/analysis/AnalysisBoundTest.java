package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Session 20: the dead-end search's work and memory are bounded by its state bound, whatever the library. A library of
 * one invariant per atom, over atoms of every kind (the agent's HashedReplayOracleTest library), is one part (its atoms
 * are related: one event's kind excludes another's, call(t) implies call...), and its search kept every related atom in
 * every partial successor: 50 such contracts took more than 6 GB of heap and minutes of CPU, in check and in the agent.
 */
class AnalysisBoundTest {

    /** One atom of every kind the grounding evaluates, as in the agent's HashedReplayOracleTest library. */
    static final List<String> ATOMS = List.of("user", "assistant", "call", "return", "consent", "erasure", "call(send_money)",
            "call(send_money, \"DE89\")", "returned(read_invoice)", "failed(send_money)", "arg(amount) > 100",
            "arg(send_money, amount) <= 1000", "arg_matches(recipient, \"DE\")", "arg_in(recipient, [\"DE89370400440532013000\"])",
            "path_within(path, [\"/srv/\"])", "len(arg(email)) > 14", "result_matches(\"Pay to\")", "user_matches(\"invoice\")",
            "output_matches(\"wrote\")", "ctx(approved)", "ctx(approved) > 100", "ctx(mode) == \"strict\"", "ctx(total)",
            "arg_eq_ctx(recipient, payee)", "permission(admin)", "permission(read_orders)", "flow(recipient)",
            "untrusted(recipient)", "untrusted_target", "side_effect", "named_link", "category(email)", "personal_data",
            "excess_data", "purpose(billing)", "consent(billing)", "consented", "purpose(billing) & !consented",
            "undeclared_purpose", "mentions_erased", "count(send_money) >= 1", "count(send_money) <= ctx(approved)",
            "count(send_money) <= ctx(limit)", "run(send_money) >= 1", "sum(send_money, amount) > 10", "context_len > 100",
            "output_chars > 20", "tokens > 20", "since(call(send_money)) > 2", "since(personal_data) > 2");

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }

    static List<Contract> invariants(int n) {
        List<Contract> cs = new ArrayList<>();
        for (int i = 0; i < n; i++) cs.add(c("probe.a" + i, "true", "G !(" + ATOMS.get(i) + ")"));
        return cs;
    }

    @Test
    void fiftyInvariantsOverRelatedAtomsAreOnePartWithoutFindings() {
        List<Contract> fifty = invariants(50);
        LibraryAnalysis analysis = new LibraryAnalysis(new DfaCompiler(10_000));
        assertThat(analysis.independentParts(fifty)).as("related atoms tie them into one part").hasSize(1);
        assertThat(analysis.analyse(fifty)).as("no finding and no skipped check").isEmpty();
    }

    @Test
    void theSearchOfFiftyInvariantsAndAnObligationKeepsFewPartials() throws Exception {
        // an obligation besides: the search runs (invariants alone cannot have a dead end, and are not searched)
        List<Contract> cs = new ArrayList<>(invariants(50));
        cs.add(c("obligation", "true", "G(p -> F q)"));
        DeadEnds search = new DeadEnds(cs, new DfaCompiler(10_000));
        assertThat(search.search()).isNull();
        // a successor that breaks an invariant for good is dropped when its contract is joined, and an atom leaves the
        // partials once no later contract reads it or one it relates to: one partial per way the obligation can go
        assertThat(search.peakPartials).as("partial successors live at once").isLessThanOrEqualTo(8);
        assertThat(search.statesMade).as("product states").isLessThanOrEqualTo(4);
        assertThat(search.partialsMade).as("partial successors made in all").isLessThanOrEqualTo(2_000);
    }

    @Test
    void aJoinThatOutgrowsTheMemoryTheBoundAllowsIsSkippedWithTheBoundNamed() throws Exception {
        // eight obligations, and a contract that reads all their atoms: from the start, the join keeps each of the 2^8
        // ways the eight atoms can be, each a partial successor with the whole product tuple
        List<Contract> cs = new ArrayList<>();
        StringBuilder any = new StringBuilder("a0");
        for (int i = 0; i < 8; i++) {
            cs.add(c("o" + i, "true", "F a" + i));
            if (i > 0) any.append(" | a").append(i);
        }
        cs.add(c("after", "true", "G((" + any + ") -> X z)"));
        DeadEnds small = new DeadEnds(cs, new DfaCompiler(20));   // 20 states: 40 KB
        assertThatThrownBy(small::search).isInstanceOf(DeadEnds.TooLarge.class)
                .hasMessageContaining("dead-end check skipped: the product of 9 contracts over 9 atoms needs more than the 40 KB"
                        + " of working memory that the bound of 20 states allows")
                .hasMessageContaining(DfaCompiler.RAISE_BOUND)
                .satisfies(e -> assertThat(((DeadEnds.TooLarge) e).states).as("a larger bound lifts it").isTrue());
        assertThat(small.peakBytes).as("counted up to the bound, not past it by more than one partial")
                .isLessThanOrEqualTo(20 * DeadEnds.BYTES_PER_STATE + 1_000);
        assertThat(small.statesMade).as("the state bound was not what stopped it").isLessThan(20);
        // with a bound that allows the memory, the same search finishes
        DeadEnds large = new DeadEnds(cs, new DfaCompiler(5_000));
        large.search();
        assertThat(large.peakBytes).isLessThanOrEqualTo(5_000 * DeadEnds.BYTES_PER_STATE);
        assertThat(large.peakPartials).as("the eight atoms' ways are kept apart").isGreaterThanOrEqualTo(1 << 8);
    }
}
