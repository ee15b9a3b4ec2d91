package dev.tracegate.agent.config;

import java.time.Duration;

/** Durations as operators write them: {@code 30m}, {@code 10s}, {@code 500ms}, {@code 1h30m}; units ns, us, ms, s, m, h, d. */
final class DurationText {
    static final String HELP = "a duration such as 30m, 10s or 500ms (a whole number and a unit: ns, us, ms, s, m, h, d; parts may be combined, as in 1h30m)";

    private DurationText() {}

    /** The duration, or null if {@code text} is not one. */
    static Duration parse(String text) {
        String s = text.trim();
        if (s.isEmpty()) return null;
        Duration total = Duration.ZERO;
        int i = 0;
        while (i < s.length()) {
            int digits = i;
            while (i < s.length() && Character.isDigit(s.charAt(i))) i++;
            if (i == digits || i - digits > 12) return null;
            long n = Long.parseLong(s.substring(digits, i));
            int unit = i;
            while (i < s.length() && Character.isLetter(s.charAt(i))) i++;
            Duration part;
            switch (s.substring(unit, i)) {
                case "ns": part = Duration.ofNanos(n); break;
                case "us": part = Duration.ofNanos(Math.multiplyExact(n, 1000L)); break;
                case "ms": part = Duration.ofMillis(n); break;
                case "s": part = Duration.ofSeconds(n); break;
                case "m": part = Duration.ofMinutes(n); break;
                case "h": part = Duration.ofHours(n); break;
                case "d": part = Duration.ofDays(n); break;
                default: return null;
            }
            total = total.plus(part);
        }
        return total;
    }

    /** The shortest exact text of {@code d} in the largest unit that divides it. */
    static String format(Duration d) {
        long ns = d.toNanos();
        if (ns == 0) return "0s";
        long[] sizes = {86_400_000_000_000L, 3_600_000_000_000L, 60_000_000_000L, 1_000_000_000L, 1_000_000L, 1_000L, 1L};
        String[] units = {"d", "h", "m", "s", "ms", "us", "ns"};
        for (int i = 0; i < sizes.length; i++) if (ns % sizes[i] == 0) return ns / sizes[i] + units[i];
        return ns + "ns";
    }
}
