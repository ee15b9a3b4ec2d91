package dev.tracegate.agent.supervision;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/** An escalation approver for tests: allows every call and keeps each request it was asked. */
public final class CountingApprover {
    /** The requests asked so far, in order (clear it before a test). */
    public static final List<Map<String, String>> ASKED = new CopyOnWriteArrayList<>();

    public CountingApprover() {}

    /** For each request, whether a tool call the approver made would have been supervised (it must not: it would wait for the session). */
    public static final List<Boolean> SUPERVISED_INSIDE = new CopyOnWriteArrayList<>();

    public boolean approve(Map<String, String> request) {
        boolean outer = dev.tracegate.agent.bootstrap.Dispatcher.enter();
        dev.tracegate.agent.bootstrap.Dispatcher.exit();
        SUPERVISED_INSIDE.add(outer || dev.tracegate.agent.bootstrap.Dispatcher.supervisesNested("any"));
        ASKED.add(Map.copyOf(request));
        return true;
    }
}
