package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.reference.FormulaArbitraries;
import dev.tracegate.engine.reference.Progression;
import dev.tracegate.engine.reference.ResidualLimitException;
import dev.tracegate.engine.reference.Semantics;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterProperty;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@link SessionMonitor#stepExcusing} and {@link Replay#next(Object, boolean, boolean, int[])}: an
 * approved event is applied, but each excused contract reads the trace without it, while every other
 * contract reads it. Checked against the reference (progression for prefix verdicts, the direct
 * semantics at the end) run on each contract's own trace: the applied events minus those that
 * excused it.
 */
class ExcuseTest {
    private static final DfaCompiler COMPILER = new DfaCompiler(2_000);
    private static final int MAX_RESIDUALS = 20_000;
    private static final List<Atom> ATOMS = FormulaArbitraries.atoms(3);

    private int samples;
    private int skipped;
    private long excusedEvents;
    private long refusedExcusing;

    /** One event of a sample: its letter, who controls it, and the contracts it is excused for (bit c: contract c). */
    record Event(long letter, boolean agent, int excusedMask) {
        int[] excused() {
            return java.util.stream.IntStream.range(0, 3).filter(c -> (excusedMask >>> c & 1) != 0).toArray();
        }
    }

    /** Three contracts (the third sometimes shares the first one's guarantee) and a trace. */
    record Sample(List<Formula> assume, List<Formula> guarantee, List<Event> events, boolean enforce) {
        @Override public String toString() {
            StringBuilder b = new StringBuilder(enforce ? "enforce" : "shadow");
            for (int c = 0; c < assume.size(); c++) {
                b.append("\n  c").append(c).append(": ").append(dev.tracegate.engine.ltl.Formulas.print(assume.get(c)))
                        .append(" => ").append(dev.tracegate.engine.ltl.Formulas.print(guarantee.get(c)));
            }
            for (Event e : events) {
                b.append("\n  ").append(FormulaArbitraries.show(new long[] {e.letter}, ATOMS)).append(e.agent ? " agent" : " env")
                        .append(e.excusedMask == 0 ? "" : " excused " + Arrays.toString(e.excused()));
            }
            return b.toString();
        }
    }

    @Property(tries = 600)
    void excusedContractsReadTheTraceWithoutTheEventOthersWithIt(@ForAll("samples") Sample s) {
        samples++;
        List<Contract> contracts = new ArrayList<>();
        for (int c = 0; c < 3; c++) contracts.add(new Contract("c" + c, s.assume.get(c), s.guarantee.get(c), "escalate", ""));
        ContractSet set;
        try {
            set = ContractSet.compile(contracts, ATOMS, COMPILER);
        } catch (StateLimitException tooBig) {
            skipped++;
            return;
        }
        SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
        Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
        Session session = online.session("s");
        Worker w = online.newWorker();
        List<List<Long>> views = List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>());
        try {
            for (int i = 0; i < s.events.size(); i++) {
                Event e = s.events.get(i);
                String where = s + "\nat event " + i;
                Verdict[] before = new Verdict[3];
                Verdict[] after = new Verdict[3];
                for (int c = 0; c < 3; c++) {
                    before[c] = verdict(s, c, views.get(c));
                    boolean excused = (e.excusedMask >>> c & 1) != 0;
                    after[c] = excused ? before[c] : verdict(s, c, append(views.get(c), e.letter));
                }
                Decision.Kind kind = Decision.Kind.PASS;
                List<Integer> blamed = new ArrayList<>();
                for (int c = 0; c < 3; c++) {
                    if (e.agent && after[c] == Verdict.FAIL && before[c] != Verdict.FAIL) blamed.add(c);
                }
                if (!blamed.isEmpty()) kind = Decision.Kind.BLOCK;
                if (!e.agent) {
                    for (int c = 0; c < 3; c++) if (after[c] == Verdict.IDLE && before[c] != Verdict.IDLE) blamed.add(c);
                    if (!blamed.isEmpty()) kind = Decision.Kind.SUPPRESS;
                    else {
                        for (int c = 0; c < 3; c++) if (after[c] == Verdict.FAIL && before[c] != Verdict.FAIL) blamed.add(c);
                        if (!blamed.isEmpty()) kind = Decision.Kind.VIOLATION;
                    }
                }
                boolean applied = !(kind == Decision.Kind.BLOCK || kind == Decision.Kind.SUPPRESS) || !s.enforce;

                BitsGrounder.Ev ev = new BitsGrounder.Ev(i, e.letter, 0, e.agent);
                Decision d = online.stepExcusing(session, ev, e.agent, e.excused(), s.enforce, w);
                Replay.Step o = offline.next(ev, e.agent, s.enforce, e.excused());
                assertThat(d.kind()).as(where).isEqualTo(kind);
                int[] blamedArray = blamed.stream().mapToInt(Integer::intValue).toArray();
                assertThat(d.contracts()).as(where).containsExactly(blamedArray);
                assertThat(d.applied()).as(where).isEqualTo(applied);
                assertThat(o.decision()).as(where).isEqualTo(kind);
                assertThat(o.applied()).as(where).isEqualTo(applied);
                assertThat(o.contracts()).as(where).containsExactly(blamedArray);
                if (applied) {
                    for (int c = 0; c < 3; c++) if ((e.excusedMask >>> c & 1) == 0) views.get(c).add(e.letter);
                }
                Verdict[] expected = new Verdict[3];
                for (int c = 0; c < 3; c++) expected[c] = verdict(s, c, views.get(c));
                assertThat(online.verdicts(session)).as(where).containsExactly(expected);
                assertThat(o.verdicts()).as(where).containsExactly(expected);
                assertThat(online.snapshot(session).states).as(where).isEqualTo(offline.states());
                assertThat(online.snapshot(session).words[0]).as(where + ": counters move on for excused events").isEqualTo(session.applied());
                if (e.excusedMask != 0) {
                    excusedEvents++;
                    if (!applied) refusedExcusing++;
                }
            }
        } catch (ResidualLimitException tooBig) {
            skipped++;
            return;
        }
        List<Verdict> end = new ArrayList<>();
        for (int c = 0; c < 3; c++) {
            long[] view = views.get(c).stream().mapToLong(Long::longValue).toArray();
            if (!Semantics.holds(s.assume.get(c), ATOMS, view)) end.add(Verdict.IDLE);
            else end.add(Semantics.holds(s.guarantee.get(c), ATOMS, view) ? Verdict.ACTIVE : Verdict.FAIL);
        }
        assertThat(online.end(session).verdicts()).as(s.toString()).isEqualTo(end);
        assertThat(offline.end().verdicts()).as(s.toString()).isEqualTo(end);
    }

    @AfterProperty
    void theSamplesExercisedExcuses() {
        assertThat(skipped).as("samples skipped for a state or residual bound, of %d", samples).isLessThanOrEqualTo(samples / 20);
        if (samples >= 100) {
            assertThat(excusedEvents).isGreaterThan(samples);
            assertThat(refusedExcusing).as("excusing steps refused for a contract not excused").isGreaterThan(0);
        }
    }

    private static Verdict verdict(Sample s, int c, List<Long> view) {
        long[] trace = view.stream().mapToLong(Long::longValue).toArray();
        if (Progression.verdict(s.assume.get(c), ATOMS, trace, MAX_RESIDUALS) == RvVerdict.PERMANENTLY_VIOLATED) return Verdict.IDLE;
        return Progression.verdict(s.guarantee.get(c), ATOMS, trace, MAX_RESIDUALS) == RvVerdict.PERMANENTLY_VIOLATED
                ? Verdict.FAIL : Verdict.ACTIVE;
    }

    private static List<Long> append(List<Long> view, long letter) {
        List<Long> out = new ArrayList<>(view);
        out.add(letter);
        return out;
    }

    @Provide
    Arbitrary<Sample> samples() {
        Arbitrary<Formula> assume = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(2, Arbitraries.just(Formula.Const.TRUE)),
                net.jqwik.api.Tuple.of(1, FormulaArbitraries.formulas(3, 3, true)));
        Arbitrary<Formula> guarantee = FormulaArbitraries.formulas(3, 3, true);
        Arbitrary<Event> event = Combinators.combine(
                Arbitraries.longs().between(0, 7), Arbitraries.of(true, true, false),
                Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(2, Arbitraries.just(0)),
                        net.jqwik.api.Tuple.of(1, Arbitraries.integers().between(1, 7))))
                .as(Event::new);
        return Combinators.combine(assume.list().ofSize(3), guarantee.list().ofSize(3), Arbitraries.of(false, true, true),
                        event.list().ofMaxSize(10), Arbitraries.of(true, true, false))
                .as((as, gs, share, evs, enforce) -> {
                    List<Formula> g = new ArrayList<>(gs);
                    if (share) g.set(2, g.get(0));   // the same formula in an excused and a non-excused contract
                    Statistics.label("shares a guarantee").collect(share);
                    return new Sample(as, g, evs, enforce);
                });
    }

    /**
     * Sets whose packed state spans several longs and holds decision-diagram automata, with
     * unevaluable atoms: online and offline agree on every excusing and normal step.
     */
    @Test
    void onlineAndOfflineAgreeWithExcusesOnLargeSets() {
        StringBuilder wide = new StringBuilder("G(p0 -> F(p1");
        for (int i = 2; i < 13; i++) wide.append(" | p").append(i);
        Contract manyAtoms = new Contract("wide", Formula.Const.TRUE, Parser.parse(wide + "))"), "block", "");
        int sets = 0;
        int wideWords = 0;
        long excusing = 0;
        long refusals = 0;
        for (int seed = 0; sets < 30; seed++) {
            Random r = new Random(5000 + seed);
            int atoms = 20 + r.nextInt(40);
            List<Contract> contracts = new ArrayList<>(RandomContracts.contracts(r, 12 + r.nextInt(20), atoms));
            if (seed % 2 == 0) contracts.add(manyAtoms);
            // A contract with another's guarantee, so that an excuse must hold back only one of the two.
            contracts.add(new Contract("twin", Formula.Const.TRUE, contracts.get(0).guarantee(), "block", ""));
            ContractSet set;
            try {
                set = ContractSet.compile(contracts, COMPILER);
            } catch (StateLimitException tooBig) {
                continue;
            }
            if (set.atoms().size() > 64) continue;
            sets++;
            if (set.flatTransitions().packedWords > 1) wideWords++;
            boolean enforce = r.nextInt(4) != 0;
            SessionMonitor<BitsGrounder.Ev> online = new SessionMonitor<>(set, new BitsGrounder());
            Replay<BitsGrounder.Ev> offline = new Replay<>(set, new BitsGrounder(), true, "s");
            Worker w = online.newWorker();
            Session s = online.session("s");
            int width = set.atoms().size();
            Decision last = Decision.PASS;
            for (int i = 0; i < 80; i++) {
                long bits = 0;
                for (int g = 0; g < width; g++) if (r.nextInt(8) == 0) bits |= 1L << g;
                long unev = r.nextInt(8) == 0 ? 1L << r.nextInt(width) : 0;
                boolean agent = r.nextInt(3) != 0;
                BitsGrounder.Ev e = new BitsGrounder.Ev(i, bits, unev, agent);
                // Excuse what the last refusal blamed (as an approver would), or random contracts now and then.
                int[] excused = null;
                if (last.refused() && r.nextBoolean()) excused = last.contracts();
                else if (r.nextInt(6) == 0) excused = r.ints(1 + r.nextInt(3), 0, contracts.size()).toArray();
                Decision d = excused == null ? online.step(s, e, agent, enforce, w) : online.stepExcusing(s, e, agent, excused, enforce, w);
                Replay.Step o = excused == null ? offline.next(e, agent, enforce) : offline.next(e, agent, enforce, excused);
                String where = "seed " + seed + " event " + i + " " + e + " excused " + Arrays.toString(excused);
                assertThat(d.kind()).as(where).isEqualTo(o.decision());
                assertThat(d.applied()).as(where).isEqualTo(o.applied());
                assertThat(d.contracts()).as(where).containsExactly(o.contracts());
                assertThat(online.snapshot(s).states).as(where).isEqualTo(offline.states());
                assertThat(w.statesAfter(d)).as(where).isEqualTo(offline.states());
                assertThat(online.verdicts(s)).as(where).containsExactly(o.verdicts());
                if (excused != null) excusing++;
                if (d.refused()) refusals++;
                last = d;
            }
            assertThat(online.end(s).verdicts()).as("seed " + seed).isEqualTo(offline.end().verdicts());
        }
        assertThat(wideWords).isGreaterThan(10);
        assertThat(excusing).isGreaterThan(200);
        assertThat(refusals).isGreaterThan(50);
    }

    /**
     * Trial finding C11: {@code G(call(refund) -> count(refund) <= 2)} escalates the third refund; the
     * approver lets it through; the fourth is escalated again (a forced step had left the contract
     * FAIL, so that every later refund went through unasked). The counter counts the excused refund.
     */
    @Test
    void anApprovedThirdRefundDoesNotLetTheFourthThrough() {
        ContractSet set = ContractSet.compile(List.of(
                new Contract("refund-limit", Formula.Const.TRUE, Parser.parse("G(call(refund) -> count(refund) <= 2)"), "escalate", ""),
                new Contract("no-refund-after-close", Formula.Const.TRUE, Parser.parse("G(close -> G !call(refund))"), "block", "")),
                COMPILER);
        RefundGrounder grounder = new RefundGrounder(set);
        SessionMonitor<String> m = new SessionMonitor<>(set, grounder);
        Replay<String> replay = new Replay<>(set, new RefundGrounder(set), true, "s");
        Worker w = m.newWorker();
        Session s = m.session("s");
        int limit = set.indexOf("refund-limit");
        assertThat(step(m, replay, s, w, "refund", null).kind()).isEqualTo(Decision.Kind.PASS);
        assertThat(step(m, replay, s, w, "refund", null).kind()).isEqualTo(Decision.Kind.PASS);
        Decision third = step(m, replay, s, w, "refund", null);
        assertThat(third.kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(third.contracts()).containsExactly(limit);
        Decision approved = step(m, replay, s, w, "refund", third.contracts());
        assertThat(approved).isSameAs(Decision.PASS);
        assertThat(m.verdicts(s)).containsExactly(Verdict.ACTIVE, Verdict.ACTIVE);
        assertThat(m.snapshot(s).words[0]).as("refunds counted").isEqualTo(3);
        Decision fourth = step(m, replay, s, w, "refund", null);
        assertThat(fourth.kind()).as("the fourth refund is escalated again").isEqualTo(Decision.Kind.BLOCK);
        assertThat(fourth.contracts()).containsExactly(limit);
        assertThat(step(m, replay, s, w, "refund", fourth.contracts())).isSameAs(Decision.PASS);
        assertThat(m.snapshot(s).words[0]).isEqualTo(4);

        // An approval covers the approved contracts only: after a close, a refund breaks the other
        // contract too, and excusing the limit alone still refuses it (nothing applied).
        assertThat(step(m, replay, s, w, "close", null).kind()).isEqualTo(Decision.Kind.PASS);
        Decision afterClose = step(m, replay, s, w, "refund", new int[] {limit});
        assertThat(afterClose.kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(afterClose.applied()).isFalse();
        assertThat(afterClose.contracts()).containsExactly(set.indexOf("no-refund-after-close"));
        assertThat(m.snapshot(s).words[0]).isEqualTo(4);
        // In shadow mode the same step is applied, and only the contract not excused fails.
        Decision shadow = m.stepExcusing(s, "refund", true, new int[] {limit}, false, w);
        assertThat(shadow.applied()).isTrue();
        assertThat(m.verdicts(s)).containsExactly(Verdict.ACTIVE, Verdict.FAIL);
    }

    /**
     * Two contracts with the same guarantee (different ids, e.g. from two libraries): approving the
     * call for one does not approve it for the other, which still refuses it.
     */
    @Test
    void anApprovalForOneContractDoesNotCoverAnotherWithTheSameFormula() {
        ContractSet set = ContractSet.compile(List.of(
                new Contract("limit-a", Formula.Const.TRUE, Parser.parse("G(call(refund) -> count(refund) <= 2)"), "escalate", ""),
                new Contract("limit-b", Formula.Const.TRUE, Parser.parse("G(call(refund) -> count(refund) <= 2)"), "block", "")),
                COMPILER);
        SessionMonitor<String> m = new SessionMonitor<>(set, new RefundGrounder(set));
        Replay<String> replay = new Replay<>(set, new RefundGrounder(set), true, "s");
        Worker w = m.newWorker();
        Session s = m.session("s");
        step(m, replay, s, w, "refund", null);
        step(m, replay, s, w, "refund", null);
        Decision third = step(m, replay, s, w, "refund", null);
        assertThat(third.contracts()).containsExactly(0, 1);
        Decision onlyA = step(m, replay, s, w, "refund", new int[] {0});
        assertThat(onlyA.kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(onlyA.contracts()).containsExactly(1);
        assertThat(onlyA.applied()).isFalse();
        assertThat(step(m, replay, s, w, "refund", new int[] {0, 1})).isSameAs(Decision.PASS);
        assertThat(m.verdicts(s)).containsExactly(Verdict.ACTIVE, Verdict.ACTIVE);
        // In shadow mode, excusing A alone applies the refund: A stays ACTIVE, B fails.
        m.stepExcusing(s, "refund", true, new int[] {0}, false, w);
        assertThat(m.verdicts(s)).containsExactly(Verdict.ACTIVE, Verdict.FAIL);
    }

    @Test
    void anUndoTakesBackAnExcusingStep() {
        ContractSet set = ContractSet.compile(List.of(
                new Contract("refund-limit", Formula.Const.TRUE, Parser.parse("G(call(refund) -> count(refund) <= 2)"), "escalate", "")),
                COMPILER);
        SessionMonitor<String> m = new SessionMonitor<>(set, new RefundGrounder(set));
        Worker w = m.newWorker();
        Session s = m.session("s");
        m.step(s, "refund", true, true, w);
        m.step(s, "refund", true, true, w);
        assertThat(m.stepExcusing(s, "refund", true, new int[] {0}, true, w)).isSameAs(Decision.PASS);
        assertThat(m.undo(s, w)).isTrue();
        assertThat(m.snapshot(s).words[0]).isEqualTo(2);
        assertThat(m.step(s, "refund", true, true, w).kind()).isEqualTo(Decision.Kind.BLOCK);
    }

    @Test
    void anIndexThatNamesNoContractIsAClearError() {
        ContractSet set = ContractSet.compile(List.of(
                new Contract("refund-limit", Formula.Const.TRUE, Parser.parse("G(call(refund) -> count(refund) <= 2)"), "escalate", "")),
                COMPILER);
        SessionMonitor<String> m = new SessionMonitor<>(set, new RefundGrounder(set));
        Session s = m.session("s");
        assertThatThrownBy(() -> m.stepExcusing(s, "refund", true, new int[] {1}, true, m.newWorker()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("excused contract index 1 is out of range: the contract set has 1 contracts"
                        + " (pass indices from Decision.contracts() or ContractSet.indexOf)");
        assertThat(s.applied()).isZero();
        assertThatThrownBy(() -> new Replay<>(set, new RefundGrounder(set), true, "s").next("refund", true, true, new int[] {-1}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("index -1 is out of range");
    }

    private static Decision step(SessionMonitor<String> m, Replay<String> replay, Session s, Worker w, String event, int[] excused) {
        Decision d = excused == null ? m.step(s, event, true, true, w) : m.stepExcusing(s, event, true, excused, true, w);
        Replay.Step o = excused == null ? replay.next(event, true, true) : replay.next(event, true, true, excused);
        assertThat(o.decision()).as("offline replay of %s", event).isEqualTo(d.kind());
        assertThat(o.verdicts()).as("offline replay of %s", event).containsExactly(m.verdicts(s));
        return d;
    }

    /** Events are tool names; word 0 counts applied refunds, and {@code count(refund) <= 2} includes the refund being judged. */
    private static final class RefundGrounder implements Grounder<String> {
        private final int refund;
        private final int withinLimit;
        private final int close;

        RefundGrounder(ContractSet set) {
            refund = atom(set, "call(refund)");
            withinLimit = atom(set, "count(refund) <= 2");
            close = atom(set, "close");
        }

        private static int atom(ContractSet set, String key) {
            for (int g = 0; g < set.atoms().size(); g++) if (set.atoms().get(g).key().equals(key)) return g;
            return -1;
        }

        @Override public int words() { return 1; }

        @Override public int refs() { return 0; }

        @Override public int ground(String event, SessionState state, long[] valuation, long[] unevaluable) {
            boolean isRefund = event.equals("refund");
            long count = state.words[0] + (isRefund ? 1 : 0);
            if (isRefund) valuation[0] |= 1L << refund;
            if (count <= 2) valuation[0] |= 1L << withinLimit;
            if (close >= 0 && event.equals("close")) valuation[0] |= 1L << close;
            return 0;
        }

        @Override public void apply(String event, long[] valuation, SessionState state) {
            if (event.equals("refund")) state.words[0]++;
        }
    }
}
