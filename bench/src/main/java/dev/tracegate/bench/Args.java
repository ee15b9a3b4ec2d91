package dev.tracegate.bench;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The {@code --name value} options of the bench command-line mains, with defaults and clear errors. A value that is not
 * a number, or out of the range the harness can measure with, is refused with a {@link BadOption} naming the option,
 * what it accepts and its default; {@link #main} turns that into one line on standard error and exit status 2.
 */
public final class Args {
    private final Map<String, String> values;
    private final Map<String, String> defaults;

    private Args(Map<String, String> values, Map<String, String> defaults) {
        this.values = values;
        this.defaults = defaults;
    }

    /** A command-line option the harness refuses: the message says which, what it accepts and how to fix it. */
    public static final class BadOption extends IllegalArgumentException {
        public BadOption(String message) { super(message); }
    }

    /** A harness's work, given its command-line arguments. */
    @FunctionalInterface
    public interface Body {
        void run(String[] args) throws Exception;
    }

    /**
     * Runs a harness's {@code body}; a {@link BadOption} it throws (before it measures anything) ends the JVM with
     * "{@code tool: message}" on standard error and exit status 2, without a stack trace. Other failures propagate.
     */
    public static void main(String tool, String[] args, Body body) throws Exception {
        try {
            body.run(args);
        } catch (BadOption e) {
            System.err.println(tool + ": " + e.getMessage());
            System.exit(2);
        }
    }

    public static Args parse(String[] args, Map<String, String> defaults) {
        Map<String, String> v = new HashMap<>(defaults);
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            if (!a.startsWith("--") || !defaults.containsKey(a.substring(2))) {
                throw new BadOption("unknown option '" + a + "' at position " + (i + 1)
                        + "; known options: --" + String.join(", --", defaults.keySet().stream().sorted().toList()));
            }
            if (i + 1 >= args.length) throw new BadOption("option " + a + " needs a value");
            v.put(a.substring(2), args[++i]);
        }
        return new Args(v, defaults);
    }

    public String get(String name) { return values.get(name); }

    /** How to fix a refused value: leave the option out for its default, if it has one. */
    private String fix(String name) {
        String d = defaults.get(name);
        return d == null || d.isEmpty() ? "" : "; leave --" + name + " out for the default, " + d;
    }

    public int integer(String name) {
        try {
            return Integer.parseInt(values.get(name).replace("_", ""));
        } catch (NumberFormatException e) {
            throw new BadOption("--" + name + " must be an integer, got '" + values.get(name) + "'" + fix(name));
        }
    }

    /** The option as a whole number from {@code min} to {@code max}; {@code what} says what it counts (for the message). */
    public int integer(String name, int min, int max, String what) {
        int n;
        try {
            n = Integer.parseInt(values.get(name).strip().replace("_", ""));
        } catch (NumberFormatException e) {
            n = Integer.MIN_VALUE;
        }
        if (n == Integer.MIN_VALUE || n < min || n > max) throw new BadOption(range(name, values.get(name), min, max, what) + fix(name));
        return n;
    }

    /** The option as a number above 0 (decimals allowed, at most {@code max}); {@code what} says what it measures. */
    /**
     * Refuses a {@code --seconds} that gives no event at {@code rate} per second ({@code what}: "event", "call"); the paced
     * harnesses' check, after {@link #integer} and {@link #positive} took the two options.
     */
    public void atLeastOne(double seconds, int rate, String what) {
        if ((long) (seconds * rate) < 1) {
            throw new BadOption("--seconds " + get("seconds") + " at --rate " + rate + " gives no " + what + " to measure: give"
                    + " --seconds at least " + 1.0 / rate);
        }
    }

    public double positive(String name, double max, String what) {
        double d;
        try {
            d = Double.parseDouble(values.get(name).strip());
        } catch (NumberFormatException e) {
            d = Double.NaN;
        }
        if (!(d > 0 && d <= max)) {
            throw new BadOption("--" + name + " (" + what + ") must be a number above 0 and at most " + plain(max) + ", got '"
                    + values.get(name) + "'" + fix(name));
        }
        return d;
    }

    public int[] integers(String name) {
        try {
            return Arrays.stream(values.get(name).split(",")).map(String::trim).mapToInt(Integer::parseInt).toArray();
        } catch (NumberFormatException e) {
            throw new BadOption("--" + name + " must be a comma-separated list of integers, got '" + values.get(name) + "'" + fix(name));
        }
    }

    /** The option as a comma-separated list of whole numbers, each from {@code min} to {@code max}. */
    public int[] integers(String name, int min, int max, String what) {
        String[] parts = values.get(name).split(",", -1);
        int[] out = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            int n;
            try {
                n = Integer.parseInt(parts[i].strip().replace("_", ""));
            } catch (NumberFormatException e) {
                n = Integer.MIN_VALUE;
            }
            if (n == Integer.MIN_VALUE || n < min || n > max) {
                throw new BadOption("--" + name + " must be a comma-separated list of whole numbers of " + what + ", each " + bounds(min, max)
                        + ", got '" + parts[i].strip() + "' in '" + values.get(name) + "'" + fix(name));
            }
            out[i] = n;
        }
        return out;
    }

    private static String range(String name, String got, int min, int max, String what) {
        return "--" + name + " must be a whole number of " + what + ", " + bounds(min, max) + ", got '" + got + "'";
    }

    private static String bounds(int min, int max) {
        return max == Integer.MAX_VALUE ? min + " or more" : "from " + min + " to " + plain(max);
    }

    private static String plain(double d) {
        return d == Math.rint(d) ? String.format("%,d", (long) d) : Double.toString(d);
    }
}
