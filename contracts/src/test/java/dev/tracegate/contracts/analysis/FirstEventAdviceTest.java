package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * check's note for a contract that a first user message or result already makes FAIL advised a call guard for an
 * argument ({@code G(call(T) -> arg(T, f) <= n)}) whatever the guarantee was: also for {@code G(count(refund) >= 1)},
 * which no guard mends (the count is 0 when a session starts), and for {@code G(!result_matches("ok"))} (trial21
 * leftover). The advice now fits the atoms that decide the failure, or there is none.
 */
class FirstEventAdviceTest {

    private static final String HEAD = "lib.yaml:3: contract t.a fails at a first user message 'hello', which tracegate cannot"
            + " refuse, so it is violated at the start of a session and then acts on nothing";

    private static Map<Integer, String> firstEvent(String guarantee) {
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: t\ncontracts:\n  - id: t.a\n    guarantee: " + guarantee + "\n    message: m\n")));
        return LibraryNotes.failsOnFirstEvent(lib);
    }

    private static String note(String guarantee) {
        Map<Integer, String> notes = firstEvent(guarantee);
        assertThat(notes).as(guarantee).hasSize(1);
        return notes.get(0);
    }

    @Test
    void aCountThatASessionStartsBelowGetsTheObligationNotAGuard() {
        assertThat(note("G(count(refund) >= 1)")).isEqualTo(HEAD + "; count(refund) >= 1 is false before the first call of refund"
                + " (count, run and sum are 0 when a session starts), and G asks for it from the first event on; for a number to"
                + " reach by the end of the session put it under F: F(count(refund) >= 1) (replay and the session's end record"
                + " report it unmet if the session ends short of it); a cap is G(count(refund) <= n) (docs/FORMULAS.md)");
        // the count that decides it is named, not the cap beside it
        assertThat(note("G(count(refund) <= 3 & count(approve) == 2)")).contains("count(approve) == 2 is false before the first"
                + " call of approve").contains("F(count(approve) == 2)").doesNotContain("arg(T, f)");
        assertThat(note("G(sum(pay, amount) > 0)")).contains("sum(pay, amount) > 0 is false before the first call of pay")
                .doesNotContain("arg(T, f)");
        // the advised formulas: a session that starts with a user message no longer fails them
        assertThat(firstEvent("F(count(refund) >= 1)")).isEmpty();
        assertThat(firstEvent("G(count(refund) <= 3)")).isEmpty();
    }

    @Test
    void anArgumentWithoutItsGuardKeepsTheGuardAdviceAndOtherShapesGetNone() {
        // the case the advice was written for
        assertThat(note("G(arg(wire_money, amount) <= 50)")).isEqualTo(HEAD + "; a guarantee usually needs its call as a guard:"
                + " G(call(T) -> arg(T, f) <= n), not G(arg(T, f) <= n) (docs/FORMULAS.md)");
        assertThat(firstEvent("G(call(wire_money) -> arg(wire_money, amount) <= 50)")).isEmpty();
        assertThat(note("G(since(returned(verify)) <= 3)")).isEqualTo(HEAD + "; since(returned(verify)) <= 3 is false until its"
                + " condition first holds (since is infinite before), so it needs the call it is about as a guard:"
                + " G(call(T) -> since(returned(verify)) <= 3) (docs/FORMULAS.md)");
        assertThat(note("G call(a)")).isEqualTo(HEAD);
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: t\ncontracts:\n  - id: t.a\n    guarantee: G(!result_matches(\"ok\"))\n    message: m\n")));
        assertThat(LibraryNotes.failsOnFirstEvent(lib).get(0)).endsWith("fails at a first result 'ok' of a tool no contract names,"
                + " which tracegate cannot refuse, so it is violated at the start of a session and then acts on nothing");
    }
}
