package dev.tracegate.agent.core;

import java.util.Collections;
import java.util.List;

/**
 * A data subject grants ({@code granted}) or withdraws consent for one or more purposes, seen at a configured method
 * (whose purpose parameter may be one value, a collection or an array of them).
 */
public record Consent(String session, String subject, List<String> purposes, boolean granted) {

    /** A consent for one purpose (null when the method gave none). */
    public Consent(String session, String subject, String purpose, boolean granted) {
        this(session, subject, Collections.singletonList(purpose), granted);
    }
}
