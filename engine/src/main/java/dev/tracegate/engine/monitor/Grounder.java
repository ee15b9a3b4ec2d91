package dev.tracegate.engine.monitor;

import java.io.DataInput;
import java.io.DataOutput;
import java.io.IOException;

/**
 * Turns an event into the truth values of a contract set's atoms, given the session's state, and
 * updates the state's counters and context when the event is applied. Implemented by the grounding
 * layer; the engine knows nothing of what an event is.
 *
 * <p>Both methods are called on a thread-private copy of the state and may be called several times
 * for one event (a step retries when another thread moved the session first), so they must not
 * have side effects outside the state they are given. Implementations are shared by all threads.
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
     * of word {@code g >>> 6} for global atom {@code g}; the array is zeroed on entry), and sets the
     * same bit in {@code unevaluable} for each atom that could not be evaluated (a missing or
     * non-numeric argument; its valuation bit stays 0; zeroed on entry too).
     *
     * @return the number of unevaluable atoms
     */
    int ground(E event, SessionState state, long[] valuation, long[] unevaluable);

    /** Applies the event's effect on counters and context; called only when the event is accepted. */
    void apply(E event, long[] valuation, SessionState state);

    /** Writes {@code state.refs} in a compact byte form (for sharing sessions between replicas). */
    default void writeRefs(Object[] refs, DataOutput out) throws IOException {
        for (Object r : refs) {
            if (r != null) throw new UnsupportedOperationException(getClass().getName() + " cannot serialise its context");
        }
    }

    /**
     * Converts the counters of a session's byte form of an older {@code version} (below
     * {@link SessionMonitor#BYTES_VERSION}) in place into what this grounder keeps in {@link SessionState#words} now;
     * throws when they cannot be converted (say why and what to do). Nothing by default: words whose meaning never changed.
     */
    default void readWords(int version, long[] words) throws IOException {}

    /** Reads what {@link #writeRefs} wrote into {@code refs}. */
    default void readRefs(DataInput in, Object[] refs) throws IOException {}
}
