package dev.tracegate.engine.monitor;

import java.util.Arrays;

/**
 * The whole state of one session at one prefix: one automaton state per distinct formula of the
 * contract set, plus counters and context that the grounding layer keeps ({@code words} for numbers,
 * {@code refs} for immutable values such as persistent sets of erased subjects).
 *
 * <p>An instance is either published (the current state of a session: never written again until
 * it is displaced) or private to one thread (a scratch copy being stepped). Grounders read a private
 * copy and, in {@link Grounder#apply}, write it; they never see a published instance. Objects put in
 * {@code refs} must be immutable: copies share them.
 */
public final class SessionState {
    /**
     * Automaton state per formula, indexed like {@link ContractSet#formulas()}. Filled in the copies
     * that {@link SessionMonitor#snapshot} returns and in {@link Replay}'s state; empty in the
     * monitor's own published and scratch states, which hold the automaton states packed instead, so
     * grounders must not read this field (they read and write {@link #words} and {@link #refs} only).
     */
    public final int[] states;
    /** The automaton states packed as the monitor steps them (see {@code FlatTransitions}); may be empty. */
    final long[] packed;
    /** Numeric counters owned by the grounder (counts, running sums, lengths...). */
    public final long[] words;
    /** Immutable values owned by the grounder (context, sets of values). */
    public final Object[] refs;
    private static final int[] NO_STATES = new int[0];
    /**
     * Events applied to the session up to this state. It travels with the state, so that an undo, which publishes the
     * state from before the step, takes the count back in the same CAS (see {@link Session#applied()}).
     */
    long applied;
    /** Position in the state arena; the session's head word names it. */
    final int slot;

    SessionState(int formulas, int words, int refs, int slot) {
        this(formulas, 0, words, refs, slot);
    }

    SessionState(int formulas, int packedWords, int words, int refs, int slot) {
        this.states = formulas == 0 ? NO_STATES : new int[formulas];
        this.packed = new long[packedWords];
        this.words = new long[words];
        this.refs = new Object[refs];
        this.slot = slot;
    }

    /** Copies {@code from} into this instance (same shape, except that either may have no {@link #states}: they are not copied then). */
    void copyFrom(SessionState from) {
        if (states.length == from.states.length) System.arraycopy(from.states, 0, states, 0, states.length);
        if (packed.length != 0) System.arraycopy(from.packed, 0, packed, 0, packed.length);
        if (words.length != 0) System.arraycopy(from.words, 0, words, 0, words.length);
        if (refs.length != 0) System.arraycopy(from.refs, 0, refs, 0, refs.length);
        applied = from.applied;
    }

    @Override public String toString() {
        return "SessionState{states=" + Arrays.toString(states) + ", words=" + Arrays.toString(words)
                + ", refs=" + Arrays.toString(refs) + "}";
    }
}
