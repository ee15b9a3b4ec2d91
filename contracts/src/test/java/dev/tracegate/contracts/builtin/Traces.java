package dev.tracegate.contracts.builtin;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;

import java.util.ArrayList;
import java.util.List;

/** Small helpers to write a session as a list of events and replay it against libraries. */
final class Traces {
    private Traces() {}

    static Library load(String policyYaml, String... builtins) {
        List<dev.tracegate.contracts.library.LibrarySpec> specs = new ArrayList<>();
        for (String b : builtins) specs.add(Library.read(b, null));
        if (policyYaml != null) specs.add(LibraryReader.read("policy.yaml", policyYaml));
        return Library.compile(specs);
    }

    /** One decision per event, as "KIND" or "KIND:contract-id,..." (PASS stays "PASS"). */
    static List<String> replay(Library lib, List<Event> events) {
        Replay<Event> r = lib.replay("s");
        List<String> out = new ArrayList<>();
        for (Event e : events) {
            Replay.Step step = r.next(e, e.controlledByAgent(), true);
            StringBuilder b = new StringBuilder(step.decision().name());
            if (step.decision() != Decision.Kind.PASS) {
                b.append(':');
                for (int i = 0; i < step.contracts().length; i++) {
                    if (i > 0) b.append(',');
                    b.append(lib.info().get(step.contracts()[i]).id());
                }
            }
            out.add(b.toString());
        }
        return out;
    }

    static Event user(String text) { return Event.user("s", 0, text); }

    static Event call(String tool, String json) { return Event.call("s", 0, tool, json); }

    static Event ok(String tool, String result) { return Event.returned("s", 0, tool, result, false); }

    static Event assistant(String text) { return Event.assistant("s", 0, text); }

    static Event consent(String subject, String purpose, boolean granted) {
        return Event.builder(EventKind.CONSENT).session("s").subject(subject).purposes(purpose).granted(granted).build();
    }

    static Event erasure(String subject) {
        return Event.builder(EventKind.ERASURE).session("s").subject(subject).build();
    }
}
