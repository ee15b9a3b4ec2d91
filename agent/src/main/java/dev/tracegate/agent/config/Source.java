package dev.tracegate.agent.config;

import java.util.Locale;

/** Where one configuration value came from, and how to write a key there (for "did you mean" and examples). */
final class Source {
    enum Kind { DEFAULT, FILE, ENVIRONMENT, PROPERTY, ARGUMENT }

    static final Source DEFAULT = new Source(Kind.DEFAULT, "default");

    final Kind kind;
    final String text;

    private Source(Kind kind, String text) {
        this.kind = kind;
        this.text = text;
    }

    static Source file(String file, int line, int column) { return new Source(Kind.FILE, file + ":" + line + ":" + column); }

    static Source environment(String key) { return new Source(Kind.ENVIRONMENT, envName(key)); }

    static Source environmentVariable(String name) { return new Source(Kind.ENVIRONMENT, name); }

    static Source property(String key) { return new Source(Kind.PROPERTY, "-D" + AgentConfig.PROPERTY_PREFIX + key); }

    static Source argument(String key) { return new Source(Kind.ARGUMENT, "agent argument " + key); }

    /** The environment variable of a key: TRACEGATE_ + upper case, '.' and '-' as '_'. */
    static String envName(String key) {
        return "TRACEGATE_" + key.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    /** How {@code key} is named in this kind of source. */
    String spell(String key) {
        switch (kind) {
            case ENVIRONMENT: return envName(key);
            case PROPERTY: return "-D" + AgentConfig.PROPERTY_PREFIX + key;
            default: return key;
        }
    }

    /** How to set {@code key} to {@code value} in this kind of source. */
    String example(String key, String value) {
        switch (kind) {
            case ENVIRONMENT: return envName(key) + "=" + value;
            case PROPERTY: return "-D" + AgentConfig.PROPERTY_PREFIX + key + "=" + value;
            case ARGUMENT: return key + "=" + value.replace(", ", ";");
            default: return key + ": " + value;
        }
    }

    @Override public String toString() { return text; }
}
