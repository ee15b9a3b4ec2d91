package dev.tracegate.agent.config;

/**
 * A configuration the agent cannot start with: the message is one paragraph naming where the value
 * came from (file:line:col, {@code -Dtracegate.x}, {@code TRACEGATE_X} or the agent argument), what is
 * wrong and how to fix it.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String source;
    private final String key;
    private FailPolicy failPolicy = FailPolicy.CLOSED;

    ConfigException(String source, String key, String message) {
        super(source + ": " + message);
        this.source = source;
        this.key = key;
    }

    /** Where the bad value came from. */
    public String source() { return source; }

    /** The configuration key concerned (as in CONFIG.md), or null when the problem is not about one key. */
    public String key() { return key; }

    /**
     * The {@code fail} policy the sources ask for, read as well as the error allows (closed when it
     * cannot be told): with {@code open}, the agent may start the application unsupervised, loudly.
     */
    public FailPolicy failPolicy() { return failPolicy; }

    ConfigException withFailPolicy(FailPolicy p) {
        this.failPolicy = p;
        return this;
    }
}
