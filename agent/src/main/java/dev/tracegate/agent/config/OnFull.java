package dev.tracegate.agent.config;

/** What an event's thread does when the audit queue is full: {@code audit.on-full}. */
public enum OnFull {
    /** Wait (spin, then park briefly) until the writer makes room: back-pressure, nothing lost. */
    BLOCK,
    /** Do not wait: count the record as dropped; a {@code dropped} record in the log says how many. */
    DROP
}
