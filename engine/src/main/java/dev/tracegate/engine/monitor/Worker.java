package dev.tracegate.engine.monitor;

/**
 * Per-thread scratch space for stepping sessions: a spare state, the valuation and the automaton
 * states before and after the last event. One worker must only be used by one thread at a time
 * (keep one per thread, e.g. in a ThreadLocal); after a step the same thread may read what the step
 * saw ({@link #valuation()}).
 */
public final class Worker {
    SessionState spare;
    final long[] valuation;
    final long[] unevaluable;
    final long[] probe;
    /** Packed letters and states of the current step (length: packed words). */
    final long[] fields;
    /** Packed automaton states before and after the last event. */
    final long[] packedBefore;
    final long[] packedNext;
    private final FlatTransitions layout;
    private final int[] next;
    private final int[] before;
    int unevaluableCount;
    /** The session and head this worker's last applied step published (for {@link SessionMonitor#undo}); lastHead CLOSED: none (lastSession may then be stale). */
    Session lastSession;
    long lastHead = Session.CLOSED;

    Worker(SessionState spare, int valuationWords, int formulas, FlatTransitions layout) {
        this.spare = spare;
        this.valuation = new long[valuationWords];
        this.unevaluable = new long[valuationWords];
        this.probe = new long[valuationWords];
        this.layout = layout;
        this.fields = new long[layout.packedWords];
        this.packedBefore = new long[layout.packedWords];
        this.packedNext = new long[layout.packedWords];
        this.next = new int[formulas];
        this.before = new int[formulas];
    }

    /** The atoms that held in the last event this worker stepped (bit g of word g >>> 6). Do not modify. */
    public long[] valuation() { return valuation; }

    /** The atoms that could not be evaluated in the last event this worker stepped. Do not modify. */
    public long[] unevaluable() { return unevaluable; }

    /** How many atoms could not be evaluated in the last event. */
    public int unevaluableCount() { return unevaluableCount; }

    /** The automaton states after the last event, whether or not it was applied. Do not modify. */
    public int[] nextStates() {
        layout.unpack(packedNext, next);
        return next;
    }

    /** The automaton states the last event was judged on (the prefix before it). Do not modify. */
    public int[] statesBefore() {
        layout.unpack(packedBefore, before);
        return before;
    }

    /**
     * The automaton states of the session right after the last step, packed (the monitor's layout; equal arrays mean
     * equal states, for one contract set): the states after the event if it was applied, else before it. Do not modify.
     */
    public long[] packedAfter(Decision d) { return d == Decision.PASS || d.applied() ? packedNext : packedBefore; }

    /** The automaton states of the session right after the last step: {@link #nextStates()} if it was applied, else {@link #statesBefore()}. */
    public int[] statesAfter(Decision d) { return d == Decision.PASS || d.applied() ? nextStates() : statesBefore(); }
}
