package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.monitor.TestStates;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The atoms that grounding decides from the event's kind and tool (kind atoms and call(T), ORed in from precomputed
 * masks) and the counters it reads from the session's words away from a call of their tool (count, run, sum against a
 * number): on random libraries and sessions, at every event, (1) the valuation, the unevaluable atoms and their count
 * equal grounding every atom through its own condition ({@code groundEveryAtom}), and (2) each of these atoms has the
 * value that plain code recomputes from the whole prefix of the trace (no grounding, no session state).
 */
class DecidedAtomsPropertyTest {
    private static final String[] ATOM_TOOLS = {"refund", "search_kb", "mcp__desk__refund"};
    /** The atom tools each event tool is a call of: trimmed, case-folded, mcp__server__T also T. */
    private static final Map<String, Set<String>> MATCHES = Map.of(
            "refund", Set.of("refund"), " Refund ", Set.of("refund"), "search_kb", Set.of("search_kb"),
            "mcp__desk__refund", Set.of("refund", "mcp__desk__refund"), "mcp__other__search_kb", Set.of("search_kb"),
            "lookup_order", Set.of());
    private static final List<String> EVENT_TOOLS = List.of("refund", " Refund ", "search_kb", "mcp__desk__refund",
            "mcp__other__search_kb", "lookup_order");
    private static final String[] OPS = {"<", "<=", ">", ">=", "==", "!="};
    private static final double[] BOUNDS = {0, 1, 2, 3, 500, 2000};
    /** Atoms grounded the ordinary way, mixed in so that the decided ones sit among others in the valuation. */
    private static final List<String> OTHERS = List.of("arg(refund, amount) <= 500", "arg(limit) > 50",
            "arg_in(search_kb, lang, [\"en\", \"de\"])", "call(search_kb, \"secret\")", "returned(refund)", "failed(search_kb)",
            "result_matches(\"ignore\")", "count(refund) >= ctx(cap)", "len(arg(search_kb, query)) <= 10", "tokens > 40");

    /** One atom: its text, and (for the decided families) its oracle; null oracle: compared with groundEveryAtom only. */
    record Spec(String text, Oracle oracle) {
        @Override public String toString() { return text; }
    }

    interface Oracle {
        /** 1, 0 or -1 (unevaluable) at the last event of {@code prefix}. */
        int at(List<Event> prefix);
    }

    @Provide Arbitrary<List<Spec>> libraries() {
        Arbitrary<String> tool = Arbitraries.of(ATOM_TOOLS);
        Arbitrary<Integer> op = Arbitraries.integers().between(0, OPS.length - 1);
        Arbitrary<Double> bound = Arbitraries.of(0.0, 1.0, 2.0, 3.0, 500.0, 2000.0);
        Arbitrary<Spec> counter = Combinators.combine(Arbitraries.of("count", "run", "sum"), tool, op, bound).as((kind, t, o, b) -> {
            String left = kind.equals("sum") ? "sum(" + t + ", amount)" : kind + "(" + t + ")";
            Oracle value = switch (kind) {
                case "count" -> p -> compare(count(p, t), o, b);
                case "run" -> p -> compare(run(p, t), o, b);
                default -> p -> {
                    double s = sum(p, t);
                    return Double.isNaN(s) || Double.isInfinite(s) ? -1 : compare(s, o, b);
                };
            };
            return new Spec(left + " " + OPS[o] + " " + (long) b.doubleValue(), value);
        });
        Arbitrary<Spec> kindAtom = Arbitraries.of(EventKind.USER, EventKind.ASSISTANT, EventKind.CALL, EventKind.RETURN, EventKind.END)
                .map(k -> new Spec(k.name().toLowerCase(), p -> last(p).kind() == k ? 1 : 0));
        Arbitrary<Spec> callOf = tool.map(t -> new Spec("call(" + t + ")", p -> callOf(last(p), t) ? 1 : 0));
        Arbitrary<Spec> other = Arbitraries.of(OTHERS).map(t -> new Spec(t, null));
        return Arbitraries.frequencyOf(Tuple(4, counter), Tuple(2, kindAtom), Tuple(2, callOf), Tuple(2, other))
                .list().ofMinSize(1).ofMaxSize(70);   // more than 64 atoms: a second valuation word
    }

    private static net.jqwik.api.Tuple.Tuple2<Integer, Arbitrary<? extends Spec>> Tuple(int weight, Arbitrary<Spec> a) {
        return net.jqwik.api.Tuple.of(weight, a);
    }

    @Provide Arbitrary<List<Event>> sessions() {
        Arbitrary<Object> amount = Arbitraries.oneOf(Arbitraries.integers().between(-50, 900).map(x -> (Object) x),
                Arbitraries.of("250 EUR", "$1,000", "n/a").map(x -> (Object) x), Arbitraries.just(1e308));
        Arbitrary<Event> call = Combinators.combine(Arbitraries.of(EVENT_TOOLS), amount, Arbitraries.integers().between(0, 3))
                .as((t, a, shape) -> Event.builder(EventKind.CALL).session("s").tool(t)
                        .args(shape == 0 ? Map.of() : shape == 1 ? Map.of("amount", a) : Map.of("amount", a, "limit", 60, "lang", "en",
                                "query", "secret stuff")).build());
        Arbitrary<Event> returned = Combinators.combine(Arbitraries.of(EVENT_TOOLS), Arbitraries.of(true, false))
                .as((t, error) -> Event.builder(EventKind.RETURN).session("s").tool(t).result("ignore that").error(error).build());
        Arbitrary<Event> other = Arbitraries.of(EventKind.USER, EventKind.ASSISTANT, EventKind.END)
                .map(k -> Event.builder(k).session("s").text("some words here").build());
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(5, call), net.jqwik.api.Tuple.of(2, returned), net.jqwik.api.Tuple.of(2, other))
                .list().ofMinSize(1).ofMaxSize(30);
    }

    @Property(tries = 300)
    void decidedAtomsGroundAsTheirConditionsAndTheOracleSay(@ForAll("libraries") List<Spec> library, @ForAll("sessions") List<Event> events) {
        Grounding g = Grounding.compile(library.stream().map(s -> Session.atom(s.text())).toList(), Policy.EMPTY);
        SessionState st = TestStates.create(g.words(), g.refs());
        g.init(st);
        int words = g.valuationWords();
        List<Event> prefix = new ArrayList<>();
        for (Event e : events) {
            prefix.add(e);
            long[] val = new long[words], unev = new long[words];
            long[] everyVal = new long[words], everyUnev = new long[words];
            int n = g.ground(e, st, val, unev);
            int every = g.groundEveryAtom(e, st, everyVal, everyUnev);
            assertThat(val).as("true atoms at %s", e).containsExactly(everyVal);
            assertThat(unev).as("unevaluable atoms at %s", e).containsExactly(everyUnev);
            assertThat(n).as("unevaluable count at %s", e).isEqualTo(every);
            for (int i = 0; i < library.size(); i++) {
                Oracle oracle = library.get(i).oracle();
                if (oracle == null) continue;
                boolean u = (unev[i >>> 6] & (1L << i)) != 0, v = (val[i >>> 6] & (1L << i)) != 0;
                assertThat(u ? -1 : v ? 1 : 0).as("%s at event %d of %s", library.get(i), prefix.size(), prefix).isEqualTo(oracle.at(prefix));
            }
            g.apply(e, val, st);
        }
    }

    private static Event last(List<Event> p) { return p.get(p.size() - 1); }

    private static boolean callOf(Event e, String tool) {
        return e.kind() == EventKind.CALL && MATCHES.get(e.tool()).contains(tool);
    }

    private static long count(List<Event> p, String tool) { return p.stream().filter(e -> callOf(e, tool)).count(); }

    private static long run(List<Event> p, String tool) {
        long r = 0;
        for (Event e : p) if (e.kind() == EventKind.CALL) r = callOf(e, tool) ? r + 1 : 0;
        return r;
    }

    /** Whole units beyond which a sum is no number for good (matchers/README.md, "Sums are exact decimals"). */
    private static final java.math.BigDecimal SUM_LIMIT = java.math.BigDecimal.valueOf(9_223_372_036_854L);

    /**
     * The amounts of the calls of {@code tool} that had one, added exactly (BigDecimal); NaN when the last event is such a
     * call without one, or once an amount or the running total went beyond +-9,223,372,036,854 (unevaluable for good).
     */
    private static double sum(List<Event> p, String tool) {
        java.math.BigDecimal s = java.math.BigDecimal.ZERO;
        boolean out = false;
        for (Event e : p) {
            if (!callOf(e, tool)) continue;
            double v = amount(e.args().root().get("amount"));
            if (Double.isNaN(v)) {
                if (e == last(p)) return Double.NaN;
                continue;
            }
            java.math.BigDecimal a = new java.math.BigDecimal(v);
            s = s.add(a);
            if (a.abs().compareTo(SUM_LIMIT) > 0 || s.abs().compareTo(SUM_LIMIT) > 0) out = true;
        }
        return out ? Double.NaN : s.doubleValue();
    }

    private static double amount(com.fasterxml.jackson.databind.JsonNode n) {
        if (n == null) return Double.NaN;
        if (n.isNumber()) return n.doubleValue();
        return switch (n.textValue()) {
            case "250 EUR" -> 250;
            case "$1,000" -> 1000;
            case "1e308" -> 1e308;
            default -> Double.NaN;
        };
    }

    private static int compare(double x, int op, double b) {
        boolean t = switch (OPS[op]) {
            case "<" -> x < b;
            case "<=" -> x <= b;
            case ">" -> x > b;
            case ">=" -> x >= b;
            case "==" -> x == b;
            default -> x != b;
        };
        return t ? 1 : 0;
    }
}
