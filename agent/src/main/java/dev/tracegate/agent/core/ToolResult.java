package dev.tracegate.agent.core;

/**
 * A tool's result before the model sees it.
 *
 * @param error          true when the framework reports the result as an error
 * @param cannotWithhold why the call site cannot replace this result by a notice (the tool threw to the host; a configured
 *                       method returns an object, not text), or null when it can
 * @param withheld       why the call site withholds this result whatever the contracts decide (the failure policy refuses
 *                       a result the agent could not read whole), or null: its record then says that, not the contracts' pass
 */
public record ToolResult(String framework, String session, String tool, String callId, String text, boolean error, String cannotWithhold,
                         String withheld) {

    /** A result the call site can replace by a notice. */
    public ToolResult(String framework, String session, String tool, String callId, String text, boolean error) {
        this(framework, session, tool, callId, text, error, null, null);
    }

    /** A result the contracts alone decide on. */
    public ToolResult(String framework, String session, String tool, String callId, String text, boolean error, String cannotWithhold) {
        this(framework, session, tool, callId, text, error, cannotWithhold, null);
    }
}
