package dev.tracegate.agent.core;

/**
 * A tool call the agent is about to make, before the tool runs.
 *
 * @param framework     the instrumentation that saw it ("langchain4j", "springai", "mcp-server", "mcp-client", "configured")
 * @param session       the conversation / chat-memory / MCP session id ("default" when the framework has none)
 * @param tool          the tool name as the framework names it
 * @param argumentsJson the arguments as a JSON object text ("{}" when there are none)
 * @param callId        the model's tool-call id, or null when the framework does not carry one
 */
public record ToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
}
