package dev.tracegate.agent.bootstrap;

import java.util.function.Function;

/**
 * Reports a reactive tool call's error signal as the tool's error RETURN; passes on the same throwable, or a
 * {@link TracegateViolation} carrying the notice when a contract withholds that result (its message is what would reach the model).
 */
public final class ErrorHook implements Function<Throwable, Throwable> {
    private final String framework;
    private final String session;
    private final String tool;
    private final String callId;

    ErrorHook(String framework, String session, String tool, String callId) {
        this.framework = framework;
        this.session = session;
        this.tool = tool;
        this.callId = callId;
    }

    @Override
    public Throwable apply(Throwable error) {
        String notice = Dispatcher.onToolResult(framework, session, tool, callId, Dispatcher.thrownText(error), true);
        return notice == null ? error : new TracegateViolation(notice);
    }
}
