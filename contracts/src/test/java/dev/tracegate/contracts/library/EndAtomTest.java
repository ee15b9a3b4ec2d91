package dev.tracegate.contracts.library;

import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * The vocabulary's {@code end} atom is refused in a library: a session's END is where its finite trace stops and the
 * end verdict is read, not an event the atoms are evaluated at, so {@code end} never held and {@code F end} was always
 * unmet, {@code G(end -> O call(notify))} never acted (trial7 repro 10). The refusal names what to write instead.
 */
class EndAtomTest {

    private static LibraryException refusal(String yaml) {
        return catchThrowableOfType(LibraryException.class, () -> Library.compile(List.of(LibraryReader.read("lib.yaml", yaml))));
    }

    @Test
    void endInAGuaranteeIsRefusedWhereItIsWrittenWithTheObligationToWriteInstead() {
        LibraryException e = refusal("library: en\ncontracts:\n  - id: en.g\n    guarantee: G(end -> O call(notify))\n    message: m\n");
        assertThat(e).isNotNull();
        assertThat(e.file()).isEqualTo("lib.yaml");
        assertThat(e.line()).isEqualTo(4);
        assertThat(e.column()).isEqualTo(18);
        assertThat(e.problem()).startsWith("atom `end`: `end` never holds, so a contract over it never acts");
        assertThat(e.hint()).contains("F call(notify)").contains("G(call(refund) -> F call(notify))");
    }

    @Test
    void everyWayOfReadingEndIsRefused() {
        assertThat(refusal("library: en\ncontracts:\n  - id: en.f\n    guarantee: F end\n")).isNotNull();
        assertThat(refusal("library: en\ncontracts:\n  - id: en.a\n    assume: G !end\n    guarantee: G !call(x)\n")).isNotNull();
        assertThat(refusal("library: en\ncontracts:\n  - id: en.s\n    guarantee: G(call(x) -> since(end) > 2)\n").problem())
                .startsWith("atom `since(end) > 2`: `end` never holds");
        // through a named atom: refused at its definition
        LibraryException named = refusal("library: en\natoms:\n  done: end\ncontracts:\n  - id: en.n\n    guarantee: G(done -> O call(notify))\n");
        assertThat(named.line()).isEqualTo(3);
        assertThat(named.problem()).startsWith("atom `end`:");
    }

    @Test
    void aNamedAtomOrToolCalledEndIsNotTheEndAtom() {
        // a tool named end and a named atom whose name is not end are ordinary atoms
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: en\natoms:\n  ended: call(end)\ncontracts:\n  - id: en.t\n    guarantee: G(ended -> O call(notify))\n")));
        Replay<Event> r = lib.replay("s");
        assertThat(r.next(Event.call("s", 1, "end", Map.of()), true, true).decision()).isEqualTo(dev.tracegate.engine.monitor.Decision.Kind.BLOCK);
    }

    @Test
    void theObligationTheHintSuggestsIsReportedUnmetAtTheSessionsEnd() {
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: en\ncontracts:\n  - id: en.notify\n    guarantee: G(call(refund) -> F call(notify))\n")));
        Replay<Event> without = lib.replay("a");
        without.next(Event.call("a", 1, "refund", Map.of()), true, true);
        EndReport unmet = without.end();
        assertThat(unmet.verdicts()).containsExactly(Verdict.FAIL);
        assertThat(unmet.unmet()).extracting(EndReport.Obligation::contractId).containsExactly("en.notify");

        Replay<Event> with = lib.replay("b");
        with.next(Event.call("b", 1, "refund", Map.of()), true, true);
        with.next(Event.call("b", 2, "notify", Map.of()), true, true);
        assertThat(with.end().unmet()).isEmpty();
        assertThat(with.end().verdicts()).containsExactly(Verdict.ACTIVE);
    }
}
