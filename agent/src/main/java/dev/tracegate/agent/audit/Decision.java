package dev.tracegate.agent.audit;

/** What the supervisor did with one event, as written in the audit log's {@code decision} field. */
public enum Decision {
    /** The event took effect unchanged. */
    PASS("pass"),
    /**
     * The event did not take effect (the tool did not run, the text was not shown); a streamed answer's text had been
     * shown before its check, which its record's {@code streamed} says ({@link Streamed}).
     */
    BLOCK("block"),
    /** A named safe tool ran instead of the requested one. */
    REDIRECT("redirect"),
    /** An approver was asked; the record's message says what it answered. */
    ESCALATE("escalate"),
    /** The event took effect with some fields removed. */
    REDACT("redact"),
    /** An environment event (tool result, user input) was withheld from the model. */
    SUPPRESS("suppress"),
    /** Shadow mode: the event took effect, but enforcement would have blocked it. */
    SHADOW_WOULD_BLOCK("shadow-would-block"),
    /** The session ended; the record carries the final verdicts and unmet obligations. */
    END("end");

    private final String wire;

    Decision(String wire) { this.wire = wire; }

    /** The value written in the log. */
    public String wire() { return wire; }

    /** The decision whose wire value is {@code s}, or null. */
    public static Decision ofWire(String s) {
        for (Decision d : values()) if (d.wire.equals(s)) return d;
        return null;
    }
}
