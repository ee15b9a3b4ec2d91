package dev.tracegate.engine.reference;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.RvVerdict;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Tag;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.statistics.Statistics;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The compiled automaton against the reference: at every prefix of random traces its state must
 * accept exactly when the direct semantics does, and carry the four-valued verdict that progression
 * decides by exploring every extension.
 */
class DfaAgreementTest {
    private static final DfaCompiler COMPILER = new DfaCompiler(5_000);
    private static final int MAX_RESIDUALS = 50_000;

    private int samples;
    private int skipped;

    /** 2,000 tries in the default run (about four fifths of this class's time went to 10,000), 10,000 under {@code -Plong}. */
    @Property(tries = 2_000)
    void automatonAgreesWithTheReferenceAtEveryPrefix(@ForAll("withPast") FormulaArbitraries.Sample s) {
        check(s);
    }

    /** The same property with the tries it had in the default run before session 24: {@code mvn -Plong -pl engine test}. */
    @Tag("long")
    @Property(tries = 10_000)
    void automatonAgreesWithTheReferenceAtEveryPrefixLong(@ForAll("withPast") FormulaArbitraries.Sample s) {
        check(s);
    }

    @Property(tries = 2_000)
    void futureOnlyFormulasOnLongerTraces(@ForAll("futureOnly") FormulaArbitraries.Sample s) {
        check(s);
    }

    @Property(tries = 1_000)
    void sixAtoms(@ForAll("sixAtoms") FormulaArbitraries.Sample s) {
        check(s);
    }

    @Property(tries = 1_000)
    void deeperFormulasOnLongerTraces(@ForAll("deep") FormulaArbitraries.Sample s) {
        check(s);
    }

    private void check(FormulaArbitraries.Sample s) {
        samples++;
        Dfa dfa;
        RvVerdict[] expected;
        try {
            dfa = COMPILER.compile(s.formula());
            expected = Progression.verdicts(s.formula(), s.atoms(), s.trace(), MAX_RESIDUALS);
        } catch (StateLimitException | ResidualLimitException e) {
            skipped++;
            Statistics.label("skipped").collect(true);
            return;
        }
        Statistics.label("skipped").collect(false);
        Statistics.label("automaton states").collect(dfa.stateCount() <= 2 ? "1-2" : dfa.stateCount() <= 4 ? "3-4"
                : dfa.stateCount() <= 16 ? "5-16" : ">16");
        long[] local = FormulaArbitraries.project(s.trace(), s.atoms(), dfa.atoms());
        int state = dfa.initialState();
        for (int i = 0; ; i++) {
            boolean accepts = Semantics.holds(s.formula(), s.atoms(), s.prefix(i));
            assertThat(dfa.accepting(state)).as("%s: acceptance after %d letters (state %d)", s, i, state).isEqualTo(accepts);
            assertThat(dfa.verdict(state)).as("%s: verdict after %d letters (state %d)", s, i, state).isEqualTo(expected[i]);
            if (i == local.length) break;
            state = dfa.next(state, local[i]);
        }
        Statistics.label("final verdict").collect(expected[s.trace().length]);
    }

    @AfterProperty
    void skipsAreRare() {
        assertThat(skipped).as("samples skipped for exceeding a state or residual bound, of %d", samples)
                .isLessThanOrEqualTo(samples / 100);
    }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> withPast() { return FormulaArbitraries.samples(4, 4, true, 8); }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> futureOnly() {
        List<Atom> atoms = FormulaArbitraries.atoms(3);
        return Combinators.combine(FormulaArbitraries.futureFormulas(3, 5), FormulaArbitraries.traces(3, 16))
                .as((f, t) -> new FormulaArbitraries.Sample(f, atoms, t));
    }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> deep() { return FormulaArbitraries.samples(3, 6, true, 12); }

    @Provide
    Arbitrary<FormulaArbitraries.Sample> sixAtoms() { return FormulaArbitraries.samples(6, 4, true, 8); }
}
