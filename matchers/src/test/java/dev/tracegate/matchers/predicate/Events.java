package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

/** Short event constructors for tests. */
final class Events {
    private static long seq;

    private Events() {}

    static Event call(String tool, String json) { return Event.call("s", ++seq, tool, json); }

    static Event ret(String tool, String result) { return Event.returned("s", ++seq, tool, result, false); }

    static Event failed(String tool, String result) { return Event.returned("s", ++seq, tool, result, true); }

    static Event user(String text) { return Event.user("s", ++seq, text); }

    static Event assistant(String text) { return Event.assistant("s", ++seq, text); }

    static Event consent(String subject, boolean granted, String... purposes) {
        return Event.builder(EventKind.CONSENT).session("s").seq(++seq).subject(subject).purposes(purposes).granted(granted).build();
    }

    static Event erasure(String subject) {
        return Event.builder(EventKind.ERASURE).session("s").seq(++seq).subject(subject).build();
    }

    static Event end() { return Event.builder(EventKind.END).session("s").seq(++seq).build(); }
}
