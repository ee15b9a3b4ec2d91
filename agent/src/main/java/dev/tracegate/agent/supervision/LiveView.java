package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.Decision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;

import dev.tracegate.matchers.pii.CategorySpan;
import dev.tracegate.matchers.pii.DataCategoryExtractor;

import java.io.PrintStream;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A readable live view of events and decisions on a terminal ({@code view: live}), with colours
 * when the terminal supports them, and a summary table at the end. For demos and operators
 * watching a service; off by default, since it prints one line per event. Unless the audit log keeps personal
 * data in clear, the personal data the category detectors find in what it shows (arguments, results, messages,
 * subjects) is replaced by its category ({@code [iban]}), so standard error holds no more than the log does.
 */
public final class LiveView {
    private final PrintStream out;
    private final boolean colour;
    private final Map<String, LongAdder> blocksByContract = new ConcurrentHashMap<>();
    private final boolean inClear;

    /** A view that shows what events carry as it is ({@code inClear}) or with detected personal data masked. */
    public LiveView(PrintStream out, boolean colour, boolean inClear) {
        this.out = out;
        this.colour = colour;
        this.inClear = inClear;
    }

    /** A view that masks detected personal data. */
    public LiveView(PrintStream out, boolean colour) {
        this(out, colour, false);
    }

    /**
     * A view on standard error; colours when a console is attached and NO_COLOR is unset, or TRACEGATE_COLOR=always;
     * values shown as they are only when {@code inClear} (the audit log's {@code audit.personal-data: clear}).
     */
    public static LiveView onStderr(boolean inClear) {
        String force = System.getenv("TRACEGATE_COLOR");
        boolean colour = force != null ? force.equalsIgnoreCase("always") : System.console() != null && System.getenv("NO_COLOR") == null;
        // through the agent's queue of console lines: a standard error that takes nothing never holds an event's thread
        return new LiveView(dev.tracegate.agent.core.AgentLog.plainStream(), colour, inClear);
    }

    private String c(String code, String s) { return colour ? "\u001b[" + code + "m" + s + "\u001b[0m" : s; }

    void event(Event e, Decision d, String contract, String message, long latencyNs) {
        if (contract != null && d != Decision.PASS) blocksByContract.computeIfAbsent(d.wire() + " " + contract, k -> new LongAdder()).increment();
        String what = switch (e.kind()) {
            case CALL -> "CALL      " + e.tool() + " " + abbreviate(shown(e.args().json()), 70);
            case RETURN -> "RETURN    " + e.tool() + " " + abbreviate(shown(e.result()), 70);
            case USER -> "USER      " + abbreviate(shown(e.text()), 80);
            case ASSISTANT -> "ASSISTANT " + abbreviate(shown(e.text()), 80);
            default -> e.kind() + " " + (e.subject() == null ? "" : inClear ? e.subject() : "[subject]") + " " + e.purposes();
        };
        String verdict = switch (d) {
            case PASS -> c("32", "pass");
            case BLOCK -> c("1;31", "BLOCK");
            case SUPPRESS -> c("1;35", "SUPPRESS");
            case REDACT -> c("1;33", "REDACT");
            case REDIRECT -> c("1;36", "REDIRECT");
            case ESCALATE -> c("1;34", "ESCALATE");
            case SHADOW_WOULD_BLOCK -> c("33", "shadow-would-block");
            case END -> "end";
        };
        StringBuilder line = new StringBuilder();
        line.append(c("2", String.format(java.util.Locale.ROOT, "[%s #%d]", e.session().isEmpty() ? "no conversation" : dev.tracegate.agent.core.AgentLog.field(e.session()), e.seq()))).append(' ').append(what).append("  -> ").append(verdict);
        if (contract != null && d != Decision.PASS) line.append(' ').append(c("1", contract));
        line.append(c("2", String.format(java.util.Locale.ROOT, "  (%.1f us)", latencyNs / 1000.0)));
        synchronized (out) {
            out.println(line);
            if (message != null && d != Decision.PASS) out.println("      " + c("2", abbreviate(message, 160)));
        }
    }

    void end(EndReport r, String[] contractIds) {
        StringBuilder b = new StringBuilder(c("2", "[" + r.sessionId() + "]") + " END");
        for (int i = 0; i < contractIds.length; i++) {
            Verdict v = r.verdicts().get(i);
            if (v != Verdict.ACTIVE) b.append(' ').append(contractIds[i]).append('=').append(v == Verdict.FAIL ? c("31", "FAIL") : "IDLE");
        }
        if (!r.unmet().isEmpty()) b.append(c("33", "  unmet: " + unmet(r)));
        synchronized (out) {
            out.println(b);
        }
    }

    /** The unmet obligations as the audit log's end record and replay write them: "id: pending", "; " between two. */
    static String unmet(EndReport r) {
        StringBuilder b = new StringBuilder();
        for (EndReport.Obligation o : r.unmet()) {
            if (b.length() > 0) b.append("; ");
            b.append(o.contractId());
            if (o.pending() != null) b.append(": ").append(o.pending());
        }
        return b.toString();
    }

    void summary(SupervisorMetrics m, AuditWriter audit) {
        StringBuilder b = new StringBuilder("\n").append(c("1", "tracegate summary")).append('\n');
        // events: the events decided, the sum of the decision lines; the sessions' end records (Decisions{end}) are a line
        // of their own, so events + sessions ended are the event records audit verify counts (before, "decision end"
        // was among the decision lines and they summed to more than "events")
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %10d%n", "events", m.getEvents()));
        long ended = 0;
        for (Map.Entry<String, Long> e : new TreeMap<>(m.getDecisions()).entrySet()) {
            if (e.getKey().equals(Decision.END.wire())) {
                ended = e.getValue();
            } else if (e.getValue() > 0) {
                b.append(String.format(java.util.Locale.ROOT, "  %-48s %10d%n", "decision " + e.getKey(), e.getValue()));
            }
        }
        if (ended > 0) b.append(String.format(java.util.Locale.ROOT, "  %-48s %10d%n", "sessions ended", ended));
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(blocksByContract).entrySet()) {
            b.append(String.format(java.util.Locale.ROOT, "  %-48s %10d%n", e.getKey(), e.getValue().sum()));
        }
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %7.1f us%n", "latency p50", m.getLatencyP50() / 1000.0));
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %7.1f us%n", "latency p99", m.getLatencyP99() / 1000.0));
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %7.1f us%n", "latency p99.9", m.getLatencyP999() / 1000.0));
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %7.1f us%n", "latency max", m.getLatencyMax() / 1000.0));
        b.append(String.format(java.util.Locale.ROOT, "  %-48s %s%n", "audit log", audit.describe()
                + (audit.created() ? "" : " (not created: this run recorded nothing)")));
        synchronized (out) {
            out.print(b);
            out.flush();
        }
    }

    /** The text as shown: as it is when the log keeps personal data in clear, else with each detected span replaced by its category. */
    String shown(String s) {
        if (s == null || inClear) return s;
        List<CategorySpan> spans = DataCategoryExtractor.INSTANCE.spans(s);
        if (spans.isEmpty()) return s;
        spans.sort(java.util.Comparator.comparingInt(CategorySpan::start));
        StringBuilder b = new StringBuilder(s.length());
        int at = 0;
        for (CategorySpan span : spans) {
            if (span.end() <= at) continue;   // inside a span already masked
            if (span.start() >= at) b.append(s, at, span.start()).append('[').append(span.category().key()).append(']');
            at = span.end();                  // an overlapping span only widens the masked stretch
        }
        return b.append(s, at, s.length()).toString();
    }

    private static String abbreviate(String s, int max) {
        if (s == null) return "";
        String one = s.replace('\n', ' ');
        return one.length() <= max ? one : one.substring(0, max - 3) + "...";
    }
}
