package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.Dfa;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Offline replay of one recorded session, single-threaded and written plainly (no arena, no CAS),
 * with the same semantics as {@link SessionMonitor#step}: the verdict at every prefix, the decision
 * for every event, refused events not applied (unless {@code enforce} is false). Tests hold the
 * online monitor to this.
 *
 * @param <E> the event type understood by the {@link Grounder}
 */
public final class Replay<E> {
    private final ContractSet set;
    private final Grounder<E> grounder;
    private final boolean refuseUnevaluable;
    private final List<Dfa> dfas;
    private final SessionState state;
    private final long[] valuation;
    private final long[] unevaluable;
    private final String sessionId;
    private long events;
    private static final int[] NONE = new int[0];

    /** One replayed event: what was decided and each contract's verdict after it. */
    public record Step(long index, Decision.Kind decision, boolean applied, int[] contracts, Verdict[] verdicts,
                       long[] valuation) {}

    public Replay(ContractSet set, Grounder<E> grounder, boolean refuseUnevaluable, String sessionId) {
        this.set = set;
        this.grounder = grounder;
        this.refuseUnevaluable = refuseUnevaluable;
        this.dfas = set.formulas();
        this.sessionId = sessionId;
        this.state = new SessionState(dfas.size(), grounder.words(), grounder.refs(), -1);
        for (int f = 0; f < dfas.size(); f++) state.states[f] = dfas.get(f).initialState();
        grounder.init(state);
        this.valuation = new long[set.valuationWords()];
        this.unevaluable = new long[set.valuationWords()];
    }

    /** Verdicts at the current prefix. */
    public Verdict[] verdicts() { return verdictsOf(state.states); }

    /** The current automaton states (a copy). */
    public int[] states() { return state.states.clone(); }

    /** Replays one event. */
    public Step next(E event, boolean agent, boolean enforce) {
        return next(event, agent, enforce, NONE);
    }

    /**
     * Replays one event that an approver excused for the contracts {@code excused}, with the
     * semantics of {@link SessionMonitor#stepExcusing}: applied as usual, except that the excused
     * contracts' assumption and guarantee automata keep their states (they read the trace without
     * this event); refused like any event if it freshly violates a contract that is not excused.
     *
     * @throws IllegalArgumentException when an index names no contract of the set
     */
    public Step next(E event, boolean agent, boolean enforce, int[] excused) {
        boolean[] kept = new boolean[dfas.size()];
        for (int c : excused) {
            if (c < 0 || c >= set.contracts().size()) {
                throw new IllegalArgumentException("excused contract index " + c + " is out of range: the contract set has "
                        + set.contracts().size() + " contracts");
            }
            kept[set.assumeOf(c)] = true;
            kept[set.guaranteeOf(c)] = true;
        }
        Arrays.fill(valuation, 0L);
        Arrays.fill(unevaluable, 0L);
        int u = grounder.ground(event, state, valuation, unevaluable);
        int[] after = successors(state.states, valuation, kept);
        Verdict[] v0 = verdictsOf(state.states);
        Verdict[] v1 = verdictsOf(after);
        List<Integer> newFail = new ArrayList<>();
        List<Integer> newIdle = new ArrayList<>();
        for (int c = 0; c < v0.length; c++) {
            if (v1[c] == Verdict.FAIL && v0[c] != Verdict.FAIL) newFail.add(c);
            if (v1[c] == Verdict.IDLE && v0[c] != Verdict.IDLE) newIdle.add(c);
        }
        Decision.Kind kind;
        List<Integer> blamed;
        if (agent && !newFail.isEmpty()) {
            kind = Decision.Kind.BLOCK;
            blamed = newFail;
            // the unevaluable atoms were read as false; a contract that another value of them fails refuses the call too
            if (u > 0 && refuseUnevaluable) {
                blamed = new ArrayList<>(newFail);
                for (int c : unevaluableFailures(kept)) if (!blamed.contains(c)) blamed.add(c);
                blamed.sort(null);
            }
        } else if (!agent && !newIdle.isEmpty()) {
            kind = Decision.Kind.SUPPRESS;
            blamed = newIdle;
        } else if (!agent && !newFail.isEmpty()) {
            kind = Decision.Kind.VIOLATION;
            blamed = newFail;
        } else if (agent && u > 0 && refuseUnevaluable) {
            blamed = unevaluableFailures(kept);
            kind = blamed.isEmpty() ? Decision.Kind.PASS : Decision.Kind.UNEVALUABLE;
        } else {
            kind = Decision.Kind.PASS;
            blamed = List.of();
        }
        boolean refused = kind == Decision.Kind.BLOCK || kind == Decision.Kind.SUPPRESS || kind == Decision.Kind.UNEVALUABLE;
        boolean applied = !refused || !enforce;
        long[] seen = valuation.clone();
        if (applied) {
            System.arraycopy(after, 0, state.states, 0, after.length);
            grounder.apply(event, valuation, state);
        }
        return new Step(events++, kind, applied, blamed.stream().mapToInt(Integer::intValue).toArray(),
                verdictsOf(state.states), seen);
    }

    /** The end-of-session reading of the current prefix. */
    public EndReport end() {
        List<Verdict> verdicts = new ArrayList<>();
        List<EndReport.Obligation> unmet = new ArrayList<>();
        for (int c = 0; c < set.contracts().size(); c++) {
            Verdict v = set.endVerdict(c, state.states);
            verdicts.add(v);
            int g = set.guaranteeOf(c);
            if (v == Verdict.FAIL && set.verdict(c, state.states) != Verdict.FAIL) {
                unmet.add(new EndReport.Obligation(c, set.contracts().get(c).id(), dfas.get(g).pending(state.states[g])));
            }
        }
        return new EndReport(sessionId, verdicts, unmet, events);
    }

    /** The states after the letter {@code val}; the automata {@code kept} stay where they are. */
    private int[] successors(int[] states, long[] val, boolean[] kept) {
        int[] after = new int[states.length];
        for (int f = 0; f < states.length; f++) after[f] = kept[f] ? states[f] : dfas.get(f).step(states[f], val, set.atomIndex(f));
        return after;
    }

    private List<Integer> unevaluableFailures(boolean[] kept) {
        List<Integer> bits = new ArrayList<>();
        for (int g = 0; g < set.atoms().size(); g++) if ((unevaluable[g >>> 6] >>> g & 1) != 0) bits.add(g);
        List<Integer> out = new ArrayList<>();
        if (bits.size() > 12) {
            for (int c = 0; c < set.contracts().size(); c++) {
                if (!(kept[set.assumeOf(c)] && kept[set.guaranteeOf(c)])) out.add(c);
            }
            return out;
        }
        Verdict[] before = verdictsOf(state.states);
        boolean[] failing = new boolean[before.length];
        for (long mask = 1; mask < (1L << bits.size()); mask++) {
            long[] probe = valuation.clone();
            for (int b = 0; b < bits.size(); b++) {
                if ((mask >>> b & 1) != 0) probe[bits.get(b) >>> 6] |= 1L << bits.get(b);
            }
            Verdict[] after = verdictsOf(successors(state.states, probe, kept));
            for (int c = 0; c < after.length; c++) {
                if (after[c] == Verdict.FAIL && before[c] != Verdict.FAIL) failing[c] = true;
            }
        }
        for (int c = 0; c < failing.length; c++) if (failing[c]) out.add(c);
        return out;
    }

    private Verdict[] verdictsOf(int[] states) {
        Verdict[] v = new Verdict[set.contracts().size()];
        for (int c = 0; c < v.length; c++) v[c] = set.verdict(c, states);
        return v;
    }
}
