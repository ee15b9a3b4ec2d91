package dev.tracegate.agent.config;

/** How the audit log writes personal data (argument values, results, texts, subjects): {@code audit.personal-data}. */
public enum PersonalData {
    /** Salted SHA-256 per log segment, or HMAC-SHA256 when {@code audit.hmac-key} is set. */
    HASHED,
    /** As is. */
    CLEAR
}
