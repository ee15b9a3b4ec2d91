package dev.tracegate.agent.cli;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.ToolName;

import java.util.HashMap;
import java.util.Map;

/**
 * The CALLs of one session that an enforce replay refused (not applied), so that the RETURN answering one is not applied
 * either: under enforcement the refused call never ran, so its result (or failure) never existed (trial21 09: replaying a
 * shadow log as enforced refused {@code pay} and then applied its RETURN, so {@code O returned(pay)} held and a later
 * {@code ship} passed that the online agent refused). A RETURN with a call id answers the CALL with that id; one without
 * an id answers the latest CALL of its tool (as latches pair them), so it is not applied when that CALL was refused and
 * nothing answered it yet. The agent's own enforce logs hold no RETURN for a refused call, so nothing changes for them.
 * Made at a session's first refused CALL; replay only, never on the agent's path.
 */
final class RefusedCalls {
    /** Call id of a refused CALL not answered yet, to where it was refused. */
    private final Map<String, String> byId = new HashMap<>();
    /** Folded tool name to where its latest CALL was refused, while that CALL is not answered and no later CALL of it ran. */
    private final Map<String, String> latest = new HashMap<>();

    /** After CALL {@code e}, applied or (refused) not, named {@code where} in the report. */
    void call(Event e, boolean applied, String where) {
        String tool = ToolName.fold(e.tool());
        if (applied) {
            latest.remove(tool);
            return;
        }
        latest.put(tool, where);
        if (e.callId() != null) byId.put(e.callId(), where);
    }

    /**
     * For RETURN {@code e}: where the refused CALL it answers was refused (that call is answered then), or null when it
     * answers no refused CALL and is replayed as any event.
     */
    String answered(Event e) {
        String tool = ToolName.fold(e.tool());
        if (e.callId() == null) return latest.remove(tool);
        String where = byId.remove(e.callId());
        if (where != null && where.equals(latest.get(tool))) latest.remove(tool);
        return where;
    }
}
