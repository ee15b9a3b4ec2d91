package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.engine.reference.Progression;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.predicate.Grounding;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Dead ends that only an implication between atoms makes: {@code call(audit)} implies the kind atom {@code call},
 * {@code arg(limit) > 50} implies {@code arg(limit) > 10}. Before, the analysis took such atoms as independent (a letter
 * with {@code call(audit)} and not {@code call} was a way out) and analysed contracts that share no atom apart, so it
 * missed them. Checked against brute force over concrete events, each grounded by the real grounding: the product of the
 * contracts' formula progressions over those events, searched for a prefix from which no continuation keeps them all.
 */
class RelatedAtomsDeadEndTest {

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }

    private static final DfaCompiler COMPILER = new DfaCompiler(20_000);

    @Test
    void anAllowListAndAnAuditCallThatItDoesNotAllowAreADeadEnd() {
        List<Contract> cs = List.of(
                c("tools.allow", "true", "G(call -> (call(t0) | call(t1)))"),
                c("audit.after-t0", "true", "G(returned(t0) -> X call(audit))"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("tools.allow", "audit.after-t0");
        // a result of t0 comes after a call of t0 (trial42 06): the shortest way there is that call, then its result
        assertThat(found.get(0).witness()).containsExactly(List.of("call", "call(t0)"), List.of("returned(t0)"));
        assertThat(oracleDeadEnd(cs)).as("brute force agrees").isTrue();
    }

    @Test
    void aBoundThatImpliesAnotherMakesADeadEnd() {
        List<Contract> cs = List.of(
                c("pay.high", "true", "G(returned(t0) -> X (call(pay) & arg(limit) > 50))"),
                c("pay.cap", "true", "G(call(pay) -> !(arg(limit) > 10))"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(oracleDeadEnd(cs)).isTrue();
    }

    @Test
    void anEventKindExcludesTheAtomsOfAnotherKind() {
        // a user message that must come next, after a call that only calls are allowed to follow: a dead end only
        // because user_matches("ok") holds at no call (before, a letter with both was a way out)
        List<Contract> cs = List.of(
                c("u.next", "true", "G(call(t0) -> X user_matches(\"ok\"))"),
                c("u.calls", "true", "G(call(t0) -> X call)"));
        assertThat(new LibraryAnalysis(COMPILER).analyse(cs)).extracting(LibraryAnalysis.Finding::kind)
                .containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(oracleDeadEnd(cs)).isTrue();
    }

    @Test
    void relatedAtomsKeepTheirContractsInOnePart() {
        LibraryAnalysis analysis = new LibraryAnalysis(COMPILER);
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(call -> call(t0))"), c("b", "true", "F call(audit)")))).hasSize(1);
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(arg(limit) > 50 -> X user)"), c("b", "true", "G !(arg(limit) > 10)")))).hasSize(1);
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(count(t0) <= 3)"), c("b", "true", "F call(t0)")))).hasSize(1);
        // unrelated: other tools, other literal texts
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(call(t0) -> O returned(v0))"), c("b", "true", "!call(t1) W user_matches(\"ok1\")"),
                c("c", "true", "!call(t2) W user_matches(\"ok2\")")))).hasSize(3);
    }

    /**
     * trial42 06: the precedence pattern of docs/FORMULAS.md, G(call(pay) -> O returned(t0)), beside G !call(t0): every
     * call of t1, which obliges a later pay, dooms the session, since no result of t0 can come without a call of t0. The
     * analysis let returned(t0) hold without an earlier call(t0), analysed G !call(t0) apart (it shares no atom with the
     * others) and said "no dead ends".
     */
    @Test
    void aResultComesOnlyAfterItsCallSoForbiddingTheCallIsADeadEnd() {
        List<Contract> cs = List.of(
                c("de.receipt", "true", "G(call(t1) -> F call(pay))"),
                c("de.pay-needs-t0", "true", "G(call(pay) -> O returned(t0))"),
                c("de.no-t0", "true", "G !call(t0)"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("de.receipt", "de.pay-needs-t0", "de.no-t0");
        assertThat(found.get(0).witness()).containsExactly(List.of("call(t1)"));
        assertThat(found.get(0).explanation()).contains("this rests on a result of t0 coming only after a call of it in the session")
                .contains("attached").contains("sessions.max");
        assertThat(oracleDeadEnd(cs)).as("brute force over sessions seen from their start agrees").isTrue();
        assertThat(oracleDeadEnd(cs, false)).as("a result without its call (attached mid-session) is a way out").isFalse();
        // with a failed result of t0 (failed(t0)) or one read by result_matches: the same
        for (String result : List.of("failed(t0)", "result_matches(t0, \"ok\")")) {
            List<Contract> other = List.of(cs.get(0), c("de.pay-needs-t0", "true", "G(call(pay) -> O " + result + ")"), cs.get(2));
            assertThat(new LibraryAnalysis(COMPILER).analyse(other)).as(result).extracting(LibraryAnalysis.Finding::kind)
                    .containsExactly(LibraryAnalysis.Kind.DEAD_END);
        }
        // where t0 may be called, or the dead end does not need the fact, there is no such sentence
        assertThat(new LibraryAnalysis(COMPILER).analyse(cs.subList(0, 2))).isEmpty();
        List<Contract> plain = List.of(c("a", "true", "G(returned(t0) -> X call(audit))"), c("b", "true", "G(call -> (call(t0) | call(t1)))"));
        List<LibraryAnalysis.Finding> direct = new LibraryAnalysis(COMPILER).analyse(plain);
        assertThat(direct).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);
        assertThat(direct.get(0).explanation()).doesNotContain("rests on");
        assertThat(direct.get(0).witness()).containsExactly(List.of("call", "call(t0)"), List.of("returned(t0)"));
        assertThat(oracleDeadEnd(plain)).isTrue();
    }

    @Test
    void aResultAndTheCallsOfItsToolKeepTheirContractsInOnePart() {
        LibraryAnalysis analysis = new LibraryAnalysis(COMPILER);
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(call(pay) -> O returned(t0))"), c("b", "true", "G !call(t0)")))).hasSize(1);
        assertThat(analysis.independentParts(List.of(c("a", "true", "F failed(t0)"), c("b", "true", "G !call")))).hasSize(1);
        // another tool's calls: apart, as before
        assertThat(analysis.independentParts(List.of(c("a", "true", "G(call(pay) -> O returned(t0))"),
                c("b", "true", "!call(t1) W user_matches(\"ok1\")")))).hasSize(2);
    }

    private static Atom atom(String s) { return (Atom) Parser.parse(s); }

    /** The relations docs/LIBRARY.md (Analysis) lists, and a field written quoted or not being one field. */
    @Test
    void theRelationsTheDocsList() {
        for (String a : List.of("call(a)", "call(a, \"x\")", "arg(limit) > 50", "side_effect")) {
            assertThat(AtomRelations.implies(atom(a), atom("call"))).as(a).isTrue();
            for (String other : List.of("user", "return", "user_matches(\"hi\")")) assertThat(AtomRelations.excludes(atom(a), atom(other))).as(a + " " + other).isTrue();
        }
        assertThat(AtomRelations.implies(atom("call(a, \"x\")"), atom("call(a)"))).isTrue();
        assertThat(AtomRelations.implies(atom("arg(a, limit) > 5"), atom("call(a)"))).isTrue();
        assertThat(AtomRelations.implies(atom("failed(x)"), atom("return"))).isTrue();
        assertThat(AtomRelations.excludes(atom("failed(x)"), atom("returned(x)"))).isTrue();
        assertThat(AtomRelations.implies(atom("user_matches(\"hi\")"), atom("user"))).isTrue();
        assertThat(AtomRelations.implies(atom("arg(limit) > 50"), atom("arg(limit) > 10"))).isTrue();
        assertThat(AtomRelations.implies(atom("arg(limit) > 10"), atom("arg(limit) > 50"))).isFalse();
        assertThat(AtomRelations.excludes(atom("arg(limit) > 50"), atom("arg(limit) < 10"))).isTrue();
        assertThat(AtomRelations.implies(atom("arg(t, limit) > 50"), atom("arg(limit) > 50"))).isTrue();
        assertThat(AtomRelations.implies(atom("arg(limit) > 50"), atom("arg(t, limit) > 50"))).as("another tool's call").isFalse();
        assertThat(AtomRelations.implies(atom("arg(\"limit\") > 50"), atom("arg(limit) > 10"))).isTrue();
        assertThat(AtomRelations.implies(atom("count(t) <= 3"), atom("count(t) <= 5"))).isTrue();
        assertThat(AtomRelations.implies(atom("call(t)"), atom("count(t) >= 1"))).isTrue();
        assertThat(AtomRelations.excludes(atom("call(t)"), atom("count(t) <= 0"))).isTrue();
        assertThat(AtomRelations.excludes(atom("count(t) > 3"), atom("count(t) < 4"))).as("whole numbers").isTrue();
        // what may hold together
        assertThat(AtomRelations.excludes(atom("call(mcp__s__a)"), atom("call(a)"))).isFalse();
        assertThat(AtomRelations.implies(atom("call(mcp__s__a)"), atom("call(a)"))).isFalse();
        assertThat(AtomRelations.excludes(atom("erasure"), atom("call(forget)"))).isFalse();
        assertThat(AtomRelations.excludes(atom("erasure"), atom("user"))).isTrue();
    }

    // ------------------------------------------------------------------ brute force over concrete events

    /** The atoms the random libraries use; none keeps state in the session, so an event grounds the same anywhere. */
    static final List<String> POOL = List.of("call", "call(t0)", "call(t1)", "call(audit)", "call(pay)", "returned(t0)",
            "return", "arg(limit) > 50", "arg(limit) > 10", "user", "user_matches(\"ok\")");
    static final List<Atom> ATOMS = POOL.stream().map(s -> (Atom) Parser.parse(s)).toList();

    /** The tools whose results {@link #EVENTS} holds, each a bit of the oracle's state: called yet in the session. */
    static final List<String> RESULT_TOOLS = List.of("t0", "t1", "audit", "pay", "other");

    /** Every letter over the pool that some event makes: each tool (and another) with each size of limit, and the rest. */
    static final List<Event> EVENTS = events();

    private static List<Event> events() {
        List<Event> out = new ArrayList<>();
        for (String tool : List.of("t0", "t1", "audit", "pay", "other")) {
            for (String limit : List.of("", "{\"limit\":5}", "{\"limit\":20}", "{\"limit\":60}")) {
                out.add(Event.call("s", 0, tool, limit.isEmpty() ? "{}" : limit));
            }
        }
        for (String tool : RESULT_TOOLS) out.add(Event.returned("s", 0, tool, "done", false));
        out.add(Event.returned("s", 0, "t0", "boom", true));
        out.add(Event.user("s", 0, "ok"));
        out.add(Event.user("s", 0, "hi"));
        out.add(Event.assistant("s", 0, "x"));
        return out;
    }

    /** Each event's letter over {@link #ATOMS}, by the grounding of a library that reads them all. */
    static final long[] LETTERS = letters();

    private static long[] letters() {
        String yaml = "library: pool\ncontracts:\n  - id: pool.all\n    guarantee: '"
                + POOL.stream().map(a -> "(" + a + ")").collect(Collectors.joining(" | ")) + " | !call'\n";
        Library lib = Library.compile(List.of(LibraryReader.read("pool.yaml", yaml)));
        Grounding g = lib.grounding();
        SessionMonitor<Event> m = lib.newMonitor(SessionMonitor.Options.DEFAULT, r -> {});
        SessionState st = m.snapshot(m.session("s"));
        long[] out = new long[EVENTS.size()];
        for (int e = 0; e < out.length; e++) {
            long[] val = new long[g.valuationWords()], unev = new long[g.valuationWords()];
            g.ground(EVENTS.get(e), st, val, unev);
            for (int j = 0; j < ATOMS.size(); j++) {
                int k = g.atoms().indexOf(ATOMS.get(j));
                if ((val[k >>> 6] >>> k & 1L) != 0) out[e] |= 1L << j;
            }
        }
        return out;
    }


    /** For event e: the bit of its tool among {@link #RESULT_TOOLS} (0: none), and whether it is a result. */
    static int toolBit(Event e) {
        int i = RESULT_TOOLS.indexOf(e.tool());
        return i < 0 ? 0 : 1 << i;
    }

    /**
     * Whether some non-empty sequence of {@link #EVENTS}, on which no contract is FAIL (its assumption not permanently
     * violated, its guarantee permanently violated) after any event, leads to where no continuation keeps every contract.
     * A sequence is a session the agent saw from its start: a result of a tool comes only after a call of it.
     */
    static boolean oracleDeadEnd(List<Contract> cs) {
        return oracleDeadEnd(cs, true);
    }

    /** As above; {@code resultsAfterCalls} false: a result may come without a call before it. */
    static boolean oracleDeadEnd(List<Contract> cs, boolean resultsAfterCalls) {
        int n = cs.size();
        List<Formula> fs = new ArrayList<>();
        for (Contract c : cs) {
            fs.add(c.assume());
            fs.add(c.guarantee());
        }
        // a state: the residuals, and last the tools of RESULT_TOOLS called so far (a bit mask)
        List<Object> start = new ArrayList<>();
        for (Formula f : fs) start.add(Progression.start(f, ATOMS));
        start.add(0);
        Map<List<Object>, Integer> index = new HashMap<>();
        List<List<Object>> states = new ArrayList<>();
        List<long[]> prefix = new ArrayList<>();
        List<int[]> succ = new ArrayList<>();
        index.put(start, 0);
        states.add(start);
        prefix.add(new long[0]);
        for (int s = 0; s < states.size(); s++) {
            List<Object> state = states.get(s);
            int called = (Integer) state.get(fs.size());
            List<Integer> out = new ArrayList<>();
            for (int e = 0; e < LETTERS.length; e++) {
                Event event = EVENTS.get(e);
                boolean result = event.kind() == dev.tracegate.matchers.event.EventKind.RETURN;
                if (resultsAfterCalls && result && (called & toolBit(event)) == 0) continue;   // no call asked for it
                List<Object> next = new ArrayList<>();
                for (int f = 0; f < fs.size(); f++) next.add(Progression.step((Progression.Residual) state.get(f), LETTERS[e]));
                next.add(event.kind() == dev.tracegate.matchers.event.EventKind.CALL ? called | toolBit(event) : called);
                Integer at = index.get(next);
                if (at == null) {
                    at = states.size();
                    index.put(next, at);
                    states.add(next);
                    long[] p = java.util.Arrays.copyOf(prefix.get(s), prefix.get(s).length + 1);
                    p[p.length - 1] = LETTERS[e];
                    prefix.add(p);
                }
                out.add(at);
            }
            succ.add(out.stream().mapToInt(Integer::intValue).toArray());
            assertThat(states.size()).as("the product stays small").isLessThan(20_000);
        }
        int total = states.size();
        boolean[] fails = new boolean[total], live = new boolean[total];
        List<List<Integer>> pred = new ArrayList<>();
        for (int s = 0; s < total; s++) pred.add(new ArrayList<>());
        ArrayDeque<Integer> q = new ArrayDeque<>();
        for (int s = 0; s < total; s++) {
            for (int t : succ.get(s)) pred.get(t).add(s);
            List<Object> rs = states.get(s);
            boolean kept = true;
            for (int c = 0; c < n; c++) {
                kept &= !Progression.acceptsAtEnd((Progression.Residual) rs.get(2 * c))
                        || Progression.acceptsAtEnd((Progression.Residual) rs.get(2 * c + 1));
                if (s > 0 && Progression.verdict(fs.get(2 * c), ATOMS, prefix.get(s)) != RvVerdict.PERMANENTLY_VIOLATED
                        && Progression.verdict(fs.get(2 * c + 1), ATOMS, prefix.get(s)) == RvVerdict.PERMANENTLY_VIOLATED) {
                    fails[s] = true;
                }
            }
            if (kept) {
                live[s] = true;
                q.add(s);
            }
        }
        while (!q.isEmpty()) {
            for (int p : pred.get(q.poll())) {
                if (!live[p]) {
                    live[p] = true;
                    q.add(p);
                }
            }
        }
        boolean[] seen = new boolean[total];
        q.add(0);
        seen[0] = true;
        while (!q.isEmpty()) {
            int s = q.poll();
            if (s != 0 && !live[s]) return true;
            for (int t : succ.get(s)) {
                if (seen[t] || fails[t]) continue;
                seen[t] = true;
                q.add(t);
            }
        }
        return false;
    }

    @Property(tries = 60)
    void theDeadEndCheckAgreesWithBruteForceOverGroundedEvents(@ForAll("libraries") List<Contract> library) throws Exception {
        boolean expected = oracleDeadEnd(library);
        Statistics.collect(expected ? "dead end" : "no dead end");
        Statistics.coverage(check -> check.check("dead end").count(k -> k >= 1));
        DeadEnds.DeadEnd found = new DeadEnds(library, COMPILER).search();
        assertThat(found != null).as("the product search finds a dead end exactly when brute force does").isEqualTo(expected);
        // analysed in parts or together: the same kinds of findings (a part split wrongly would hide a dead end)
        LibraryAnalysis analysis = new LibraryAnalysis(COMPILER);
        assertThat(kinds(analysis.analyse(library))).isEqualTo(kinds(analysis.analyseTogether(library)));
    }

    private static Set<String> kinds(List<LibraryAnalysis.Finding> fs) {
        return fs.stream().map(f -> f.kind().name()).collect(Collectors.toCollection(TreeSet::new));
    }

    @Provide
    Arbitrary<List<Contract>> libraries() {
        Arbitrary<String> assume = Arbitraries.frequencyOf(Tuple.of(4, Arbitraries.just("true")), Tuple.of(1, formula(1)));
        Arbitrary<String> pattern = Combinators.combine(formula(1), Arbitraries.of("X", "F", "G", "WX", "G !", "X !", "!"), formula(1))
                .as((x, op, y) -> "G((" + x + ") -> " + op + "(" + y + "))");
        Arbitrary<String> allow = Arbitraries.of("G(call -> (call(t0) | call(t1)))", "G(call(pay) -> !(arg(limit) > 10))",
                "G(user -> !user_matches(\"ok\"))", "G(return -> X call)");
        Arbitrary<String> guarantee = Arbitraries.frequencyOf(Tuple.of(1, formula(2)), Tuple.of(4, pattern), Tuple.of(2, allow));
        return Combinators.combine(assume, guarantee).as((a, g) -> new String[] {a, g}).list().ofMinSize(2).ofMaxSize(3)
                .map(specs -> {
                    List<Contract> out = new ArrayList<>();
                    for (int i = 0; i < specs.size(); i++) out.add(c("c" + i, specs.get(i)[0], specs.get(i)[1]));
                    return out;
                });
    }

    static Arbitrary<String> literal() {
        return Combinators.combine(Arbitraries.of("", "", "!"), Arbitraries.of(POOL)).as((n, a) -> n + "(" + a + ")");
    }

    static Arbitrary<String> formula(int depth) {
        if (depth == 0) return literal();
        return Arbitraries.lazyOf(
                RelatedAtomsDeadEndTest::literal,
                () -> Combinators.combine(Arbitraries.of("!", "X", "F", "G"), formula(depth - 1)).as((op, f) -> op + "(" + f + ")"),
                // past operators over a literal only (the compiler refuses a future inside the past)
                () -> Combinators.combine(Arbitraries.of("Y", "O"), literal()).as((op, f) -> op + "(" + f + ")"),
                () -> Combinators.combine(formula(depth - 1), Arbitraries.of("&", "|", "U", "W"), formula(depth - 1))
                        .as((l, op, r) -> "(" + l + ") " + op + " (" + r + ")"));
    }
}
