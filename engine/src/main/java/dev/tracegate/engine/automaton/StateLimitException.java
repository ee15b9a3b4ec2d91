package dev.tracegate.engine.automaton;

/** A formula whose automaton would need more states than the configured bound allows. */
public final class StateLimitException extends CompileException {
    private final String formula;
    private final int bound;

    StateLimitException(String formula, int bound, String message) {
        super(message);
        this.formula = formula;
        this.bound = bound;
    }

    /** The formula, printed in concrete syntax (untruncated). */
    public String formula() { return formula; }

    /** The state bound that was exceeded. */
    public int bound() { return bound; }
}
