package dev.tracegate.agent.core;

/** A data subject's erasure request, seen at a configured method. */
public record Erasure(String session, String subject) {
}
