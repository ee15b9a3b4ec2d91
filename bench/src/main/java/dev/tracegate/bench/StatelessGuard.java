package dev.tracegate.bench;

import com.google.re2j.Pattern;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.util.Set;

/**
 * The baseline: a stateless per-call guard, as per-call guardrail libraries work. It looks at one
 * event at a time (tool allowlist, patterns over the arguments, the result or the message, a
 * numeric bound on one argument) and remembers nothing, so it cannot express "approved before",
 * "at most three", "since consent" or "not to a recipient a tool result introduced".
 *
 * <p>Its regex engine is RE2/J, as the matchers', but the two use it differently: the plain guard
 * ({@link #StatelessGuard}) runs every pattern over the whole text on every call, while the matchers
 * first search for literals that any match must contain and run RE2/J only when one is there. So the
 * plain guard's cost is mostly that regex use, not the absence of history. The guard made by
 * {@link #prefiltered} checks such a necessary condition first (a case-folded literal search, the SSN
 * shape {@code d-dd-d}) and gives the same answers; it is the one to compare costs with.
 */
public final class StatelessGuard {
    private final Set<String> allowedTools;
    private final Pattern secrets = Pattern.compile("(?i)password|secret|api[_-]?key");
    private final Pattern ssn = Pattern.compile("\\b\\d{3}-\\d{2}-\\d{4}\\b");
    private final Pattern injection = Pattern.compile("(?i)ignore (all )?previous instructions");
    private final double maxAmount;
    private final boolean prefilter;

    /** The plain guard: RE2/J over the whole text for every pattern, every call. */
    public StatelessGuard(Set<String> allowedTools, double maxAmount) {
        this(allowedTools, maxAmount, false);
    }

    private StatelessGuard(Set<String> allowedTools, double maxAmount, boolean prefilter) {
        this.allowedTools = Set.copyOf(allowedTools);
        this.maxAmount = maxAmount;
        this.prefilter = prefilter;
    }

    /** The same guard, same answers, running a pattern only on a text that holds what every match of it contains. */
    public static StatelessGuard prefiltered(Set<String> allowedTools, double maxAmount) {
        return new StatelessGuard(allowedTools, maxAmount, true);
    }

    /** Whether the event may proceed, judged from this event alone. */
    public boolean allows(Event e) {
        EventKind k = e.kind();
        if (k == EventKind.CALL) {
            if (!allowedTools.contains(e.toolBare())) return false;
            String args = e.args().json();
            if (secret(args) || ssn(args) || injection(args)) return false;
            var amount = e.args().root().get("amount");
            return amount == null || !amount.isNumber() || amount.asDouble() <= maxAmount;
        }
        if (k == EventKind.RETURN) return !injection(e.result());
        if (k == EventKind.USER || k == EventKind.ASSISTANT) return !ssn(e.text());
        return true;
    }

    private boolean secret(String t) {
        if (!prefilter) return secrets.matcher(t).find();
        // password and secret are the match itself; api[_-]?key needs "api" and then the regex
        return containsFolded(t, "password") || containsFolded(t, "secret") || containsFolded(t, "api") && secrets.matcher(t).find();
    }

    private boolean ssn(String t) {
        if (!prefilter) return ssn.matcher(t).find();
        // every match has the shape d-dd-d around two dashes three apart: look for it before asking RE2/J
        for (int i = t.indexOf('-'); i >= 0; i = t.indexOf('-', i + 1)) {
            if (i + 4 < t.length() && t.charAt(i + 3) == '-' && i > 0 && digit(t.charAt(i - 1)) && digit(t.charAt(i + 1))
                    && digit(t.charAt(i + 2)) && digit(t.charAt(i + 4))) {
                return ssn.matcher(t).find();
            }
        }
        return false;
    }

    private boolean injection(String t) {
        if (!prefilter) return injection.matcher(t).find();
        return containsFolded(t, "previous instructions") && injection.matcher(t).find();
    }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }   // RE2/J's \d is ASCII

    /**
     * Whether {@code text} contains the lower-case ASCII {@code literal} ignoring case, as {@code (?i)} folds it
     * (RE2/J also folds the Kelvin sign to k and the long s to s: those two count as well). No allocation.
     */
    static boolean containsFolded(String text, String literal) {
        int n = text.length(), m = literal.length();
        char first = literal.charAt(0);
        for (int i = 0; i + m <= n; i++) {
            if (fold(text.charAt(i)) != first) continue;
            int j = 1;
            while (j < m && fold(text.charAt(i + j)) == literal.charAt(j)) j++;
            if (j == m) return true;
        }
        return false;
    }

    private static char fold(char c) {
        if (c >= 'A' && c <= 'Z') return (char) (c | 0x20);
        if (c == '\u212A') return 'k';   // KELVIN SIGN
        if (c == '\u017F') return 's';   // LATIN SMALL LETTER LONG S
        return c;
    }
}
