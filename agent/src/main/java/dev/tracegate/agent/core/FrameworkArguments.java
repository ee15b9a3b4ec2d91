package dev.tracegate.agent.core;

import dev.tracegate.matchers.event.Args;

import java.util.regex.Pattern;

/**
 * Tool arguments whose text is not a JSON object, read as the framework that runs the tool reads them (trial43 01).
 * Only the cold path: the caller has already failed to read the text strictly.
 *
 * <ul>
 *   <li>LangChain4j (1.11 to 1.19, {@code DefaultToolExecutor} through {@code ToolExecutionRequestUtil.argumentsAsMap}):
 *       when strict JSON fails it reads the text a second time after three edits, in this order: a {@code "} at the
 *       very start and one at the very end (or before a final line break) are dropped, every backslash-quote
 *       {@code \"} becomes a quote, and a comma followed only by white space and a {@code }} or {@code ]} is dropped.
 *       So {@code {"to":"x",}} and {@code "{\"to\":\"x\"}"} (the object as a JSON string) run the tool with
 *       {@code to=x}. These arguments are read the same way here, so contracts judge what the tool gets.</li>
 *   <li>Spring AI 2.0 ({@code MethodToolCallback}, {@code FunctionToolCallback}): strict Jackson, nothing repaired;
 *       text that is not an object makes the callback throw before the tool runs.</li>
 *   <li>MCP (server and client): the arguments are a map already; configured methods: Java values.</li>
 * </ul>
 * Text no framework can read stays {@code {"_raw": text}} ({@link Args#malformed()}): every atom that reads an
 * argument of that call is then unevaluable (matchers/README.md, "When arguments are missing").
 */
final class FrameworkArguments {
    /** A quote that opens or closes the whole text ({@code $}: at the end, or before a final line terminator). */
    private static final Pattern OUTER_QUOTE = Pattern.compile("^\"|\"$");
    /** A backslash followed by a quote. */
    private static final Pattern ESCAPED_QUOTE = Pattern.compile("\\\\\"");
    /** A comma with nothing but white space before the closing brace or bracket after it (group 1: what is kept). */
    private static final Pattern DANGLING_COMMA = Pattern.compile(",(\\s*[}\\]])");

    private FrameworkArguments() {
    }

    /**
     * The arguments {@code framework}'s tool gets from {@code text}, which a strict reading did not take as a JSON
     * object (null or blank: none): {@code {"_raw": text}} when the framework cannot read it either.
     */
    static Args read(String framework, String text) {
        Args strict = Args.ofJson(text);
        if (!strict.malformed() || !"langchain4j".equals(framework)) return strict;
        Args second = Args.ofJson(langChain4jSecondReading(text));
        return second.malformed() ? strict : second;
    }

    /** The text LangChain4j parses again when its first, strict reading of {@code text} failed. */
    static String langChain4jSecondReading(String text) {
        String unquoted = OUTER_QUOTE.matcher(text).replaceAll("");
        String unescaped = ESCAPED_QUOTE.matcher(unquoted).replaceAll("\"");
        return DANGLING_COMMA.matcher(unescaped).replaceAll("$1");
    }
}
