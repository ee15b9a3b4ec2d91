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

    private static Library lib(String assume, String guarantee) {
        return Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: wa\ncontracts:\n  - id: wa.cap\n    assume: '" + assume + "'\n    guarantee: '" + guarantee + "'\n    message: m\n")));
    }

    /**
     * What the note says a contract then does accounts for its assumption (before, it read the guarantee alone): a
     * contract acts only while its assumption holds, and a call of the agent that breaks it leaves the contract idle.
     * Each claim is checked with the library's monitor.
     */
    @Test
    void whatTheContractThenDoesAccountsForItsAssumption() {
        // an assumption the agent can break: refunds are refused only until then
        Library breakable = lib("G !call(override)", "G(call(refund) -> arg(refund.amount) <= 100)");
        assertThat(LibraryNotes.notes(breakable)).filteredOn(n -> n.startsWith("arg(refund.amount) <= 100 reads the nested argument field"))
                .singleElement().asString().contains("contract wa.cap then refuses every call of refund as long as its assumption"
                        + " (assume: G !call(override)) holds (a tool result or user message that would break it is withheld; a call or"
                        + " answer of the agent that breaks it leaves the contract idle for the rest of the session)");
        var replay = breakable.replay("s");
        assertThat(replay.next(Event.call("s", 1, "refund", "{\"amount\":50}"), true, true).decision()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(replay.next(Event.call("s", 2, "override", "{}"), true, true).decision()).isEqualTo(Decision.Kind.PASS);
        assertThat(replay.next(Event.call("s", 3, "refund", "{\"amount\":50}"), true, true).decision())
                .as("the assumption is broken: the contract is idle").isEqualTo(Decision.Kind.PASS);

        // an assumption every call of refund breaks itself: no refund is refused
        Library self = lib("G !call(refund)", "G(call(refund) -> arg(refund.amount) <= 100)");
        assertThat(LibraryNotes.notes(self)).filteredOn(n -> n.startsWith("arg(refund.amount) <= 100 reads the nested argument field"))
                .singleElement().asString().contains("contract wa.cap then acts as though it were false at every call")
                .contains("no call of refund: each one breaks its assumption (assume: G !call(refund)), which leaves the contract idle")
                .doesNotContain("refuses every call");
        assertThat(self.replay("s").next(Event.call("s", 1, "refund", "{\"amount\":50}"), true, true).decision()).isEqualTo(Decision.Kind.PASS);

        // the atom in the assumption only: every refund breaks it, and the guarantee no longer acts after one
        Library inAssume = lib("G(call(refund) -> arg(refund.amount) <= 100)", "G !call(wire)");
        assertThat(LibraryNotes.notes(inAssume)).filteredOn(n -> n.startsWith("arg(refund.amount) <= 100 reads the nested argument field"))
                .singleElement().asString().contains("every call of refund then breaks contract wa.cap's assumption (assume:"
                        + " G(call(refund) -> arg(refund.amount) <= 100)), which leaves the contract idle for the rest of the session");
        var r = inAssume.replay("s");
        assertThat(r.next(Event.call("s", 1, "wire", "{}"), true, true).decision()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(r.next(Event.call("s", 2, "refund", "{\"amount\":50}"), true, true).decision()).isEqualTo(Decision.Kind.PASS);
        assertThat(r.next(Event.call("s", 3, "wire", "{}"), true, true).decision()).as("idle after the refund").isEqualTo(Decision.Kind.PASS);

        // an assumption only a tool result can break (withheld by an enforcing agent): said too, with what withholds it
        assertThat(LibraryNotes.notes(lib("G !returned(fetch)", "G(call(refund) -> arg(refund.amount) <= 100)")))
                .anyMatch(n -> n.contains("refuses every call of refund as long as its assumption (assume: G !returned(fetch)) holds"));
    }

    @Test
    void aFieldNamedLikeAToolOfTheLibraryIsNoted() {
        Library lib = lib("G(call(pay) -> !(arg(pay) > 100))");
        assertThat(LibraryNotes.notes(lib)).filteredOn(n -> n.startsWith("arg(pay) > 100 reads the argument field 'pay'"))
                .singleElement().asString().contains("did you mean arg(pay, <field>)")
                .contains("contract wa.cap then never acts").doesNotContain("refuses");
        // what the note says, checked with the monitor: a pay of 5000 is not refused
        var replay = lib.replay("s");
        assertThat(replay.next(Event.call("s", 1, "pay", "{\"amount\":5000}"), true, true).decision()).isEqualTo(Decision.Kind.PASS);
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> len(arg(pay)) < 10)"))).anyMatch(n -> n.contains("field 'pay'"));
    }

    @Test
    void aFieldThatIsNoToolOrThatTheLibraryReadsAsAFieldIsNotNoted() {
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> !(arg(amount) > 100))"))).noneMatch(n -> n.contains("reads the argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(pay) -> !(arg(pay, amount) > 100))"))).noneMatch(n -> n.contains("reads the argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(transfer) -> arg(transfer, pay) < 5 & arg(pay) < 5) & G !call(pay)")))
                .as("pay is also read as a field").noneMatch(n -> n.contains("reads the argument field"));
    }

    /**
     * trial24 (02): {@code arg(refund.amount) <= 100} (arg(refund, amount) meant) loaded with no note, and online refused
     * every refund, a refund of 50 included. check notes the dotted form and says what the contract then does, in the
     * position the atom is in; the monitor confirms it.
     */
    @Test
    void aDottedFieldWhoseFirstSegmentIsAToolIsNotedWithWhatTheContractThenDoes() {
        Library lib = lib("G(call(refund) -> arg(refund.amount) <= 100)");
        assertThat(LibraryNotes.notes(lib)).filteredOn(n -> n.startsWith("arg(refund.amount) <= 100 reads the nested argument field 'refund.amount'"))
                .singleElement().asString().contains("did you mean arg(refund, amount) <= 100")
                .contains("contract wa.cap then refuses every call of refund").doesNotContain("never acts");
        var replay = lib.replay("s");
        assertThat(replay.next(Event.call("s", 1, "refund", "{\"orderId\":\"A1\",\"amount\":50}"), true, true).decision())
                .as("a refund of 50 is refused, as the note says").isEqualTo(Decision.Kind.BLOCK);

        // the one-argument form in the same position: the existing note now says the contract refuses, not "would not act"
        Library whole = lib("G(call(refund) -> arg(refund) <= 100)");
        assertThat(LibraryNotes.notes(whole)).filteredOn(n -> n.startsWith("arg(refund) <= 100 reads the argument field 'refund'"))
                .singleElement().asString().contains("did you mean arg(refund, <field>)")
                .contains("contract wa.cap then refuses every call of refund");
        assertThat(whole.replay("s").next(Event.call("s", 1, "refund", "{\"amount\":50}"), true, true).decision())
                .isEqualTo(Decision.Kind.BLOCK);

        // the dotted form where it cannot act: !(arg(pay.amount) > 100) holds at every call
        Library never = lib("G(call(pay) -> !(arg(pay.amount) > 100))");
        assertThat(LibraryNotes.notes(never)).filteredOn(n -> n.startsWith("arg(pay.amount) > 100 reads the nested argument field"))
                .singleElement().asString().contains("did you mean arg(pay, amount) > 100").contains("contract wa.cap then never acts");
        assertThat(never.replay("s").next(Event.call("s", 1, "pay", "{\"amount\":5000}"), true, true).decision())
                .isEqualTo(Decision.Kind.PASS);

        // other one-argument forms and len
        assertThat(LibraryNotes.notes(lib("G(call(refund) -> len(arg(refund.reason)) < 10)")))
                .anyMatch(n -> n.contains("did you mean len(arg(refund, reason)) < 10"));
        assertThat(LibraryNotes.notes(lib("G(call(refund) -> !arg_matches(refund.reason, \"x\"))")))
                .anyMatch(n -> n.contains("did you mean arg_matches(refund, reason, \"x\")"));
    }

    @Test
    void aDottedFieldWhoseFirstSegmentIsNoToolOrIsReadAsAFieldIsNotNoted() {
        assertThat(LibraryNotes.notes(lib("G(call(refund) -> arg(order.amount) <= 100)"))).noneMatch(n -> n.contains("argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(refund) -> arg(refund, amount) <= 100)"))).noneMatch(n -> n.contains("argument field"));
        assertThat(LibraryNotes.notes(lib("G(call(order) -> arg(order, refund.amount) <= 5 & arg(refund.amount) <= 5) & G !call(refund)")))
                .as("refund is also the head of a field read by arg(order, refund.amount)").noneMatch(n -> n.contains("argument field"));
    }
}
