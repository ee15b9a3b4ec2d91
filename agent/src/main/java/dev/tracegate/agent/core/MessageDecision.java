package dev.tracegate.agent.core;

import java.util.Objects;

/**
 * What the supervisor decided about a user message or model output: keep it, replace its text
 * (a withheld notice for a suppressed user message, redacted model output), or block it (model output only).
 */
public final class MessageDecision {

    /** The kinds of decision. */
    public enum Kind { KEEP, REPLACE, BLOCK }

    private static final MessageDecision KEEP = new MessageDecision(Kind.KEEP, null, null);

    private final Kind kind;
    private final String contract;
    private final String text;

    private MessageDecision(Kind kind, String contract, String text) {
        this.kind = kind;
        this.contract = contract;
        this.text = text;
    }

    public static MessageDecision keep() {
        return KEEP;
    }

    public static MessageDecision replace(String contract, String text) {
        return new MessageDecision(Kind.REPLACE, Objects.requireNonNull(contract), Objects.requireNonNull(text));
    }

    /** Block model output: the host gets a {@code TracegateViolation} with {@code message}. */
    public static MessageDecision block(String contract, String message) {
        return new MessageDecision(Kind.BLOCK, Objects.requireNonNull(contract), Objects.requireNonNull(message));
    }

    public Kind kind() {
        return kind;
    }

    public String contract() {
        return contract;
    }

    public String text() {
        return text;
    }

    @Override
    public String toString() {
        return kind == Kind.KEEP ? "KEEP" : kind + "[" + contract + "]";
    }
}
