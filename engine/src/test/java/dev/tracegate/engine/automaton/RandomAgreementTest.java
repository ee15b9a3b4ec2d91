package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/** The compiled automaton accepts exactly the prefixes that the literal trace semantics accepts. */
class RandomAgreementTest {
    private final DfaCompiler compiler = new DfaCompiler(5_000);

    @Test
    void acceptanceAgreesWithTraceSemanticsOnRandomFormulasAndTraces() {
        Random traces = new Random(7);
        for (int i = 0; i < 1500; i++) {
            RandomFormulas gen = new RandomFormulas(1000 + i, 1 + i % 4);
            Formula f = gen.next(2 + i % 4);
            Dfa dfa = compiler.compile(f);
            TraceSemantics sem = new TraceSemantics(f);
            int k = dfa.atoms().size();
            assertThat(dfa.accepting(dfa.initialState())).as("empty trace satisfies %s", f).isTrue();
            for (int t = 0; t < 40; t++) {
                long[] trace = new long[traces.nextInt(9)];
                for (int p = 0; p < trace.length; p++) trace[p] = k == 0 ? 0 : traces.nextInt(1 << k);
                int s = dfa.initialState();
                for (int p = 0; p < trace.length; p++) {
                    s = dfa.next(s, trace[p]);
                    long[] prefix = java.util.Arrays.copyOf(trace, p + 1);
                    if (dfa.accepting(s) != sem.satisfies(f, prefix)) {
                        fail("formula %s, trace %s: automaton says %s", Formulas.print(f),
                                java.util.Arrays.toString(prefix), dfa.accepting(s));
                    }
                }
            }
        }
    }
}
