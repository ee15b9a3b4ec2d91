package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The unmet obligation a state reports at the end ({@code replay}'s "unmet obligation at end", {@code check}'s "ending
 * now leaves unmet") is a formula that, read at the last event of the trace, is false there, as the automaton's
 * verdict is; and one that every extension satisfying the formula satisfies at that event. trial21 (02): after
 * {@code open} as the last event, {@code G(call(open) -> X G !call(close))} printed {@code G !call(close)}, which the end
 * satisfies; now {@code X G !call(close)}. Oracle: {@link TraceSemantics}, the literal trace semantics.
 */
class PendingObligationTest {
    private final DfaCompiler compiler = new DfaCompiler(5_000);

    @Test
    void theObligationOfAStrongNextKeepsItsNext() {
        Dfa quiet = compiler.compile(Parser.parse("G(call(open) -> X G !call(close))"));
        long open = 1L << quiet.atoms().indexOf(Parser.parse("call(open)"));
        assertThat(quiet.pending(quiet.run(open))).isEqualTo("X G !call(close)");
        Dfa absent = compiler.compile(Parser.parse("G(call(open) -> X !call(close))"));
        assertThat(absent.pending(absent.run(1L << absent.atoms().indexOf(Parser.parse("call(open)"))))).isEqualTo("X !call(close)");
    }

    @Test
    void theObligationIsFalseAtTheLastEventAndNeededByEveryExtensionThatSatisfiesTheFormula() {
        Random traces = new Random(21);
        int checked = 0;
        for (int i = 0; i < 1500; i++) {
            RandomFormulas gen = new RandomFormulas(5000 + i, 1 + i % 4);
            Formula f = gen.next(2 + i % 4);
            Dfa dfa = compiler.compile(f);
            TraceSemantics sem = new TraceSemantics(f);
            int k = dfa.atoms().size();
            for (int t = 0; t < 20; t++) {
                long[] trace = new long[1 + traces.nextInt(6)];
                for (int p = 0; p < trace.length; p++) trace[p] = k == 0 ? 0 : traces.nextInt(1 << k);
                int s = dfa.initialState();
                for (long l : trace) s = dfa.next(s, l);
                String pending = dfa.pending(s);
                if (pending == null || pending.contains("...")) continue;
                Formula p = Parser.parse(pending);
                int last = trace.length - 1;
                assertThat(sem.satisfies(f, trace)).as("%s on %s", f, Arrays.toString(trace)).isFalse();
                assertThat(sem.at(p, trace, last)).as("obligation %s of %s at the end of %s", pending, Formulas.print(f),
                        Arrays.toString(trace)).isFalse();
                for (int e = 0; e < 8; e++) {
                    long[] longer = Arrays.copyOf(trace, trace.length + 1 + traces.nextInt(3));
                    for (int q = trace.length; q < longer.length; q++) longer[q] = k == 0 ? 0 : traces.nextInt(1 << k);
                    if (sem.satisfies(f, longer)) {
                        assertThat(sem.at(p, longer, last)).as("obligation %s of %s, extension %s", pending, Formulas.print(f),
                                Arrays.toString(longer)).isTrue();
                    }
                }
                checked++;
            }
        }
        assertThat(checked).as("unmet obligations checked").isGreaterThan(500);
    }
}
