package dev.tracegate.agent.bootstrap;

import java.util.function.Function;

/** Reports a reactive tool result to the dispatcher and passes on what it answers (the result, or a withheld notice). */
public final class ResultHook implements Function<Object, Object> {
    private final String framework;
    private final String session;
    private final String tool;
    private final String callId;

    ResultHook(String framework, String session, String tool, String callId) {
        this.framework = framework;
        this.session = session;
        this.tool = tool;
        this.callId = callId;
    }

    @Override
    public Object apply(Object result) {
        return Dispatcher.onToolResultObject(framework, session, tool, callId, result);
    }
}
