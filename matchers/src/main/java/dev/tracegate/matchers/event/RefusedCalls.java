package dev.tracegate.matchers.event;

import java.util.HashMap;
import java.util.Map;

/**
 * The CALLs of one session that an enforced replay refused (not applied), so that the RETURN answering one is not applied
 * either: under enforcement the refused call never ran, so its result (or failure) never existed (trial21 09: replaying a
 * shadow log as enforced refused {@code pay} and then applied its RETURN, so {@code O returned(pay)} held and a later
 * {@code ship} passed that the online agent refused).
 *
 * <p>Which CALL a RETURN answers: one with a call id answers the latest CALL <em>of its tool</em> with that id (as context
 * latches pair them, docs/LIBRARY.md), applied or refused, so a later CALL with the id supersedes an earlier one, and a CALL
 * of another tool with the same id is never its call (trial24 04: a model that numbers its tool calls per response gives
 * every turn's first call {@code call_0}; {@code lookup_order}'s RETURN was taken for the answer of a {@code refund} refused
 * two turns before). One without an id answers the latest CALL of its tool, and so does one whose id answers no CALL of
 * its tool seen here ({@link #answersNoCall}: an id a converter changed, C1 for c1; trial27 08: such a RETURN of a
 * refused call was applied). It is not applied only when that CALL was refused and no RETURN answered it since. The agent's own enforce logs hold no RETURN for a refused call, so nothing
 * changes for them.
 *
 * <p>The one rule of {@code replay --mode enforce} and of the AgentDojo evaluation (which replays recorded runs as
 * enforced), so that the two agree on the same run: before stepping a RETURN, ask {@link #answered}; after stepping a
 * CALL, tell {@link #call} whether it was applied. Replay only, never on the agent's path (the agent never sees the
 * result of a call it refused). Not thread-safe: one per session.
 */
public final class RefusedCalls {
    /** A refused CALL not answered yet. */
    private record Refused(String id, String where) {}

    /** Folded tool name, then call id, to the latest CALL of that tool with that id, while it is refused and not answered. */
    private final Map<String, Map<String, Refused>> byId = new HashMap<>();
    /** Folded tool name to its latest CALL, while that CALL is refused and not answered. */
    private final Map<String, Refused> latest = new HashMap<>();
    /** Folded tool name to the ids of every CALL of it seen, applied or refused. */
    private final Map<String, java.util.Set<String>> seen = new HashMap<>();

    /** After CALL {@code e}, applied or (refused) not, named {@code where} in the caller's report; other kinds are ignored. */
    public void call(Event e, boolean applied, String where) {
        if (e.kind() != EventKind.CALL) return;
        String tool = ToolName.fold(e.tool());
        String id = e.callId();
        if (id != null) seen.computeIfAbsent(tool, k -> new java.util.HashSet<>()).add(id);
        if (applied) {   // the latest CALL of the tool (and of its id) is this one, whose RETURN is applied
            latest.remove(tool);
            if (id != null) {
                Map<String, Refused> ids = byId.get(tool);
                if (ids != null && ids.remove(id) != null && ids.isEmpty()) byId.remove(tool);
            }
            return;
        }
        Refused r = new Refused(id, where);
        latest.put(tool, r);
        if (id != null) byId.computeIfAbsent(tool, k -> new HashMap<>()).put(id, r);
    }

    /**
     * After CALL {@code e} that is known never to have run (an agent's enforce log: the agent refused it online, so no
     * RETURN of it exists in the log): its id is seen, and it neither answers a RETURN nor supersedes an earlier CALL with
     * its id, whose RETURN may still come (trial47 03: a model gave two concurrent calls one id, the second was refused,
     * and the first one's RETURN was taken for the refused call's and not applied, so replay reported a violation the
     * live run did not have).
     */
    public void neverRan(Event e) {
        if (e.kind() != EventKind.CALL || e.callId() == null) return;
        seen.computeIfAbsent(ToolName.fold(e.tool()), k -> new java.util.HashSet<>()).add(e.callId());
    }

    /**
     * True for a RETURN with an id that no CALL of its tool seen here had (the caller may say so): it answers the latest
     * CALL of its tool, as a RETURN without an id does.
     */
    public boolean answersNoCall(Event e) {
        if (e.kind() != EventKind.RETURN || e.callId() == null) return false;
        java.util.Set<String> ids = seen.get(ToolName.fold(e.tool()));
        return ids == null || !ids.contains(e.callId());
    }

    /**
     * For RETURN {@code e}: where the refused CALL it answers was refused (that call is answered then, and {@code e} is not
     * to be applied), or null when the CALL it answers was applied, was answered already, or is not known, and {@code e} is
     * replayed as any event (always null for other kinds).
     */
    public String answered(Event e) {
        if (e.kind() != EventKind.RETURN) return null;
        String tool = ToolName.fold(e.tool());
        String id = answersNoCall(e) ? null : e.callId();
        Refused r;
        if (id == null) {
            r = latest.remove(tool);
            if (r != null && r.id() != null) {
                Map<String, Refused> ids = byId.get(tool);
                if (ids != null && ids.get(r.id()) == r) {
                    ids.remove(r.id());
                    if (ids.isEmpty()) byId.remove(tool);
                }
            }
        } else {
            Map<String, Refused> ids = byId.get(tool);
            r = ids == null ? null : ids.remove(id);
            if (ids != null && ids.isEmpty()) byId.remove(tool);
            if (r != null && latest.get(tool) == r) latest.remove(tool);
        }
        return r == null ? null : r.where();
    }
}
