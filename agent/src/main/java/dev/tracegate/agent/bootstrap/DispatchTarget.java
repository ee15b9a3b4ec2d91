package dev.tracegate.agent.bootstrap;

/**
 * The agent core as the bootstrap dispatcher sees it: JDK types only, implemented in the agent's
 * own class loader and installed with {@link Dispatcher#install}.
 *
 * <p>Called from host threads, concurrently; implementations must be thread-safe and must not
 * throw except {@link TracegateViolation} (the dispatcher applies the failure policy to anything else).
 */
public interface DispatchTarget {

    /** A tool call before it runs; null to proceed. */
    Ruling onToolCall(String framework, String session, String tool, String argumentsJson, String callId);

    /** A tool's result before the model sees it; null to keep it, else the text to hand over instead. */
    String onToolResult(String framework, String session, String tool, String callId, String resultText, boolean error);

    /** A framework-specific result object (reactive paths); null to keep, else the replacement object. */
    Object onToolResultObject(String framework, String session, String tool, String callId, Object result);

    /** A user message reaching the agent; null to keep, else the replacement text. */
    String onUserMessage(String framework, String session, String text);

    /** Model output; null to keep, else the replacement text; a block throws {@link TracegateViolation}. */
    String onAssistantMessage(String framework, String session, String text);

    /**
     * A configured method call ({@code origin} is "class#method"); null to proceed. {@code callId} is the invocation's
     * own ({@link Dispatcher#newCallId}): its RETURN or failure carries the same.
     */
    Ruling onMethodCall(String origin, Object[] arguments, String callId);

    /**
     * Whether a configured method that runs inside another supervised call on the same thread is supervised all
     * the same (its rule says {@code nested}, or it is a consent or erasure method); by default only the outermost
     * call is.
     */
    default boolean supervisesNested(String origin) {
        return false;
    }

    /**
     * Whether the future a refused call of the configured method at {@code origin} returns (it declares
     * {@code CompletableFuture}, {@code CompletionStage} or {@code Future}) may hold the refusal text as its value: its
     * value type can be a {@code String} and the call's refusal is a substitute, not an exception. False: the future fails.
     */
    default boolean futureTakesText(String origin) {
        return false;
    }

    /**
     * What a refused call of the configured method at {@code origin} (of class {@code owner}; null for a future) returns
     * instead of the text or a throw, when its declared result has a place for the refusal: a {@code Map} (the refusal
     * under {@code "error"}), a future of a {@code Map}, a Reactor {@code Mono} or RxJava 3 {@code Single}/{@code Maybe}
     * (one that emits the refusal, or fails with {@link TracegateViolation}). Null: the advice does as before (throws).
     */
    default Object refusedValue(String origin, Class<?> owner, Ruling refusal) {
        return null;
    }

    /**
     * A framework tool call ended by throwing, and the host gets the exception as it is (no model reads its text
     * there): report an error RETURN of {@code tool} with {@code text}; a contract that would withhold it can only
     * be logged. By default as any error RETURN.
     */
    default void onToolThrown(String framework, String session, String tool, String callId, String text) {
        onToolResult(framework, session, tool, callId, text, true);
    }

    /** The result of a configured method call (of the call with {@code callId}); null to keep, else the replacement. */
    Object onMethodResult(String origin, Object[] arguments, Object result, String callId);

    /**
     * The first entry of a configured Kotlin {@code suspend} method ({@code name(params..., Continuation): Object}) of class
     * {@code owner}: as {@link #onMethodCall} for its parameters without the trailing continuation; a call that goes on is
     * given a REWRITE whose values end with the continuation the method is to run with (one that checks the call's value
     * when the caller's is resumed with it). By default as any configured method.
     */
    default Ruling onSuspendCall(String origin, Class<?> owner, Object[] arguments, String callId) {
        return onMethodCall(origin, arguments, callId);
    }

    /**
     * The value a configured {@code suspend} method returned without suspending: what its caller gets (the value, a
     * notice for a String function), or a {@link TracegateViolation} to throw. By default the value or its replacement.
     */
    default Object onSuspendResult(String origin, Object[] arguments, Object result, String callId) {
        Object replacement = onMethodResult(origin, arguments, result, callId);
        return replacement == null ? result : replacement;
    }

    /** A configured method ended by throwing {@code thrown}: report it as an error RETURN; the host rethrows it either way. */
    default void onMethodThrown(String origin, Object[] arguments, Throwable thrown, String callId) {
    }

    /**
     * The same five events of a configured method called on {@code receiver}, the object it is called on (null for a static
     * method), which an entry's {@code this} reads ({@code args-param: this}, {@code session-param: this.conversation.id},
     * {@code tool-name: this.name}). By default without it.
     */
    default Ruling onMethodCall(String origin, Object receiver, Object[] arguments, String callId) {
        return onMethodCall(origin, arguments, callId);
    }

    default Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        return onMethodResult(origin, arguments, result, callId);
    }

    default Ruling onSuspendCall(String origin, Class<?> owner, Object receiver, Object[] arguments, String callId) {
        return onSuspendCall(origin, owner, arguments, callId);
    }

    default Object onSuspendResult(String origin, Object receiver, Object[] arguments, Object result, String callId) {
        return onSuspendResult(origin, arguments, result, callId);
    }

    default void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, String callId) {
        onMethodThrown(origin, arguments, thrown, callId);
    }

    /**
     * The call, result and failure of a configured method whose id the advice generated as a number ({@code tg-callNumber},
     * {@link Dispatcher#newCallNumber}): a core that keeps the number makes no String of the id on a passed call. By
     * default with the id spelled out.
     */
    default Ruling onMethodCall(String origin, Object receiver, Object[] arguments, long callNumber) {
        return onMethodCall(origin, receiver, arguments, Dispatcher.callId(callNumber));
    }

    default Object onMethodResult(String origin, Object receiver, Object[] arguments, Object result, long callNumber) {
        return onMethodResult(origin, receiver, arguments, result, Dispatcher.callId(callNumber));
    }

    default void onMethodThrown(String origin, Object receiver, Object[] arguments, Throwable thrown, long callNumber) {
        onMethodThrown(origin, receiver, arguments, thrown, Dispatcher.callId(callNumber));
    }

    /**
     * The session id the core gives a framework's conversation {@code session} on this thread (in a JVM of several
     * applications, the application's: {@code core.Applications#session}); by default {@code session} itself. Must not
     * allocate on a steady path: a model call asks it.
     */
    default String sessionId(String session) {
        return session;
    }

    /**
     * A warning an instrumentation found worth saying, once, to the operator (its caller says each only once): written
     * as the agent's {@code WARN} line.
     */
    default void onWarning(String text) {
    }

    /** Serialises a JDK value (maps, lists, strings, numbers, booleans) to JSON. */
    String toJson(Object value);

    /** Parses JSON into JDK values (LinkedHashMap, ArrayList, String, Number, Boolean). */
    Object fromJson(String json);

    /** Maps an internal error to the configured failure policy: null (fail open) or a Ruling (fail closed). */
    Ruling onInternalError(String where, Throwable error);

    /**
     * Inlined advice failed outside the dispatcher: an internal error like {@link #onInternalError}, counted every time;
     * {@code repeated} says the same failure (place and error class) was reported before, so it need not be logged again.
     */
    default Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
        return onInternalError(where, error);
    }
}
