package dev.tracegate.matchers.event;

/** What happened at one step of an agent session. */
public enum EventKind {
    /** A user message reaches the agent. */
    USER,
    /** The model produced output. */
    ASSISTANT,
    /** The agent asks for a tool, before it runs. */
    CALL,
    /** A tool's result, before the model sees it. */
    RETURN,
    /** A data subject grants or withdraws consent for purposes. */
    CONSENT,
    /** A data subject asks for erasure. */
    ERASURE,
    /** The session ended. */
    END;

    private static final EventKind[] VALUES = values();

    /** True for the kinds the agent controls (CALL, ASSISTANT); the others come from its environment. */
    public boolean controlledByAgent() { return this == CALL || this == ASSISTANT; }

    /** Parses a kind name case-insensitively ({@code call}, {@code RETURN}); null when unknown. */
    public static EventKind parse(String name) {
        if (name == null) return null;
        String n = name.trim();
        for (EventKind k : VALUES) if (k.name().equalsIgnoreCase(n)) return k;
        return null;
    }
}
