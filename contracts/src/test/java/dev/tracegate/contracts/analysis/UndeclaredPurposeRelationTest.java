package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code undeclared_purpose} holds when the event serves a purpose the policy does not declare, or none although the policy
 * declares some. So at an event without purposes (a user message, a reply, the end) it is true when the libraries declare
 * purposes and false when they declare none. The analysis had no policy and took the atom as free there: it missed dead
 * ends that the relation makes and reported some that need a user message where it is false. Given the libraries' policy
 * ({@code check} and the agent's background analysis pass it), it knows the relation. Each finding's witness is replayed
 * through the library's own monitor, which decides whether it is a dead end.
 */
class UndeclaredPurposeRelationTest {

    private static final DfaCompiler COMPILER = new DfaCompiler(20_000);

    private static final String DECLARED = """
            gdpr:
              purposes:
                support: [email]
              tools:
                send: [support]
            """;

    private static Library library(String policy, String contracts) {
        return Library.compile(List.of(LibraryReader.read("up.yaml", "library: up\n" + policy + "contracts:\n" + contracts)));
    }

    private static String contract(String id, String guarantee) {
        return "  - id: " + id + "\n    guarantee: '" + guarantee + "'\n    message: m\n";
    }

    /** The ids of the contracts that fail (FAIL) after the events, each replayed as it is (not refused). */
    private static List<String> failing(Library lib, Event... events) {
        Replay<Event> r = lib.replay("s");
        Replay.Step last = null;
        for (Event e : events) last = r.next(e, true, false);
        List<String> out = new ArrayList<>();
        for (int c = 0; c < lib.info().size(); c++) if (last.verdicts()[c] == Verdict.FAIL) out.add(lib.info().get(c).id());
        return out;
    }

    /** The ids of the contracts whose obligations the end leaves unmet after the events. */
    private static List<String> unmetAtEnd(Library lib, Event... events) {
        Replay<Event> r = lib.replay("s");
        for (Event e : events) r.next(e, true, false);
        return r.end().unmet().stream().map(EndReport.Obligation::contractId).toList();
    }

    @Test
    void withPurposesDeclaredAUserMessageServesAnUndeclaredOneSoAskingForItIsADeadEnd() {
        Library lib = library(DECLARED, contract("up.next-user", "G(call(t0) -> X user)")
                + contract("up.user-clean", "G(user -> !undeclared_purpose)"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER, lib.policy()).analyse(lib.contracts().contracts());
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("up.next-user", "up.user-clean");
        assertThat(found.get(0).witness()).containsExactly(List.of("call(t0)"));
        // without the policy: a user message without an undeclared purpose was a way out, and nothing was reported
        assertThat(new LibraryAnalysis(COMPILER).analyse(lib.contracts().contracts())).isEmpty();

        // the monitor: after the witness, the next user message fails up.user-clean, any other event up.next-user, and
        // ending there leaves up.next-user unmet
        Event call = Event.call("s", 1, "t0", "{}");
        assertThat(failing(lib, call)).isEmpty();
        assertThat(failing(lib, call, Event.user("s", 2, "hello"))).containsExactly("up.user-clean");
        assertThat(failing(lib, call, Event.assistant("s", 2, "done"))).containsExactly("up.next-user");
        assertThat(failing(lib, call, Event.call("s", 2, "send", "{}"))).containsExactly("up.next-user");
        assertThat(unmetAtEnd(lib, call)).containsExactly("up.next-user");
    }

    @Test
    void withNoPurposeDeclaredAUserMessageServesNoUndeclaredOne() {
        Library lib = library("", contract("up.next-user", "G(call(t0) -> X user)")
                + contract("up.user-flagged", "G(user -> undeclared_purpose)"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER, lib.policy()).analyse(lib.contracts().contracts());
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(found.get(0).witness()).containsExactly(List.of("call(t0)"));
        assertThat(new LibraryAnalysis(COMPILER).analyse(lib.contracts().contracts())).isEmpty();
        Event call = Event.call("s", 1, "t0", "{}");
        assertThat(failing(lib, call, Event.user("s", 2, "hello"))).containsExactly("up.user-flagged");
        assertThat(failing(lib, call, Event.assistant("s", 2, "done"))).containsExactly("up.next-user");
    }

    @Test
    void aDeadEndThatNeedsAUserMessageWithoutAnUndeclaredPurposeIsNoLongerReported() {
        Library lib = library(DECLARED, contract("up.after-clean-user", "G((user & !undeclared_purpose) -> X call(t0))")
                + contract("up.never-t0", "G !call(t0)"));
        List<LibraryAnalysis.Finding> before = new LibraryAnalysis(COMPILER).analyse(lib.contracts().contracts());
        assertThat(before).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(before.get(0).witness()).containsExactly(List.of("user"));
        // the witness replayed: a user message obliges nothing (it serves no declared purpose), so the session goes on and
        // ends with every contract kept: that dead end was false
        Event user = Event.user("s", 1, "hello");
        assertThat(failing(lib, user)).isEmpty();
        assertThat(failing(lib, user, Event.assistant("s", 2, "hi"))).isEmpty();
        assertThat(unmetAtEnd(lib, user, Event.assistant("s", 2, "hi"))).isEmpty();
        assertThat(new LibraryAnalysis(COMPILER, lib.policy()).analyse(lib.contracts().contracts())).isEmpty();
    }

    @Test
    void theRelationsFollowThePolicy() {
        var up = dev.tracegate.engine.ltl.Atom.of("undeclared_purpose");
        for (String kind : List.of("user", "assistant", "end", "user_matches(\"x\")", "output_matches(\"x\")")) {
            var a = (dev.tracegate.engine.ltl.Atom) dev.tracegate.engine.ltl.Parser.parse(kind);
            assertThat(AtomRelations.implies(a, up, true)).as(kind).isTrue();
            assertThat(AtomRelations.excludes(a, up, false)).as(kind).isTrue();
            assertThat(AtomRelations.implies(a, up, null) || AtomRelations.excludes(a, up, null)).as(kind).isFalse();
        }
        for (String kind : List.of("call", "call(send)", "return", "returned(send)", "consent", "erasure", "personal_data")) {
            var a = (dev.tracegate.engine.ltl.Atom) dev.tracegate.engine.ltl.Parser.parse(kind);
            assertThat(AtomRelations.implies(a, up, true) || AtomRelations.excludes(a, up, false)).as(kind).isFalse();
        }
    }
}
