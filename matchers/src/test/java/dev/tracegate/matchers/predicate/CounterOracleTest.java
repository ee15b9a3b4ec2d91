package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The numeric atoms against an independent oracle: plain code that recomputes each value from the
 * whole prefix of the trace (no session state, no incremental update), at every event of random traces.
 */
class CounterOracleTest {
    private static final String[] TOOLS = {"a", "b", "mcp__s__a"};

    @Provide Arbitrary<List<Event>> traces() {
        Arbitrary<Event> event = Arbitraries.integers().between(0, 6).flatMap(kind -> Arbitraries.integers().between(0, 2)
                .flatMap(tool -> Arbitraries.integers().between(-3, 300).map(amount -> {
                    String t = TOOLS[tool];
                    return switch (kind) {
                        case 0, 1 -> Event.call("s", 0, t, amount < 0 ? "{}" : "{\"amount\":\"" + amount + " EUR\"}");
                        case 2 -> Event.returned("s", 0, t, "x".repeat(Math.max(0, amount % 17)), amount % 5 == 0);
                        case 3 -> Event.user("s", 0, "u".repeat(Math.max(0, amount % 23)));
                        case 4 -> Event.assistant("s", 0, "o".repeat(Math.max(0, amount % 29)));
                        case 5 -> Event.builder(EventKind.ASSISTANT).session("s").text("t").tokens(Math.max(0, amount)).build();
                        default -> Event.builder(EventKind.END).session("s").build();
                    };
                })));
        return event.list().ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 300)
    void numericAtomsEqualRecomputationFromThePrefix(@ForAll("traces") List<Event> trace) {
        Session s = new Session(Policy.EMPTY, "count(a) <= 2", "run(a) >= 2", "sum(a, amount) > 400", "context_len > 40",
                "output_chars >= 30", "tokens > 60", "since(returned(a)) <= 2", "since(user) > 3");
        List<Event> prefix = new ArrayList<>();
        for (Event e : trace) {
            prefix.add(e);
            int[] got = s.step(e);
            double sum = sum(prefix);
            int[] want = {
                count(prefix) <= 2 ? 1 : 0,
                run(prefix) >= 2 ? 1 : 0,
                Double.isNaN(sum) ? -1 : sum > 400 ? 1 : 0,
                contextLen(prefix) > 40 ? 1 : 0,
                outputChars(prefix) >= 30 ? 1 : 0,
                tokens(prefix) > 60 ? 1 : 0,
                since(prefix, x -> x.kind() == EventKind.RETURN && isA(x) && !x.error()) <= 2 ? 1 : 0,
                since(prefix, x -> x.kind() == EventKind.USER) > 3 ? 1 : 0};
            assertThat(got).as("after %s", prefix).containsExactly(want);
        }
    }

    private static boolean isA(Event e) { return e.tool() != null && (e.tool().equals("a") || e.tool().equals("mcp__s__a")); }

    private static boolean callOfA(Event e) { return e.kind() == EventKind.CALL && isA(e); }

    private static long count(List<Event> p) { return p.stream().filter(CounterOracleTest::callOfA).count(); }

    private static long run(List<Event> p) {
        long r = 0;
        for (Event e : p) {
            if (e.kind() != EventKind.CALL) continue;
            r = isA(e) ? r + 1 : 0;
        }
        return r;
    }

    /** Sum over accepted calls of a; NaN when the last event is a call of a without amount (unevaluable). */
    private static double sum(List<Event> p) {
        double s = 0;
        for (Event e : p) {
            if (!callOfA(e)) continue;
            var v = e.args().root().get("amount");
            if (v == null) {
                if (e == p.get(p.size() - 1)) return Double.NaN;
                continue;
            }
            s += Double.parseDouble(v.textValue().replace(" EUR", ""));
        }
        return s;
    }

    private static long contextLen(List<Event> p) {
        long n = 0;
        for (Event e : p) {
            if (e.kind() == EventKind.USER || e.kind() == EventKind.ASSISTANT || e.kind() == EventKind.RETURN) {
                n += (e.text() == null ? 0 : e.text().length()) + (e.result() == null ? 0 : e.result().length());
            }
        }
        return n;
    }

    private static long outputChars(List<Event> p) {
        return p.stream().filter(e -> e.kind() == EventKind.ASSISTANT).mapToLong(e -> e.text().length()).sum();
    }

    private static long tokens(List<Event> p) {
        long n = 0;
        for (Event e : p) {
            if (e.tokens() >= 0) n += e.tokens();
            else if (e.kind() == EventKind.USER || e.kind() == EventKind.ASSISTANT || e.kind() == EventKind.RETURN) {
                long chars = (e.text() == null ? 0 : e.text().length()) + (e.result() == null ? 0 : e.result().length());
                n += (chars + 3) / 4;
            }
        }
        return n;
    }

    private static double since(List<Event> p, java.util.function.Predicate<Event> held) {
        for (int i = p.size() - 1; i >= 0; i--) if (held.test(p.get(i))) return p.size() - 1 - i;
        return Double.POSITIVE_INFINITY;
    }
}
