package dev.tracegate.bench;

import com.google.re2j.Pattern;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.util.Set;

/**
 * The baseline: a stateless per-call guard, as per-call guardrail libraries work. It looks at one
 * event at a time (tool allowlist, patterns over the arguments, the result or the message, a
 * numeric bound on one argument) and remembers nothing, so it cannot express "approved before",
 * "at most three", "since consent" or "not to a recipient a tool result introduced". It uses the
 * same linear-time regex engine (RE2/J) as the matchers, so the comparison is about history, not
 * about regex engines.
 */
public final class StatelessGuard {
    private final Set<String> allowedTools;
    private final Pattern secrets = Pattern.compile("(?i)password|secret|api[_-]?key");
    private final Pattern ssn = Pattern.compile("\\b\\d{3}-\\d{2}-\\d{4}\\b");
    private final Pattern injection = Pattern.compile("(?i)ignore (all )?previous instructions");
    private final double maxAmount;

    public StatelessGuard(Set<String> allowedTools, double maxAmount) {
        this.allowedTools = Set.copyOf(allowedTools);
        this.maxAmount = maxAmount;
    }

    /** Whether the event may proceed, judged from this event alone. */
    public boolean allows(Event e) {
        EventKind k = e.kind();
        if (k == EventKind.CALL) {
            if (!allowedTools.contains(e.toolBare())) return false;
            String args = e.args().json();
            if (secrets.matcher(args).find() || ssn.matcher(args).find() || injection.matcher(args).find()) return false;
            var amount = e.args().root().get("amount");
            return amount == null || !amount.isNumber() || amount.asDouble() <= maxAmount;
        }
        if (k == EventKind.RETURN) return !injection.matcher(e.result()).find();
        if (k == EventKind.USER || k == EventKind.ASSISTANT) return !ssn.matcher(e.text()).find();
        return true;
    }
}
