package dev.tracegate.it.agentdojo;

import com.fasterxml.jackson.databind.JsonNode;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One decided event as the comparison sees it, online (an audit record) or offline (a replay step):
 * what happened and what the supervisor decided, with every field the two sides must agree on.
 *
 * @param kind     user, assistant, call, return or end (lower case, as in the audit log)
 * @param seq      the event's sequence number on its side (reported, never compared: a RETURN that
 *                 never happened online shifts the numbers)
 * @param ordinal  for a CALL, its position among the run's recorded calls (offline also for its RETURN); -1 otherwise
 * @param tool     the tool of a CALL or RETURN
 * @param args     a CALL's arguments (null for other kinds: an online RETURN carries none)
 * @param text     the text of a USER or ASSISTANT event
 * @param result   the result of a RETURN
 * @param error    whether a RETURN reports a failed tool
 * @param decision pass, block or suppress (end for the END record)
 * @param fired    the contracts the decision names, in library order
 * @param atoms    the atoms that held at the event, sorted
 * @param verdicts each contract's verdict after the event
 */
record Observed(String kind, long seq, int ordinal, String tool, JsonNode args, String text, String result, boolean error,
                String decision, List<String> fired, List<String> atoms, Map<String, String> verdicts) {

    /** Numbers compare by value, so 100 and 100.0 (written differently by two JSON writers) are equal. */
    private static final Comparator<JsonNode> BY_VALUE = (a, b) -> {
        if (a.isNumber() && b.isNumber()) return new BigDecimal(a.asText()).compareTo(new BigDecimal(b.asText()));
        return a.equals(b) ? 0 : 1;
    };

    /** The fields in which {@code online} differs from this (offline) event, as "field: offline vs online" lines. */
    List<String> differences(Observed online) {
        List<String> out = new ArrayList<>();
        diff(out, "kind", kind, online.kind);
        diff(out, "tool", tool, online.tool);
        if (args != null || online.args != null) {
            boolean same = args != null && online.args != null && args.equals(BY_VALUE, online.args);
            if (!same) out.add("args: " + args + " vs " + online.args);
        }
        diff(out, "text", text, online.text);
        diff(out, "result", result, online.result);
        diff(out, "error", error, online.error);
        diff(out, "decision", decision, online.decision);
        diff(out, "fired", fired, online.fired);
        diff(out, "atoms", atoms, online.atoms);
        diff(out, "verdicts", verdicts, online.verdicts);
        return out;
    }

    private static void diff(List<String> out, String field, Object offline, Object online) {
        if (!Objects.equals(offline, online)) out.add(field + ": " + clip(offline) + " vs " + clip(online));
    }

    private static String clip(Object o) {
        String s = String.valueOf(o);
        return s.length() > 300 ? s.substring(0, 300) + "...(" + s.length() + " chars)" : s;
    }

    /** A short description for failure messages. */
    String brief() {
        return kind + (tool == null ? "" : " " + tool) + (ordinal >= 0 ? " (call " + ordinal + ")" : "") + " seq " + seq + " -> " + decision
                + (fired.isEmpty() ? "" : " " + fired);
    }
}
