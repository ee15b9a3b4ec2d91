package dev.tracegate.engine.automaton;

/** A formula whose automaton would need more states than the configured bound allows. */
public final class StateLimitException extends CompileException {
    private final String formula;
    private final int bound;
    private final boolean statesExceeded;

    StateLimitException(String formula, int bound, boolean statesExceeded, String message) {
        super(message);
        this.formula = formula;
        this.bound = bound;
        this.statesExceeded = statesExceeded;
    }

    /**
     * True when the automaton had more states than the bound; false when the work of building it (its intermediate
     * normal forms) outgrew what the bound allows, whatever its states.
     */
    public boolean statesExceeded() { return statesExceeded; }

    /** The formula, printed in concrete syntax (untruncated). */
    public String formula() { return formula; }

    /** The state bound that was exceeded. */
    public int bound() { return bound; }
}
