package dev.tracegate.agent.core;

import java.lang.instrument.Instrumentation;

/**
 * A premain for forked test JVMs that have the agent's classes on their class path: starts the agent core as the
 * launcher would, without the shaded jar (which the agent module's tests run before).
 */
public final class ForkedPremain {
    private ForkedPremain() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        AgentCore.start(arguments, instrumentation, false, null);
    }
}
