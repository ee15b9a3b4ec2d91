package dev.tracegate.agent.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** One key of the agent's configuration: its name, type, default and an example (CONFIG.md documents each). */
final class ConfigKey {
    enum Type { TEXT, PATH, SWITCH, COUNT, DURATION, CHOICE, LIST, MAPPING, METHODS, SWITCH_OR_DURATION }

    final String name;
    final Type type;
    final String defaultText;   // as a user would write it; null: unset
    final String example;
    final long min;
    final long max;
    final Enum<?>[] choices;
    final boolean secret;

    private ConfigKey(String name, Type type, String defaultText, String example, long min, long max, Enum<?>[] choices, boolean secret) {
        this.name = name;
        this.type = type;
        this.defaultText = defaultText;
        this.example = example;
        this.min = min;
        this.max = max;
        this.choices = choices;
        this.secret = secret;
    }

    /** The value a user writes for an enum constant: lower case, '-' for '_'. */
    static String wire(Enum<?> e) { return e.name().toLowerCase(Locale.ROOT).replace('_', '-'); }

    /** What a value of this key must be, for messages. */
    String what() {
        switch (type) {
            case SWITCH: return "true or false";
            case COUNT: return "a whole number from " + min + " to " + max;
            case DURATION: return DurationText.HELP + ", from " + DurationText.format(java.time.Duration.ofNanos(min))
                    + " to " + DurationText.format(java.time.Duration.ofNanos(max));
            case CHOICE: {
                List<String> names = new ArrayList<>();
                for (Enum<?> c : choices) names.add(wire(c));
                return "one of " + String.join(", ", names);
            }
            case PATH: return "a file path";
            case LIST: return "a list (a YAML sequence, or values separated by commas)";
            case MAPPING: return "a mapping from tool names to tool names (a YAML mapping, or from:to pairs separated by commas)";
            case METHODS: return "a list of method mappings in the configuration file";
            case SWITCH_OR_DURATION: return "true, false, or a poll interval such as 2s, from " + DurationText.format(java.time.Duration.ofNanos(min))
                    + " to " + DurationText.format(java.time.Duration.ofNanos(max));
            default: return "a text value";
        }
    }

    static final List<String> INSTRUMENTATIONS = List.of("langchain4j", "springai", "mcp-server", "mcp-client", "configured");

    static final Map<String, ConfigKey> ALL;

    static {
        Map<String, ConfigKey> m = new LinkedHashMap<>();
        long sec = 1_000_000_000L;
        add(m, new ConfigKey("libraries", Type.LIST, "", "gdpr, injection, /etc/tracegate/refunds.yaml", 0, 0, null, false));
        add(m, new ConfigKey("mode", Type.CHOICE, "enforce", "shadow", 0, 0, Mode.values(), false));
        add(m, new ConfigKey("fail", Type.CHOICE, "closed", "open", 0, 0, FailPolicy.values(), false));
        add(m, new ConfigKey("block.style", Type.CHOICE, "substitute", "exception", 0, 0, BlockStyle.values(), false));
        add(m, new ConfigKey("audit.path", Type.PATH, "tracegate-audit.jsonl", "/var/log/tracegate/audit.jsonl", 0, 0, null, false));
        add(m, new ConfigKey("audit.personal-data", Type.CHOICE, "hashed", "clear", 0, 0, PersonalData.values(), false));
        add(m, new ConfigKey("audit.hmac-key", Type.TEXT, null, "a-long-random-secret", 0, 0, null, true));
        add(m, new ConfigKey("audit.queue-size", Type.COUNT, "65536", "65536", 2, 1 << 24, null, false));
        add(m, new ConfigKey("audit.on-full", Type.CHOICE, "block", "drop", 0, 0, OnFull.values(), false));
        add(m, new ConfigKey("audit.max-block", Type.DURATION, "5s", "5s", 1_000_000L, 3600 * sec, null, false));
        add(m, new ConfigKey("audit.max-delay", Type.DURATION, "100ms", "20ms", 1_000_000L, sec, null, false));
        add(m, new ConfigKey("audit.trace-ids", Type.SWITCH, "true", "false", 0, 0, null, false));
        add(m, new ConfigKey("register.path", Type.PATH, null, "/var/lib/tracegate/gdpr-register.jsonl", 0, 0, null, false));
        add(m, new ConfigKey("sessions.max", Type.COUNT, "100000", "100000", 1, Integer.MAX_VALUE, null, false));
        add(m, new ConfigKey("sessions.idle-timeout", Type.DURATION, "30m", "30m", sec, 365 * 86400 * sec, null, false));
        add(m, new ConfigKey("sessions.in-flight-timeout", Type.DURATION, "24h", "24h", sec, 365 * 86400 * sec, null, false));
        add(m, new ConfigKey("engine.max-states", Type.COUNT, "10000", "10000", 2, 1 << 24, null, false));
        add(m, new ConfigKey("escalate.approver", Type.TEXT, null, "com.acme.ops.RefundApprover", 0, 0, null, false));
        add(m, new ConfigKey("escalate.timeout", Type.DURATION, "30s", "30s", 1_000_000L, 7 * 86400 * sec, null, false));
        add(m, new ConfigKey("escalate.max-stuck", Type.COUNT, "8", "8", 1, 10_000, null, false));
        add(m, new ConfigKey("redirect", Type.MAPPING, "", "delete_account: archive_account", 0, 0, null, false));
        for (String i : INSTRUMENTATIONS) {
            add(m, new ConfigKey("instrumentations." + i + ".enabled", Type.SWITCH, "true", "false", 0, 0, null, false));
        }
        add(m, new ConfigKey("configured-methods", Type.METHODS, "", "(see CONFIG.md)", 0, 0, null, false));
        add(m, new ConfigKey("hot-reload", Type.SWITCH_OR_DURATION, "false", "2s", 100_000_000L, 86400 * sec, null, false));
        add(m, new ConfigKey("debug", Type.SWITCH, "false", "true", 0, 0, null, false));
        add(m, new ConfigKey("metrics.jmx", Type.SWITCH, "true", "false", 0, 0, null, false));
        add(m, new ConfigKey("stderr.decisions", Type.SWITCH, "true", "false", 0, 0, null, false));
        add(m, new ConfigKey("view", Type.CHOICE, "off", "live", 0, 0, View.values(), false));
        add(m, new ConfigKey("warmup", Type.SWITCH, "true", "false", 0, 0, null, false));
        ALL = Collections.unmodifiableMap(m);
    }

    private static void add(Map<String, ConfigKey> m, ConfigKey k) { m.put(k.name, k); }

    /** An extension key registered by the caller: free text from any source. */
    static ConfigKey extra(String name) {
        return new ConfigKey(name, Type.TEXT, null, "value", 0, 0, null, false);
    }
}
