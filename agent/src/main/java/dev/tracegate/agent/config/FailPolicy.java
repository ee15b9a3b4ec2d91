package dev.tracegate.agent.config;

/** What the supervisor does when it cannot decide (an internal error, an audit log that cannot be written): {@code fail: closed|open}. */
public enum FailPolicy {
    /** Refuse the event: safety first. */
    CLOSED,
    /** Let the event pass: availability first; every such case is counted. */
    OPEN
}
