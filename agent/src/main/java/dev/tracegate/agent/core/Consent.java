package dev.tracegate.agent.core;

/** A data subject grants ({@code granted}) or withdraws consent for a purpose, seen at a configured method. */
public record Consent(String session, String subject, String purpose, boolean granted) {
}
