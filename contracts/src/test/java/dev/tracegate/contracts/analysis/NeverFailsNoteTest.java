package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial36 (06): check noted "never acts" only for a guarantee valid on every trace of atoms, not for G !(call(a) &
 * call(b)) or G(call(a) -> !user), which hold because one event is one call of one tool (the consistency check already
 * knew: F(call(a) & call(b)) is INCONSISTENT), nor for assume F user / guarantee F user, which can never be FAIL.
 */
class NeverFailsNoteTest {

    private static final String LIB = "library: v\ncontracts:\n"
            + "  - id: v.excl\n    guarantee: G !(call(a) & call(b))\n    message: m\n"
            + "  - id: v.excl2\n    guarantee: G(call(a) -> !user)\n    message: m\n"
            + "  - id: v.agg\n    assume: F user\n    guarantee: F user\n    message: m\n"
            + "  - id: v.acts\n    guarantee: G !call(a)\n    message: m\n"
            + "  - id: v.acts-assumed\n    assume: F user\n    guarantee: G !call(b)\n    message: m\n"
            + "  - id: v.response\n    guarantee: G(call(a) -> F returned(b))\n    message: m\n";

    @Test
    void aContractThatCanNeverFailIsNotedAndOneThatCanIsNot() {
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml", LIB)));
        List<String> notes = LibraryNotes.notes(lib);
        for (String id : List.of("v.excl", "v.excl2", "v.agg")) {
            assertThat(notes).as(id).anyMatch(n -> n.contains("contract " + id + " can never fail") && n.contains("never acts"));
        }
        assertThat(notes.stream().filter(n -> n.contains("that keeps its assumption"))).singleElement().asString().contains("v.agg");
        for (String id : List.of("v.acts", "v.acts-assumed", "v.response")) {
            assertThat(notes).as(id).noneMatch(n -> n.contains("contract " + id + " can never fail"));
        }
        // as the monitor has it: a call of a is refused by v.acts, and a user message after it fails nothing
        Replay<Event> r = lib.replay("s");
        assertThat(r.next(Event.call("s", 2, "a", "{}"), true, true).decision()).isEqualTo(Decision.Kind.BLOCK);   // v.acts
        assertThat(r.next(Event.user("s", 3, "hi"), false, true).decision()).isNotEqualTo(Decision.Kind.VIOLATION);
    }
}
