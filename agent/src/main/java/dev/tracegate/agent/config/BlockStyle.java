package dev.tracegate.agent.config;

/** How a blocked tool call reaches the agent: as a thrown {@code TracegateViolation}, or as a substituted tool result. */
public enum BlockStyle {
    EXCEPTION,
    SUBSTITUTE
}
