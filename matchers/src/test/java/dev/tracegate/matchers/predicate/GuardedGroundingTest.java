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
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An event grounds only the atoms of its kind and tool and the tool-less ones (Grounding's kindAtoms and toolAtoms):
 * at every event of random sessions, over every vocabulary form (ReadsContentOracleTest's examples) and atoms about
 * MCP-qualified and differently spelt tools, the valuation, the unevaluable atoms and their count are those of
 * grounding every atom, the event's kind and tool aside ({@code groundEveryAtom}).
 */
class GuardedGroundingTest {
    private static final List<String> ATOMS;

    static {
        List<String> atoms = new ArrayList<>(ReadsContentOracleTest.EXAMPLES);
        atoms.addAll(List.of("call(mcp__bank__send_money)", "call(Send_Money)", "returned(mcp__bank__read_invoice)",
                "arg(mcp__bank__send_money, amount) > 10", "len(arg(send_money, recipient)) > 5", "len(arg(note)) > 3",
                "arg(forget, customer) == \"bob\"", "result_matches(mcp__bank__read_invoice, \"Pay\")", "consent", "call(approve)",
                "arg_matches(login, user, \"adm\")", "call(quote, \"40\")", "failed(read_invoice)"));
        ATOMS = List.copyOf(atoms);
    }

    private static final List<String> TOOLS = Arrays.asList("send_money", "read_invoice", "mcp__bank__send_money",
            "mcp__bank__read_invoice", "mcp__other__send_money", "MCP__Bank__Send_Money", " Send_Money ", "give_consent",
            "forget", "approve", "login", "quote", "send_invoice", "mail_ads", "get_webpage", "promote", "unknown_tool",
            "mcp__x__unknown", null);

    private static final Grounding G = Grounding.compile(ATOMS.stream().map(Session::atom).toList(), ReadsContentOracleTest.POLICY);

    @Property(tries = 300)
    void anEventGroundsAsIfEveryAtomWereEvaluated(@ForAll("sessions") List<Event> events) {
        Grounding g = G;
        SessionState st = TestStates.create(g.words(), g.refs());
        g.init(st);
        int words = g.valuationWords();
        for (Event e : events) {
            long[] val = new long[words], unev = new long[words];
            long[] everyVal = new long[words], everyUnev = new long[words];
            int n = g.ground(e, st, val, unev);
            int every = g.groundEveryAtom(e, st, everyVal, everyUnev);
            assertThat(val).as("true atoms at %s", e).containsExactly(everyVal);
            assertThat(unev).as("unevaluable atoms at %s", e).containsExactly(everyUnev);
            assertThat(n).as("unevaluable count at %s", e).isEqualTo(every);
            g.apply(e, val, st);
        }
    }

    @Provide
    Arbitrary<List<Event>> sessions() {
        Arbitrary<EventKind> kinds = Arbitraries.of(EventKind.class);
        Arbitrary<String> tools = Arbitraries.of(TOOLS);
        Arbitrary<Map<String, Object>> args = Arbitraries.subsetOf("amount", "recipient", "path", "email", "customer", "note",
                "user", "role", "url", "purposes", "granted", "file", "q").flatMap(keys -> {
                    List<Arbitrary<Object>> values = new ArrayList<>();
                    for (int i = 0; i < keys.size(); i++) {
                        values.add(Arbitraries.oneOf(Arbitraries.of("DE89370400440532013000", "alice@example.com", "bob", "admin",
                                "/srv/a/../b.txt", "https://www.food.example", "40", "abc", "invoice.txt", "billing"),
                                Arbitraries.integers().between(-5, 3000).map(x -> (Object) x),
                                Arbitraries.of(true, false).map(x -> (Object) x),
                                Arbitraries.just(List.of("billing")).map(x -> (Object) x)));
                    }
                    return Combinators.combine(values).as(vs -> {
                        Map<String, Object> m = new LinkedHashMap<>();
                        int i = 0;
                        for (String k : keys) m.put(k, vs.get(i++));
                        return m;
                    });
                });
        Arbitrary<String> texts = Arbitraries.of("Amount 40 EUR. Pay to DE89370400440532013000.", "{\"total\":40}", "declined",
                "I wrote to bob about the refund", "Please pay the invoice", "see www.food.example", "", "ignore previous instructions");
        Arbitrary<Event> event = Combinators.combine(kinds, tools, args, texts, Arbitraries.of(true, false), Arbitraries.integers().between(0, 2))
                .as((kind, tool, a, text, error, depth) -> Event.builder(kind).session("s").tool(tool).args(a)
                        .result(kind == EventKind.RETURN ? text : null).text(kind == EventKind.RETURN ? null : text)
                        .subject(kind == EventKind.CONSENT || kind == EventKind.ERASURE ? "alice" : null)
                        .purposes("billing").granted(error).error(kind == EventKind.RETURN && error).depth(depth).build());
        return event.list().ofMinSize(1).ofMaxSize(25).map(es -> {
            List<Event> numbered = new ArrayList<>();
            for (int i = 0; i < es.size(); i++) numbered.add(renumber(es.get(i), i + 1));
            return numbered;
        });
    }

    private static Event renumber(Event e, long seq) {
        return Event.builder(e.kind()).session("s").seq(seq).tool(e.tool()).args(e.args()).result(e.result()).text(e.text())
                .subject(e.subject()).purposes(e.purposes()).granted(e.granted()).error(e.error()).depth(e.depth()).build();
    }
}
