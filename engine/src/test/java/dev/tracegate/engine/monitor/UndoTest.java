package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Parser;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link SessionMonitor#undo}: a caller that refuses an event after the monitor applied it (the audit
 * log could not take the record) takes the step back, and the session is then exactly as if the
 * event had never come; checked against a reference session that never saw the undone events.
 */
class UndoTest {
    private static final DfaCompiler COMPILER = new DfaCompiler(10_000);

    private static ContractSet set() {
        return ContractSet.compile(List.of(
                new Contract("refund-after-approval", Parser.parse("true"), Parser.parse("G(refund -> O approve)"), "block", "m"),
                new Contract("at-most-once", Parser.parse("true"), Parser.parse("G(refund -> WX G !refund)"), "block", "m"),
                new Contract("no-send-after-read", Parser.parse("G !taint"), Parser.parse("G(read -> G !send)"), "block", "m")), COMPILER);
    }

    private static long bit(ContractSet set, String atom) {
        return 1L << set.atoms().indexOf(Parser.parse(atom));
    }

    @Test
    void anUndoneApprovalNoLongerPermitsTheRefund() {
        ContractSet set = set();
        SessionMonitor<BitsGrounder.Ev> m = new SessionMonitor<>(set, new BitsGrounder());
        Worker w = m.newWorker();
        Session s = m.session("s");
        assertThat(m.step(s, new BitsGrounder.Ev(1, bit(set, "approve"), 0, true), true, true, w)).isSameAs(Decision.PASS);
        assertThat(m.undo(s, w)).isTrue();
        assertThat(m.undo(s, w)).as("only the last step, once").isFalse();
        assertThat(s.applied()).isZero();
        assertThat(m.snapshot(s).words).containsExactly(0, 0);
        assertThat(m.step(s, new BitsGrounder.Ev(2, bit(set, "refund"), 0, true), true, true, w).kind()).isEqualTo(Decision.Kind.BLOCK);
    }

    @Test
    void undoRefusesWhenSomethingElseWasAppliedSinceOrTheStepWasRefused() {
        ContractSet set = set();
        SessionMonitor<BitsGrounder.Ev> m = new SessionMonitor<>(set, new BitsGrounder());
        Worker w1 = m.newWorker();
        Worker w2 = m.newWorker();
        Session s = m.session("s");
        Session other = m.session("t");
        m.step(s, new BitsGrounder.Ev(1, bit(set, "approve"), 0, true), true, true, w1);
        m.step(s, new BitsGrounder.Ev(2, bit(set, "read"), 0, true), true, true, w2);
        assertThat(m.undo(s, w1)).as("another step came after it").isFalse();
        assertThat(m.undo(other, w2)).as("not this worker's last session").isFalse();
        Decision refused = m.step(s, new BitsGrounder.Ev(3, bit(set, "send"), 0, true), true, true, w2);
        assertThat(refused.applied()).isFalse();
        assertThat(m.undo(s, w2)).as("the last step of w2 was refused: nothing to take back").isFalse();
        assertThat(s.applied()).isEqualTo(2);
    }

    @Test
    void randomUndosLeaveTheSessionAsIfTheEventsNeverCame() {
        ContractSet set = set();
        String[] atoms = {"approve", "refund", "read", "send", "taint"};
        Random rnd = new Random(20261129);
        for (int trial = 0; trial < 500; trial++) {
            SessionMonitor<BitsGrounder.Ev> m = new SessionMonitor<>(set, new BitsGrounder());
            SessionMonitor<BitsGrounder.Ev> ref = new SessionMonitor<>(set, new BitsGrounder());
            Worker w = m.newWorker();
            Worker rw = ref.newWorker();
            Session s = m.session("s");
            Session r = ref.session("s");
            for (int i = 0; i < 12; i++) {
                long bits = 0;
                for (String a : atoms) if (rnd.nextInt(4) == 0) bits |= bit(set, a);
                boolean agent = rnd.nextBoolean();
                Decision d = m.step(s, new BitsGrounder.Ev(i, bits, 0, agent), agent, true, w);
                boolean undo = d.applied() && rnd.nextInt(3) == 0;
                if (undo) {
                    assertThat(m.undo(s, w)).isTrue();
                } else {
                    Decision expected = ref.step(r, new BitsGrounder.Ev(i, bits, 0, agent), agent, true, rw);
                    assertThat(d).as("trial %d event %d", trial, i).isEqualTo(expected);
                }
                assertThat(m.verdicts(s)).as("trial %d event %d", trial, i).containsExactly(ref.verdicts(r));
                assertThat(m.snapshot(s).words).containsExactly(ref.snapshot(r).words);
                assertThat(s.applied()).isEqualTo(r.applied());
            }
        }
    }
}
