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
 * trial42 (05): {@code G(assistant & personal_data -> consented)} never acts, since {@code consented} is true at an event
 * without purposes and a reply has none, yet check noted nothing: the analysis took {@code consented} as free at every
 * event. It now knows at which kinds of events {@code consented} can be false (those that carry purposes: calls, results,
 * consents), so each use read only where it holds is noted, with {@code consent(p)} to write instead; a use that a call
 * or result can make false is not. Each case checked with the monitor.
 */
class ConsentedNoteTest {

    private static final String LIB = """
            library: pd
            gdpr:
              purposes:
                support: [email]
              consent-purposes: [support]
              tools:
                send: [support]
            contracts:
              - id: pd.reply
                guarantee: G(assistant & personal_data -> consented)
                message: m
              - id: pd.user
                guarantee: G(user_matches("mail") -> consented)
                message: m
              - id: pd.partly
                guarantee: G(assistant -> consented) & G !call(wipe)
                message: m
              - id: pd.call
                guarantee: G(call(send) -> consented)
                message: m
              - id: pd.either
                guarantee: G((assistant | call(send)) -> consented)
                message: m
              - id: pd.meant
                guarantee: G(assistant & personal_data -> consent(support))
                message: m
            """;

    @Test
    void aUseOfConsentedWhereItIsAlwaysTrueIsNotedWithConsentOfThePurpose() {
        Library lib = Library.compile(List.of(LibraryReader.read("pd.yaml", LIB)));
        List<String> notes = LibraryNotes.notes(lib);
        assertThat(notes).filteredOn(n -> n.contains("contract pd.reply ")).singleElement().asString()
                .contains("reads consented where it is always true").contains("can never fail and never acts")
                .contains("write consent(support): G ((assistant & personal_data) -> consent(support))");
        assertThat(notes).filteredOn(n -> n.contains("contract pd.user ")).singleElement().asString()
                .contains("reads consented where it is always true").contains("never acts");
        // the contract acts (it refuses wipe), so the note says what the use does, not that it never acts
        assertThat(notes).filteredOn(n -> n.contains("contract pd.partly ")).singleElement().asString()
                .contains("acts as though consented were true there").doesNotContain("never acts")
                .contains("G (assistant -> consent(support)) & G !call(wipe)");
        for (String id : List.of("pd.call", "pd.either", "pd.meant")) {
            assertThat(notes).as(id).noneMatch(n -> n.contains("contract " + id + " "));
        }

        // as the monitor has it: a reply with an address before any consent passes pd.reply and fails pd.meant ...
        Replay<Event> r = lib.replay("s");
        Replay.Step reply = r.next(Event.assistant("s", 1, "Your email is ann@example.com"), true, true);
        List<String> fired = java.util.Arrays.stream(reply.contracts()).mapToObj(c -> lib.info().get(c).id()).toList();
        assertThat(fired).contains("pd.meant").doesNotContain("pd.reply", "pd.partly", "pd.either");
        // ... and a call of send, whose purpose rests on consent, fails those whose consented a call reads
        Replay<Event> r2 = lib.replay("s2");
        Replay.Step call = r2.next(Event.call("s2", 1, "send", "{\"to\":\"ann@example.com\"}"), true, true);
        assertThat(call.decision()).isNotEqualTo(Decision.Kind.PASS);
        assertThat(java.util.Arrays.stream(call.contracts()).mapToObj(c -> lib.info().get(c).id()).toList()).contains("pd.call", "pd.either");
    }

    @Test
    void consentedIsTrueWhereNoPurposeIsCarried() {
        var consented = dev.tracegate.engine.ltl.Atom.of("consented");
        for (String kind : List.of("assistant", "user", "end", "user_matches(\"x\")", "output_matches(\"x\")")) {
            assertThat(AtomRelations.implies((dev.tracegate.engine.ltl.Atom) dev.tracegate.engine.ltl.Parser.parse(kind), consented))
                    .as(kind).isTrue();
        }
        for (String kind : List.of("call", "call(send)", "return", "returned(send)", "erasure", "personal_data")) {
            assertThat(AtomRelations.implies((dev.tracegate.engine.ltl.Atom) dev.tracegate.engine.ltl.Parser.parse(kind), consented))
                    .as(kind).isFalse();
        }
    }
}
