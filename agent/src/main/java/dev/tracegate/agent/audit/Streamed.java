package dev.tracegate.agent.audit;

/**
 * What a streamed answer's reader saw, as written in an {@code assistant} record's {@code streamed} field: its text had
 * reached the application chunk by chunk before the complete answer was checked, so the record's {@code decision} says
 * what the contracts decided, and this says what that decision could still do (absent on any other record).
 */
public enum Streamed {
    /** The text was shown as it came, and nothing followed ({@code pass}, {@code shadow-would-block}). */
    SHOWN("shown"),
    /** The text was shown, then the notice followed ({@code block} under {@code block.style: substitute}). */
    SHOWN_THEN_NOTICE("shown-then-notice"),
    /** The text was shown, then its masked copy followed ({@code redact}). */
    SHOWN_THEN_MASKED("shown-then-masked"),
    /** The text was shown, then the stream ended with the violation as its error ({@code block} under {@code block.style: exception}). */
    SHOWN_THEN_ERROR("shown-then-error");

    private final String wire;

    Streamed(String wire) { this.wire = wire; }

    /** The value written in the log. */
    public String wire() { return wire; }

    /** The value whose wire form is {@code s}, or null (a value a later version may write). */
    public static Streamed ofWire(String s) {
        for (Streamed v : values()) if (v.wire.equals(s)) return v;
        return null;
    }

    /** What a reader of a replay report is told: where the record's decision left the user. */
    public String says() {
        switch (this) {
            case SHOWN: return "streamed: the text was shown as it came";
            case SHOWN_THEN_NOTICE: return "streamed: the text was shown before the check, then a notice followed";
            case SHOWN_THEN_MASKED: return "streamed: the text was shown before the check, then a masked copy followed";
            default: return "streamed: the text was shown before the check, then the stream ended with the violation";
        }
    }
}
