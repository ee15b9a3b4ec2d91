package dev.tracegate.contracts.library;

import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A bare name in a formula is a named atom (docs/LIBRARY.md), inside {@code since(...)} too (trial7 repro 5:
 * {@code since(verified) <= 3} was refused as "unknown atom name 'verified'"); a named atom that is no single condition
 * atom cannot be counted since, and the error says so and what to write.
 */
class SinceNamedAtomTest {

    private static Library compile(String yaml) {
        return Library.compile(List.of(LibraryReader.read("lib.yaml", yaml)));
    }

    private static final String NAMED = "library: s\natoms:\n  verified: returned(verify)\ncontracts:\n  - id: s.recent-verify\n"
            + "    guarantee: G(call(pay) -> since(verified) <= 3)\n    message: verify within the last 3 events\n";
    private static final String WRITTEN = "library: s\ncontracts:\n  - id: s.recent-verify\n"
            + "    guarantee: G(call(pay) -> since(returned(verify)) <= 3)\n    message: verify within the last 3 events\n";

    @Test
    void sinceOfANamedAtomReadsItsDefinition() {
        Library lib = compile(NAMED);
        assertThat(lib.contracts().atoms()).extracting(a -> a.key()).contains("since(returned(verify)) <= 3");
        Replay<Event> r = lib.replay("s");
        assertThat(r.next(Event.returned("s", 1, "verify", "ok", false), false, true).decision()).isEqualTo(Decision.Kind.PASS);
        assertThat(r.next(Event.call("s", 2, "pay", Map.of()), true, true).decision()).isEqualTo(Decision.Kind.PASS);
        r.next(Event.user("s", 3, "and"), false, true);
        r.next(Event.user("s", 4, "again"), false, true);
        assertThat(r.next(Event.call("s", 5, "pay", Map.of()), true, true).decision()).as("4 events since verify").isEqualTo(Decision.Kind.BLOCK);
    }

    /** Oracle: the library with the atom written inside since(...), on the same random traces, decides every event alike. */
    @Test
    void decidesAsTheAtomWrittenInside() {
        Library named = compile(NAMED);
        Library written = compile(WRITTEN);
        Library nested = compile("library: s\natoms:\n  verified: returned(verify)\n  recent: since(verified) <= 3\ncontracts:\n"
                + "  - id: s.recent-verify\n    guarantee: G(call(pay) -> recent)\n");
        Random random = new Random(5);
        for (int t = 0; t < 200; t++) {
            Replay<Event> a = named.replay("s");
            Replay<Event> b = written.replay("s");
            Replay<Event> c = nested.replay("s");
            List<String> trace = new ArrayList<>();
            for (int i = 1; i <= 12; i++) {
                int k = random.nextInt(4);
                Event e = switch (k) {
                    case 0 -> Event.call("s", i, "pay", Map.of());
                    case 1 -> Event.returned("s", i, "verify", "ok", false);
                    case 2 -> Event.returned("s", i, "verify", "down", true);
                    default -> Event.user("s", i, "hi");
                };
                trace.add(String.valueOf(k));
                boolean agent = k == 0;
                Decision.Kind expected = b.next(e, agent, true).decision();
                assertThat(a.next(e, agent, true).decision()).as("trace %s", trace).isEqualTo(expected);
                assertThat(c.next(e, agent, true).decision()).as("trace %s", trace).isEqualTo(expected);
            }
        }
    }

    @Test
    void aNamedFormulaOrComparisonInsideSinceIsRefusedWithWhatToWrite() {
        LibraryException formula = catchThrowableOfType(LibraryException.class, () -> compile("library: s\natoms:\n"
                + "  checked: returned(verify) | returned(lookup)\ncontracts:\n  - id: s.c\n    guarantee: G(call(pay) -> since(checked) <= 3)\n"));
        assertThat(formula.line()).isEqualTo(6);
        assertThat(formula.column()).isEqualTo(31);
        assertThat(formula.problem()).isEqualTo("atom `since(checked) <= 3`: named atom 'checked' is (returned(verify) | returned(lookup)),"
                + " and since(...) counts the events since one condition atom held, not a formula");
        assertThat(formula.hint()).contains("since(returned(verify)) <= 3");
        LibraryException compared = catchThrowableOfType(LibraryException.class, () -> compile("library: s\natoms:\n"
                + "  big: arg(pay, amount) > 100\ncontracts:\n  - id: s.c\n    guarantee: G(call(pay) -> since(big) > 3)\n"));
        assertThat(compared.problem()).endsWith("not a comparison");
    }
}
