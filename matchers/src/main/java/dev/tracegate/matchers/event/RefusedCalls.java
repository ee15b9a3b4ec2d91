package dev.tracegate.matchers.event;

import java.util.HashMap;
import java.util.Map;

/**
 * The CALLs of one session that an enforced replay refused (not applied), so that the RETURN answering one is not applied
 * either: under enforcement the refused call never ran, so its result (or failure) never existed (trial21 09: replaying a
 * shadow log as enforced refused {@code pay} and then applied its RETURN, so {@code O returned(pay)} held and a later
 * {@code ship} passed that the online agent refused). A RETURN with a call id answers the CALL with that id; one without
 * an id answers the latest CALL of its tool (as latches pair them), so it is not applied when that CALL was refused and
 * nothing answered it yet. The agent's own enforce logs hold no RETURN for a refused call, so nothing changes for them.
 *
 * <p>The one rule of {@code replay --mode enforce} and of the AgentDojo evaluation (which replays recorded runs as
 * enforced), so that the two agree on the same run: before stepping a RETURN, ask {@link #answered}; after stepping a
 * CALL, tell {@link #call} whether it was applied. Replay only, never on the agent's path (the agent never sees the
 * result of a call it refused). Not thread-safe: one per session.
 */
public final class RefusedCalls {
    /** Call id of a refused CALL not answered yet, to where it was refused. */
    private final Map<String, String> byId = new HashMap<>();
    /** Folded tool name to where its latest CALL was refused, while that CALL is not answered and no later CALL of it ran. */
    private final Map<String, String> latest = new HashMap<>();

    /** After CALL {@code e}, applied or (refused) not, named {@code where} in the caller's report; other kinds are ignored. */
    public void call(Event e, boolean applied, String where) {
        if (e.kind() != EventKind.CALL) return;
        String tool = ToolName.fold(e.tool());
        if (applied) {
            latest.remove(tool);
            return;
        }
        latest.put(tool, where);
        if (e.callId() != null) byId.put(e.callId(), where);
    }

    /**
     * For RETURN {@code e}: where the refused CALL it answers was refused (that call is answered then, and {@code e} is not
     * to be applied), or null when it answers no refused CALL and is replayed as any event (always null for other kinds).
     */
    public String answered(Event e) {
        if (e.kind() != EventKind.RETURN) return null;
        String tool = ToolName.fold(e.tool());
        if (e.callId() == null) return latest.remove(tool);
        String where = byId.remove(e.callId());
        if (where != null && where.equals(latest.get(tool))) latest.remove(tool);
        return where;
    }
}
