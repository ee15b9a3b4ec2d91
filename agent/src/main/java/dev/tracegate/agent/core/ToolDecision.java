package dev.tracegate.agent.core;

import java.util.Objects;

/**
 * What the supervisor decided about a tool call: proceed, block (the tool does not run), redirect
 * (run another tool instead) or redact (run it with rewritten arguments).
 *
 * <p>{@code contract} and {@code reason} name the contract and why; {@code instead} tells the model
 * what to do instead. Whether a block becomes an exception or a substituted result is the agent's
 * configuration ({@code onBlock=throw|substitute}), not the supervisor's.
 */
public final class ToolDecision {

    /** The kinds of decision. */
    public enum Kind { PROCEED, BLOCK, REDIRECT, REDACT }

    private static final ToolDecision PROCEED = new ToolDecision(Kind.PROCEED, null, null, null, null, null);

    private final Kind kind;
    private final String contract;
    private final String reason;
    private final String instead;
    private final String targetTool;
    private final String argumentsJson;

    private ToolDecision(Kind kind, String contract, String reason, String instead, String targetTool, String argumentsJson) {
        this.kind = kind;
        this.contract = contract;
        this.reason = reason;
        this.instead = instead;
        this.targetTool = targetTool;
        this.argumentsJson = argumentsJson;
    }

    /** Let the call through unchanged (a shared constant: no allocation on the fast path). */
    public static ToolDecision proceed() {
        return PROCEED;
    }

    public static ToolDecision block(String contract, String reason, String instead) {
        return new ToolDecision(Kind.BLOCK, Objects.requireNonNull(contract), reason, instead, null, null);
    }

    /** Run {@code targetTool} with {@code argumentsJson} instead of the requested tool. */
    public static ToolDecision redirect(String contract, String reason, String targetTool, String argumentsJson) {
        return new ToolDecision(Kind.REDIRECT, Objects.requireNonNull(contract), reason, null,
                Objects.requireNonNull(targetTool), Objects.requireNonNull(argumentsJson));
    }

    /** Run the requested tool with {@code argumentsJson} (fields the purpose does not need removed). */
    public static ToolDecision redact(String contract, String reason, String argumentsJson) {
        return new ToolDecision(Kind.REDACT, Objects.requireNonNull(contract), reason, null, null, Objects.requireNonNull(argumentsJson));
    }

    public Kind kind() {
        return kind;
    }

    public String contract() {
        return contract;
    }

    public String reason() {
        return reason;
    }

    public String instead() {
        return instead;
    }

    public String targetTool() {
        return targetTool;
    }

    public String argumentsJson() {
        return argumentsJson;
    }

    @Override
    public String toString() {
        return kind == Kind.PROCEED ? "PROCEED" : kind + "[" + contract + (targetTool == null ? "" : " -> " + targetTool) + "]";
    }
}
