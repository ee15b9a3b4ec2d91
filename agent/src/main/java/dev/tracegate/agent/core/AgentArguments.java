package dev.tracegate.agent.core;

import dev.tracegate.agent.config.AgentConfig;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The agent's start options: {@code -javaagent:tracegate-agent.jar=key=value,key=value} (lists inside
 * a value are separated by ';'), each overridable by {@code -Dtracegate.key} and {@code TRACEGATE_KEY}
 * (the agent argument wins over the system property, which wins over the environment).
 */
public final class AgentArguments {

    private final Map<String, String> values;

    private AgentArguments(Map<String, String> values) {
        this.values = Collections.unmodifiableMap(values);
    }

    /** Parses the agent argument string; a malformed pair is an error that names it. */
    public static AgentArguments parse(String arguments) {
        Map<String, String> values = new LinkedHashMap<>();
        if (arguments != null && !arguments.isBlank()) {
            int position = 0;
            String[] pairs = arguments.split(",");
            for (int i = 0; i < pairs.length; i++) {
                String pair = pairs[i];
                int eq = pair.indexOf('=');
                if (pair.isBlank()) {
                    position += pair.length() + 1;
                    continue;
                }
                if (eq <= 0) {
                    // the caller prints this after its own "tracegate:" line, so the message carries no prefix
                    String list = AgentConfig.listValueHint(pairs, i);
                    throw new IllegalArgumentException("agent option '" + pair.trim() + "' at character " + (position + 1)
                            + " of '" + arguments + "' is not key=value; " + (list != null
                            ? "inside the agent argument ',' separates options, so " + list
                            : "write e.g. -javaagent:tracegate-agent.jar=config=/etc/tracegate/tracegate.yaml,mode=shadow"));
                }
                values.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim());
                position += pair.length() + 1;
            }
        }
        return new AgentArguments(values);
    }

    /** The option's value: agent argument, then {@code -Dtracegate.key}, then {@code TRACEGATE_KEY}, else {@code fallback}. */
    public String get(String key, String fallback) {
        String value = values.get(key);
        if (value == null) {
            value = System.getProperty("tracegate." + key);
        }
        if (value == null) {
            value = System.getenv("TRACEGATE_" + key.toUpperCase(Locale.ROOT));
        }
        return value == null ? fallback : value;
    }

    public String get(String key) {
        return get(key, null);
    }

    public boolean flag(String key, boolean fallback) {
        String value = get(key, null);
        if (value == null) {
            return fallback;
        }
        if (value.equalsIgnoreCase("true") || value.equals("1") || value.equalsIgnoreCase("yes")) {
            return true;
        }
        if (value.equalsIgnoreCase("false") || value.equals("0") || value.equalsIgnoreCase("no")) {
            return false;
        }
        throw new IllegalArgumentException("option " + key + "=" + value + " is not a boolean; use true or false");
    }

    /** The options given in the agent argument string (not the property/environment overrides). */
    public Map<String, String> asMap() {
        return values;
    }

    @Override
    public String toString() {
        return values.toString();
    }
}
