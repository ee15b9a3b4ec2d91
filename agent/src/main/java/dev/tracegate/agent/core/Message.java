package dev.tracegate.agent.core;

/** A user message reaching the agent or model output leaving it, as text. */
public record Message(String framework, String session, String text) {
}
