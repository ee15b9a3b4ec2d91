package dev.tracegate.agent.cli;

import dev.tracegate.agent.config.AgentConfig;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The {@code TRACEGATE_*} variables and {@code -Dtracegate.*} properties of the {@code attach} command itself. An attached
 * agent reads the target JVM's environment and properties, which the person attaching cannot change; so {@code attach}
 * hands its own on to the agent as options, with the precedence the agent gives its sources: the options written on the
 * command line, then properties (this command's, then the target's), then variables (this command's, then the
 * target's), then the configuration file. A variable of this command for a key the target has as a property is
 * therefore not passed (the target's property would beat it at a start with {@code -javaagent} too), and said.
 */
final class AttachSettings {

    /** One setting of this command: the key, its value, and how it was written ({@code TRACEGATE_LIBRARIES}). */
    record Setting(String key, String value, String name, boolean property) {
    }

    private final List<Setting> settings;
    private final List<String> notes;

    private AttachSettings(List<Setting> settings, List<String> notes) {
        this.settings = settings;
        this.notes = notes;
    }

    /**
     * This command's settings among {@code environment} and {@code properties}; a variable that names no key is left out
     * with a note (the agent ignores such a variable too, since the environment is shared with scripts).
     *
     * @throws IllegalArgumentException a property that names no key, or a value the agent argument cannot carry (a ','
     *         in a value that is not a list): the message says which and how to pass it instead
     */
    static AttachSettings of(Map<String, String> environment, Map<String, String> properties) {
        List<Setting> settings = new ArrayList<>();
        List<String> notes = new ArrayList<>();
        Map<String, String> byVariable = new LinkedHashMap<>();
        for (String key : AgentConfig.keyNames()) byVariable.put(AgentConfig.environmentName(key), key);
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(properties).entrySet()) {
            String name = e.getKey();
            if (!name.startsWith(AgentConfig.PROPERTY_PREFIX) || name.startsWith("tracegate.agent.")) continue;
            String key = name.substring(AgentConfig.PROPERTY_PREFIX.length());
            if (!AgentConfig.keyNames().contains(key)) {
                throw new IllegalArgumentException("-D" + name + " on the attach command names no tracegate key (they are listed in"
                        + " agent/CONFIG.md, the development options in agent/README.md); remove it or correct its name");
            }
            settings.add(setting(key, e.getValue(), "-D" + name, true));
        }
        for (Map.Entry<String, String> e : new java.util.TreeMap<>(environment).entrySet()) {
            String name = e.getKey();
            if (!name.startsWith(AgentConfig.ENV_PREFIX)) continue;
            String key = byVariable.get(name);
            if (key == null) {
                notes.add(name + " is not a tracegate key and is not passed to the agent (every key is listed in agent/CONFIG.md)");
                continue;
            }
            settings.add(setting(key, e.getValue(), name, false));
        }
        return new AttachSettings(settings, notes);
    }

    private static Setting setting(String key, String value, String name, boolean property) {
        String v = value.strip();
        if (AgentConfig.listValued(key)) {
            v = v.replace(',', ';');   // the agent argument separates options with ','
        } else if (v.indexOf(',') >= 0 && AgentConfig.DEVELOPMENT_KEYS.contains(key)) {
            throw new IllegalArgumentException(name + "=" + v + " holds a ',', which the agent options of attach cannot carry"
                    + " (they are one comma-separated word); the development option " + key + " separates its items with ';'"
                    + " (e.g. " + key + "=a;b)");
        } else if (v.indexOf(',') >= 0) {
            throw new IllegalArgumentException(name + "=" + v + " holds a ',', which the agent options of attach cannot carry"
                    + " (they are one comma-separated word); give the key in a configuration file and pass config=FILE instead");
        }
        if (v.isEmpty()) {
            throw new IllegalArgumentException(name + " on the attach command is empty; give it a value or unset it");
        }
        return new Setting(key, v, name, property);
    }

    /** What was left out of this command's settings, one line each, for the user. */
    List<String> notes() {
        return notes;
    }

    /**
     * The agent options: {@code explicit} (as written on the command line) followed by this command's settings that it
     * does not set itself and that the target's {@code targetProperties} do not beat; {@code passed} and {@code notes}
     * receive the names used and what was left out, for the user.
     */
    String options(String explicit, Properties targetProperties, List<String> passed, List<String> notes) {
        Map<String, String> given = new LinkedHashMap<>();
        for (String p : explicit == null ? new String[0] : explicit.split(",")) {
            int eq = p.indexOf('=');
            if (eq > 0) given.put(p.substring(0, eq).strip(), p);
        }
        StringBuilder out = new StringBuilder(explicit == null ? "" : explicit);
        Map<String, Setting> chosen = new LinkedHashMap<>();
        for (Setting s : settings) {
            if (given.containsKey(s.key())) {
                notes.add(s.name() + " of the attach command is not passed: the option " + s.key() + "= on the command line wins");
                continue;
            }
            Setting before = chosen.get(s.key());
            if (before != null) {
                // properties come first: this command's property beats its own variable
                notes.add(s.name() + " of the attach command is not passed: its " + before.name() + " wins");
                continue;
            }
            if (!s.property() && targetProperties.getProperty(AgentConfig.PROPERTY_PREFIX + s.key()) != null) {
                notes.add(s.name() + " of the attach command is not passed: the target JVM has -D" + AgentConfig.PROPERTY_PREFIX
                        + s.key() + ", and a property beats a variable; pass " + s.key() + "=... as an option to override it");
                continue;
            }
            chosen.put(s.key(), s);
        }
        for (Setting s : chosen.values()) {
            if (out.length() > 0) out.append(',');
            out.append(s.key()).append('=').append(s.value());
            passed.add(s.name());
        }
        return out.toString();
    }
}
