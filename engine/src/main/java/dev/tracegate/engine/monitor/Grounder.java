package dev.tracegate.engine.monitor;

/**
 * Turns an event into the truth values of a contract set's atoms, given the session's state, and
 * updates the state's counters and context when the event is applied. Implemented by the grounding
 * layer; the engine knows nothing of what an event is.
 *
 * <p>Both methods are called on a thread-private copy of the state and may be called several times
 * for one event (a step retries when another thread moved the session first), so they must not
 * have side effects outside the state they are given.
 *
 * @param <E> the event type
 */
public interface Grounder<E> {

    /** Number of {@link SessionState#words} this grounder keeps per session. */
    int words();

    /** Number of {@link SessionState#refs} this grounder keeps per session. */
    int refs();

    /** Initialises the counters and context of a new session (arrays are zeroed / null on entry). */
    default void init(SessionState state) {}

    /**
     * Writes the truth value of every atom of the contract set into {@code valuation} (bit {@code g}
     * of word {@code g >>> 6} for global atom {@code g}; the array is zeroed on entry).
     *
     * @return the number of atoms that could not be evaluated (a missing or non-numeric argument);
     *         their bits are left 0
     */
    int ground(E event, SessionState state, long[] valuation);

    /** Applies the event's effect on counters and context; called only when the event is accepted. */
    void apply(E event, long[] valuation, SessionState state);
}
