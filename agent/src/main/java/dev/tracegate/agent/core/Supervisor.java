package dev.tracegate.agent.core;

/**
 * The decision maker behind every hook: the agent turns what it intercepts into these calls and
 * enforces the answers (the contract engine implements it; {@code rules.RuleSupervisor} is a
 * fixed-rule stand-in for tests and demos).
 *
 * <p>Called concurrently from host threads, possibly for the same session. Implementations must be
 * thread-safe, fast (the tool waits), and should not throw: an exception is an internal error,
 * counted and mapped to the failure policy ({@code fail=closed|open}).
 */
public interface Supervisor {

    /** A CALL event: before the tool runs. */
    ToolDecision onToolCall(ToolCall call);

    /** A RETURN event: before the model sees the result. */
    ResultDecision onToolResult(ToolResult result);

    /**
     * {@link #onToolCall(ToolCall)} for a call whose arguments are a tree already (a configured method's), given field by
     * field: an implementation that makes the {@link ToolCall} only when a decision needs it saves the object on a passed
     * call (40 B of the 736 a passed configured call allocated, session 21).
     */
    default ToolDecision onToolCall(String framework, String session, String tool, String callId, dev.tracegate.matchers.event.Args arguments,
                                    CallReach reach) {
        return onToolCall(new ToolCall(framework, session, tool, null, callId, arguments, reach));
    }

    /**
     * As {@link #onToolCall(String, String, String, String, dev.tracegate.matchers.event.Args, CallReach)}, for a call whose
     * id the agent generated ({@code tg-callNumber}): an implementation that keeps the number makes no String of the id on
     * a passed call (88 B, session 24).
     */
    default ToolDecision onToolCall(String framework, String session, String tool, long callNumber, dev.tracegate.matchers.event.Args arguments,
                                    CallReach reach) {
        return onToolCall(framework, session, tool, dev.tracegate.matchers.event.Event.generatedId(callNumber), arguments, reach);
    }

    /** As {@link #onToolResult(String, String, String, String, String, boolean, String)}, for a call whose id the agent generated. */
    default ResultDecision onToolResult(String framework, String session, String tool, long callNumber, String text, boolean error,
                                        String cannotWithhold) {
        return onToolResult(framework, session, tool, dev.tracegate.matchers.event.Event.generatedId(callNumber), text, error, cannotWithhold);
    }

    /**
     * {@link #onToolResult(ToolResult)} for a result the contracts alone decide on (nothing {@code withheld}), given field by
     * field, so that an implementation needs no {@link ToolResult} (48 B a passed call, session 21).
     */
    default ResultDecision onToolResult(String framework, String session, String tool, String callId, String text, boolean error,
                                        String cannotWithhold) {
        return onToolResult(new ToolResult(framework, session, tool, callId, text, error, cannotWithhold, null));
    }

    /** A USER event. Only KEEP or REPLACE (a withheld notice) apply to user input. */
    MessageDecision onUserMessage(Message message);

    /** An ASSISTANT event (model output text). */
    MessageDecision onAssistantMessage(Message message);

    /**
     * A CONSENT event from a configured method; its session is null when it belongs to no conversation (a method without
     * {@code session-param} called outside any): it then only reaches the register of the data subjects.
     */
    default void onConsent(Consent consent) {
    }

    /** An ERASURE event from a configured method; its session is null as for {@link #onConsent}. */
    default void onErasure(Erasure erasure) {
    }

    /** Whether a session of this id is open now (a consent or erasure without a session id may belong to it). Rare path. */
    default boolean sessionOpen(String sessionId) {
        return false;
    }

    /**
     * The ids of the loaded contracts that read {@code erasure} (else {@code consent}) as an event of the session (the
     * atom without arguments), which a consent or erasure that belongs to no session never reaches. Rare path.
     */
    default java.util.List<String> sessionEventReaders(boolean erasure) {
        return java.util.List.of();
    }

    /**
     * An internal error of the agent outside this supervisor (in the bridge: argument conversion, result
     * rebuilding), already decided by the failure policy: {@code refused} under {@code fail=closed}. For
     * counting; must not throw.
     */
    default void onInternalError(String where, Throwable error, boolean refused) {
    }

    /** END of a session (explicit, idle timeout or JVM shutdown); {@code "*"} at shutdown ends all sessions. */
    void endSession(String sessionId);
}
