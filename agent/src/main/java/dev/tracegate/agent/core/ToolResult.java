package dev.tracegate.agent.core;

/**
 * A tool's result before the model sees it.
 *
 * @param error          true when the framework reports the result as an error
 * @param cannotWithhold why the call site cannot replace this result by a notice (the tool threw to the host; a configured
 *                       method returns an object, not text), or null when it can
 */
public record ToolResult(String framework, String session, String tool, String callId, String text, boolean error, String cannotWithhold) {

    /** A result the call site can replace by a notice. */
    public ToolResult(String framework, String session, String tool, String callId, String text, boolean error) {
        this(framework, session, tool, callId, text, error, null);
    }
}
