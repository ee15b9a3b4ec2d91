package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.Decision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;

import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;

/**
 * A readable live view of events and decisions on a terminal ({@code view: live}), with colours
 * when the terminal supports them, and a summary table at the end. For demos and operators
 * watching a service; off by default, since it prints one line per event.
 */
public final class LiveView {
    private final PrintStream out;
    private final boolean colour;
    private final Map<String, LongAdder> blocksByContract = new ConcurrentHashMap<>();

    public LiveView(PrintStream out, boolean colour) {
        this.out = out;
        this.colour = colour;
    }

    /** A view on standard error; colours when a console is attached and NO_COLOR is unset, or TRACEGATE_COLOR=always. */
    public static LiveView onStderr() {
        String force = System.getenv("TRACEGATE_COLOR");
        boolean colour = force != null ? force.equalsIgnoreCase("always") : System.console() != null && System.getenv("NO_COLOR") == null;
        return new LiveView(System.err, colour);
    }

    private String c(String code, String s) { return colour ? "\u001b[" + code + "m" + s + "\u001b[0m" : s; }

    void event(Event e, Decision d, String contract, String message, long latencyNs) {
        if (contract != null && d != Decision.PASS) blocksByContract.computeIfAbsent(d.wire() + " " + contract, k -> new LongAdder()).increment();
        String what = switch (e.kind()) {
            case CALL -> "CALL      " + e.tool() + " " + abbreviate(e.args().json(), 70);
            case RETURN -> "RETURN    " + e.tool() + " " + abbreviate(e.result(), 70);
            case USER -> "USER      " + abbreviate(e.text(), 80);
            case ASSISTANT -> "ASSISTANT " + abbreviate(e.text(), 80);
            default -> e.kind() + " " + (e.subject() == null ? "" : e.subject()) + " " + e.purposes();
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
        line.append(c("2", String.format("[%s #%d]", e.session(), e.seq()))).append(' ').append(what).append("  -> ").append(verdict);
        if (contract != null && d != Decision.PASS) line.append(' ').append(c("1", contract));
        line.append(c("2", String.format("  (%.1f us)", latencyNs / 1000.0)));
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
        if (!r.unmet().isEmpty()) b.append(c("33", "  unmet: " + r.unmet()));
        synchronized (out) {
            out.println(b);
        }
    }

    void summary(SupervisorMetrics m, AuditWriter audit) {
        StringBuilder b = new StringBuilder("\n").append(c("1", "tracegate summary")).append('\n');
        b.append(String.format("  %-48s %10d%n", "events", m.getEvents()));
        for (Map.Entry<String, Long> e : new TreeMap<>(m.getDecisions()).entrySet()) {
            if (e.getValue() > 0) b.append(String.format("  %-48s %10d%n", "decision " + e.getKey(), e.getValue()));
        }
        for (Map.Entry<String, LongAdder> e : new TreeMap<>(blocksByContract).entrySet()) {
            b.append(String.format("  %-48s %10d%n", e.getKey(), e.getValue().sum()));
        }
        b.append(String.format("  %-48s %7.1f us%n", "latency p50", m.getLatencyP50() / 1000.0));
        b.append(String.format("  %-48s %7.1f us%n", "latency p99", m.getLatencyP99() / 1000.0));
        b.append(String.format("  %-48s %7.1f us%n", "latency p99.9", m.getLatencyP999() / 1000.0));
        b.append(String.format("  %-48s %7.1f us%n", "latency max", m.getLatencyMax() / 1000.0));
        b.append(String.format("  %-48s %s%n", "audit log", audit.describe()));
        synchronized (out) {
            out.print(b);
            out.flush();
        }
    }

    private static String abbreviate(String s, int max) {
        if (s == null) return "";
        String one = s.replace('\n', ' ');
        return one.length() <= max ? one : one.substring(0, max - 3) + "...";
    }
}
