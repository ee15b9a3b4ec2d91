package dev.tracegate.agent.config;

/** Whether the agent prints every decision on standard error as it is made, with a summary at exit ({@code live}), or not ({@code off}). */
public enum View {
    OFF,
    LIVE
}
