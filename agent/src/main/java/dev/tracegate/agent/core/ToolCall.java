package dev.tracegate.agent.core;

import dev.tracegate.matchers.event.Args;

/**
 * A tool call the agent is about to make, before the tool runs.
 *
 * @param framework     the instrumentation that saw it ("langchain4j", "springai", "mcp-server", "mcp-client", "configured")
 * @param session       the conversation / chat-memory / MCP session id ("default" when the framework has none)
 * @param tool          the tool name as the framework names it
 * @param argumentsJson the arguments as a JSON object text ("{}" when there are none); when the call was made
 *                      with {@code arguments} and no text, the accessor writes the tree's text on demand
 * @param callId        the model's tool-call id, or null when the framework does not carry one
 * @param arguments     the arguments already as a tree (a configured method's Java values, converted without
 *                      JSON text in between), or null: then the supervisor reads {@code argumentsJson}
 * @param reach         what the call site can do besides running or refusing the call ({@link CallReach#FULL} for a framework's)
 */
public record ToolCall(String framework, String session, String tool, String argumentsJson, String callId, Args arguments, CallReach reach) {

    /** A call of a framework's call site (it can carry out every decision). */
    public ToolCall(String framework, String session, String tool, String argumentsJson, String callId, Args arguments) {
        this(framework, session, tool, argumentsJson, callId, arguments, CallReach.FULL);
    }

    /** A call whose arguments are JSON text, as the frameworks hand them over. */
    public ToolCall(String framework, String session, String tool, String argumentsJson, String callId) {
        this(framework, session, tool, argumentsJson, callId, null, CallReach.FULL);
    }

    /**
     * The arguments as contracts read them: as given, else read from the JSON text (flat fields when the object holds
     * only scalars, a tree otherwise). Text that is not strict JSON is read as the framework reads it (LangChain4j
     * repairs a trailing comma or a quoted object: {@link FrameworkArguments}), else kept raw, see {@link Args#ofJson}.
     */
    public Args args() {
        if (arguments != null) return arguments;
        String json = argumentsJson;
        Args read = json == null ? null : JsonText.readArgs(json);
        return read != null ? read : FrameworkArguments.read(framework, json);
    }

    /** The arguments as JSON text: as given, or the tree's compact text (written when asked: only the rare paths ask). */
    @Override
    public String argumentsJson() {
        return argumentsJson != null || arguments == null ? argumentsJson : arguments.json();
    }
}
