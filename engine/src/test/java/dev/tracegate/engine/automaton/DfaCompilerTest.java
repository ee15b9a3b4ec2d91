package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_SATISFIED;
import static dev.tracegate.engine.ltl.RvVerdict.PERMANENTLY_VIOLATED;
import static dev.tracegate.engine.ltl.RvVerdict.PRESUMABLY_SATISFIED;
import static dev.tracegate.engine.ltl.RvVerdict.PRESUMABLY_VIOLATED;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Standard specification patterns: minimal state counts worked out by hand (one state per class of
 * prefixes that no suffix tells apart) and the four-valued verdict after each prefix.
 */
class DfaCompilerTest {
    private final DfaCompiler compiler = new DfaCompiler(10_000);

    /** Letters written as the atoms that hold, e.g. "a,b"; "-" is the letter where none holds. */
    private static List<RvVerdict> verdicts(Dfa dfa, String... letters) {
        List<RvVerdict> out = new ArrayList<>();
        int s = dfa.initialState();
        out.add(dfa.verdict(s));
        for (String l : letters) {
            long letter = 0;
            for (String name : l.split(",")) {
                if (name.equals("-")) continue;
                int j = dfa.atoms().indexOf(dev.tracegate.engine.ltl.Atom.of(name));
                assertThat(j).as("atom %s of %s", name, dfa.atoms()).isGreaterThanOrEqualTo(0);
                letter |= 1L << j;
            }
            s = dfa.next(s, letter);
            out.add(dfa.verdict(s));
        }
        return out;
    }

    private Dfa compile(String text) { return compiler.compile(Parser.parse(text)); }

    @Test
    void responseHasTwoStatesAndNeverReachesASink() {
        Dfa dfa = compile("G(a -> F b)");
        assertThat(dfa.stateCount()).isEqualTo(2);
        assertThat(verdicts(dfa, "-", "a", "-", "b", "a,b", "a"))
                .containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED,
                        PRESUMABLY_VIOLATED, PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED);
        assertThat(dfa.pending(dfa.run(1L))).isEqualTo("X F b");
        assertThat(dfa.pending(dfa.initialState())).isNull();
    }

    @Test
    void precedenceFutureAndPastFormsBothHaveThreeStates() {
        // "no b before the first a": waiting, satisfied for good, violated for good.
        Dfa future = compile("!b W a");
        assertThat(future.stateCount()).isEqualTo(3);
        assertThat(verdicts(future, "-", "a", "b")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PERMANENTLY_SATISFIED, PERMANENTLY_SATISFIED);
        assertThat(verdicts(future, "-", "b", "a")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PERMANENTLY_VIOLATED, PERMANENTLY_VIOLATED);
        assertThat(verdicts(future, "a,b")).containsExactly(PRESUMABLY_SATISFIED, PERMANENTLY_SATISFIED);

        Dfa past = compile("G(b -> O a)");
        assertThat(past.stateCount()).isEqualTo(3);
        assertThat(verdicts(past, "-", "a", "b")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PERMANENTLY_SATISFIED, PERMANENTLY_SATISFIED);
        assertThat(verdicts(past, "b")).containsExactly(PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
        // O includes the current position: a and b together are fine.
        assertThat(verdicts(past, "a,b")).containsExactly(PRESUMABLY_SATISFIED, PERMANENTLY_SATISFIED);
    }

    @Test
    void refundNeedsAnEarlierApproval() {
        Dfa dfa = compile("G(refund -> O approve)");
        assertThat(dfa.stateCount()).isEqualTo(3);
        assertThat(verdicts(dfa, "-", "refund")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PERMANENTLY_VIOLATED);
        assertThat(verdicts(dfa, "approve", "-", "refund")).containsExactly(PRESUMABLY_SATISFIED,
                PERMANENTLY_SATISFIED, PERMANENTLY_SATISFIED, PERMANENTLY_SATISFIED);
    }

    @Test
    void boundedExistenceCountsUpToTheBound() {
        // At most one a: none yet, one seen, violated.
        Dfa once = compile("G(a -> WX G !a)");
        assertThat(once.stateCount()).isEqualTo(3);
        assertThat(verdicts(once, "a", "-", "a")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
        // At most two a: one more counting state.
        Dfa twice = compile("G(a -> WX G(a -> WX G !a))");
        assertThat(twice.stateCount()).isEqualTo(4);
        assertThat(verdicts(twice, "a", "a", "-", "a")).containsExactly(PRESUMABLY_SATISFIED,
                PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
    }

    @Test
    void absenceAfterAScope() {
        Dfa dfa = compile("G(q -> G !p)");
        assertThat(dfa.stateCount()).isEqualTo(3);
        assertThat(verdicts(dfa, "p", "q", "-", "p")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED,
                PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
        // G !p starts at the q itself.
        assertThat(verdicts(dfa, "q,p")).containsExactly(PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
    }

    @Test
    void sinceRemembersWhetherConsentStillStands() {
        Dfa dfa = compile("G(grant -> (!revoke S consent))");
        // consent standing or not, plus the violation.
        assertThat(dfa.stateCount()).isEqualTo(3);
        assertThat(verdicts(dfa, "consent", "grant", "revoke", "grant")).containsExactly(PRESUMABLY_SATISFIED,
                PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
        // consent and revoke together: S holds through the consent at the same position.
        assertThat(verdicts(dfa, "consent,revoke", "grant")).containsExactly(PRESUMABLY_SATISFIED,
                PRESUMABLY_SATISFIED, PRESUMABLY_SATISFIED);
    }

    @Test
    void theEmptyTraceSatisfiesEveryFormulaSoEvenEventuallyStartsAccepting() {
        Dfa eventually = compile("F a");
        assertThat(eventually.stateCount()).isEqualTo(3);
        assertThat(verdicts(eventually, "-", "-", "a")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED,
                PRESUMABLY_VIOLATED, PERMANENTLY_SATISFIED);
        Dfa next = compile("X a");
        assertThat(next.stateCount()).isEqualTo(4);
        assertThat(verdicts(next, "-", "a")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED,
                PERMANENTLY_SATISFIED);
        assertThat(verdicts(next, "a", "-")).containsExactly(PRESUMABLY_SATISFIED, PRESUMABLY_VIOLATED,
                PERMANENTLY_VIOLATED);
        assertThat(compile("false").stateCount()).isEqualTo(2);
        assertThat(verdicts(compile("false"), "-")).containsExactly(PRESUMABLY_SATISFIED, PERMANENTLY_VIOLATED);
        Dfa always = compile("true");
        assertThat(always.stateCount()).isEqualTo(1);
        assertThat(always.verdict(0)).isEqualTo(PERMANENTLY_SATISFIED);
    }

    @Test
    void pendingNamesTheStrongObligationOfAWaitingState() {
        Dfa dfa = compile("G(request -> X(ack U done))");
        int waiting = dfa.run(1L); // request read: X(ack U done) is open
        assertThat(dfa.verdict(waiting)).isEqualTo(PRESUMABLY_VIOLATED);
        assertThat(dfa.pending(waiting)).isEqualTo("X (ack U done)");
        int violated = dfa.run(1L, 0L);
        assertThat(dfa.verdict(violated)).isEqualTo(PERMANENTLY_VIOLATED);
        assertThat(dfa.pending(violated)).isNull();
    }

    @Test
    void pastOperatorsNestAndWeakNextIsDualToNext() {
        Formula f = Parser.parse("G(c -> Y(H(a) S b)) & WX !X false");
        Dfa dfa = compiler.compile(f);
        TraceSemantics sem = new TraceSemantics(f);
        // Exhaustive over all traces up to length 5 on 3 atoms.
        for (int len = 1; len <= 5; len++) {
            for (int code = 0; code < 1 << (3 * len); code++) {
                long[] t = new long[len];
                for (int p = 0; p < len; p++) t[p] = (code >>> (3 * p)) & 7;
                assertThat(dfa.accepting(dfa.run(t))).as("trace %s", java.util.Arrays.toString(t))
                        .isEqualTo(sem.satisfies(f, t));
            }
        }
    }
}
