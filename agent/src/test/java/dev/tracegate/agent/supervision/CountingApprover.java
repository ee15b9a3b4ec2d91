package dev.tracegate.agent.supervision;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An escalation approver for tests: allows every call and keeps each request it was asked. */
public final class CountingApprover {
    /** The requests asked so far, in order (clear it before a test). */
    public static final List<Map<String, String>> ASKED = new CopyOnWriteArrayList<>();

    public CountingApprover() {}

    public boolean approve(Map<String, String> request) {
        ASKED.add(Map.copyOf(request));
        return true;
    }
}
