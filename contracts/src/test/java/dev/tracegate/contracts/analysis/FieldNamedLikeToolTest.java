package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial21 (10): {@code G(call(pay) -> !(arg(pay) > 100))} (arg(pay, amount) meant) loaded and checked silently, and the
 * cap never acts: arg(pay) reads an argument field named pay, absent from every call. check now notes such an atom.
 */
class FieldNamedLikeToolTest {

    private static Library lib(String guarantee) {
        return Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: wa\ncontracts:\n  - id: wa.cap\n    guarantee: '" + guarantee + "'\n    message: m\n")));
    }

    @Test
    void aFieldNamedLikeAToolOfTheLibraryIsNoted() {
        Library lib = lib("G(call(pay) -> !(arg(pay) > 100))");
        assertThat(LibraryNotes.notes(lib)).filteredOn(n -> n.startsWith("arg(pay) > 100 reads the argument field 'pay'"))
                .singleElement().asString().contains("did you mean arg(pay, <field>)");
        // what the note says, checked with the monitor: a pay of 5000 is not refused
        var replay = lib.replay("s");
        assertThat(replay.next(Event.call("s", 1, "pay", "{\"amount\":5000}"), true, true).decision()).isNotEqualTo(Decision.Kind.VIOLATION);
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> len(arg(pay)) < 10)"))).anyMatch(n -> n.contains("field 'pay'"));
    }

    @Test
    void aFieldThatIsNoToolOrThatTheLibraryReadsAsAFieldIsNotNoted() {
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> !(arg(amount) > 100))"))).noneMatch(n -> n.contains("reads the argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> !(arg(pay, amount) > 100))"))).noneMatch(n -> n.contains("reads the argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(transfer) -> arg(transfer, pay) < 5 & arg(pay) < 5) & G !call(pay)")))
                .as("pay is also read as a field").noneMatch(n -> n.contains("reads the argument field"));
    }
}
