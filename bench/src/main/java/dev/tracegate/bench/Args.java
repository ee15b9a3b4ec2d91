package dev.tracegate.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/** The {@code --name value} options of the bench command-line mains, with defaults and clear errors. */
final class Args {
    private final Map<String, String> values;

    private Args(Map<String, String> values) { this.values = values; }

    static Args parse(String[] args, Map<String, String> defaults) {
        Map<String, String> v = new HashMap<>(defaults);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !defaults.containsKey(a.substring(2))) {
                throw new IllegalArgumentException("unknown option '" + a + "' at position " + (i + 1)
                        + "; known options: --" + String.join(", --", defaults.keySet().stream().sorted().toList()));
            }
            if (i + 1 >= args.length) throw new IllegalArgumentException("option " + a + " needs a value");
            v.put(a.substring(2), args[++i]);
        }
        return new Args(v);
    }

    String get(String name) { return values.get(name); }

    int integer(String name) {
        try {
            return Integer.parseInt(values.get(name).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be an integer, got '" + values.get(name) + "'");
        }
    }

    int[] integers(String name) {
        try {
            return Arrays.stream(values.get(name).split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a comma-separated list of integers, got '" + values.get(name) + "'");
        }
    }
}
