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
    private String unsupervisedHint;

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

    /**
     * How to start the application unsupervised despite this error, as advice after "fix the configuration, or":
     * {@code set fail: open ...}, unless the configuration file cannot be read, where a {@code fail:} key would not be
     * either; then the places that are read.
     */
    public String unsupervisedHint() {
        return unsupervisedHint != null ? unsupervisedHint : DEFAULT_UNSUPERVISED_HINT;
    }

    /** The advice when a {@code fail: open} anywhere, the file included, would be read. */
    public static final String DEFAULT_UNSUPERVISED_HINT = "set fail: open to run the application unsupervised";

    ConfigException withFailPolicy(FailPolicy p, String hint) {
        this.failPolicy = p;
        this.unsupervisedHint = hint;
        return this;
    }
}
