package dev.tracegate.agent.core;

/**
 * A tool's result before the model sees it.
 *
 * @param error true when the framework reports the result as an error
 */
public record ToolResult(String framework, String session, String tool, String callId, String text, boolean error) {
}
