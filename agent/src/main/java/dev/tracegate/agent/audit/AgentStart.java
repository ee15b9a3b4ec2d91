package dev.tracegate.agent.audit;

/**
 * How the agent started in this JVM, which the audit log's segment headers written after it name ({@code "start"}:
 * {@code "premain"} for {@code -javaagent}, {@code "attach"} for an agent attached to a running JVM, whose log holds
 * nothing of what the application did before). Unset (a writer used by a command or a test), headers leave it out.
 */
public final class AgentStart {
    private static volatile String how;

    private AgentStart() {
    }

    /** Records how the agent started; called once by the agent core before it opens the audit log. */
    public static void record(boolean attached) {
        how = attached ? "attach" : "premain";
    }

    /** {@code "premain"}, {@code "attach"}, or null when no agent start was recorded. */
    static String how() {
        return how;
    }
}
