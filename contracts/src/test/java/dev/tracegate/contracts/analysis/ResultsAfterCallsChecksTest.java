package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.reference.Progression;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
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
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

import static dev.tracegate.contracts.analysis.RelatedAtomsDeadEndTest.ATOMS;
import static dev.tracegate.contracts.analysis.RelatedAtomsDeadEndTest.EVENTS;
import static dev.tracegate.contracts.analysis.RelatedAtomsDeadEndTest.LETTERS;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * fix21b taught the dead-end search that a result of tool T comes only after a call of T; the consistency, compatibility
 * and conflict checks did not know it. Those checks ask whether some non-empty trace keeps formulas, and the fact only
 * takes traces away, so without it they never report a finding that the fact would remove, but they miss those that only
 * the fact makes: {@code F returned(t0)} beside {@code G !call(t0)} was "conflict-free" (a DEAD_END at the first event
 * instead), one contract {@code F returned(t0) & G !call(t0)} was consistent. Checked against brute force over concrete
 * events grounded by the real grounding (those of {@link RelatedAtomsDeadEndTest}): every reachable product state of the
 * formulas' progressions, with and without the fact, searched for one where all of them accept.
 */
class ResultsAfterCallsChecksTest {

    private static Contract c(String id, String assume, String guarantee) {
        return new Contract(id, Parser.parse(assume), Parser.parse(guarantee), "block", "");
    }

    private static final DfaCompiler COMPILER = new DfaCompiler(20_000);

    private static LibraryAnalysis analysis(boolean resultsAfterCalls) {
        return new LibraryAnalysis(COMPILER, resultsAfterCalls, null);
    }

    @Test
    void forbiddingTheCallOfAResultThatMustComeIsAConflictThatSaysWhatItRestsOn() {
        List<Contract> cs = List.of(c("r.must", "true", "F returned(t0)"), c("r.never", "true", "G !call(t0)"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.CONFLICT);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("r.must", "r.never");
        assertThat(found.get(0).explanation()).contains("this rests on a result of t0 coming only after a call of it in the session")
                .contains("attached").contains("sessions.max").contains("replay");
        assertThat(satisfiable(both(cs), true)).as("brute force over sessions seen from their start").isFalse();
        assertThat(satisfiable(both(cs), false)).as("a result without its call (attached mid-call) keeps both").isTrue();
        // before: no conflict, and the dead-end search (which knew the fact) reported the first event as a dead end
        assertThat(analysis(false).analyse(cs)).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.DEAD_END);

        // the same in one contract is inconsistent, and in two assumptions incompatible, each with the sentence
        List<LibraryAnalysis.Finding> one = new LibraryAnalysis(COMPILER).analyse(List.of(c("r.one", "true", "F returned(t0) & G !call(t0)")));
        assertThat(one).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.INCONSISTENT);
        assertThat(one.get(0).explanation()).contains("rests on a result of t0");
        List<LibraryAnalysis.Finding> assumed = new LibraryAnalysis(COMPILER).analyse(List.of(
                c("a.must", "F return", "G !user"), c("a.never", "G !call", "F user")));
        assertThat(assumed).extracting(LibraryAnalysis.Finding::kind).contains(LibraryAnalysis.Kind.INCOMPATIBLE);
        assertThat(assumed.stream().filter(f -> f.kind() == LibraryAnalysis.Kind.INCOMPATIBLE).findFirst().orElseThrow().explanation())
                .contains("rests on a result of a tool coming only after a call of it");
    }

    @Test
    void aConflictThatNeedsNoFactHasNoSentence() {
        List<Contract> cs = List.of(c("x.must", "true", "F call(t0)"), c("x.never", "true", "G !call(t0)"), c("x.reads", "true", "G(returned(t0) -> X user)"));
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.CONFLICT);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("x.must", "x.never");
        assertThat(found.get(0).explanation()).doesNotContain("rests on");
        // a call allowed: no finding with the fact either
        assertThat(new LibraryAnalysis(COMPILER).analyse(List.of(c("r.must", "true", "F returned(t0)"), c("r.only", "true", "G !call(t1)")))).isEmpty();
    }

    /**
     * CI, session 23: three contracts with no trace even without the fact were minimised without it, so the conflict named
     * all three, though the fact makes two of them a conflict alone (dropping the third still leaves no trace).
     */
    @Test
    void aConflictWithoutTheFactIsMinimisedKnowingIt() {
        List<Contract> cs = List.of(c("m.must", "true", "F returned(t0)"), c("m.never", "true", "G !call(t0)"),
                c("m.next", "true", "G(return -> X call(t0))"));
        assertThat(satisfiable(both(cs), false)).as("no trace without the fact either").isFalse();
        List<LibraryAnalysis.Finding> found = new LibraryAnalysis(COMPILER).analyse(cs);
        assertThat(found).extracting(LibraryAnalysis.Finding::kind).containsExactly(LibraryAnalysis.Kind.CONFLICT);
        assertThat(found.get(0).contracts()).containsExactlyInAnyOrder("m.must", "m.never");
        assertThat(found.get(0).explanation()).as("the two alone rest on the fact").contains("this rests on a result of t0");
        assertThat(analysis(false).analyse(cs).get(0).contracts()).as("without the fact all three are the core")
                .containsExactlyInAnyOrder("m.must", "m.never", "m.next");
    }

    // ------------------------------------------------------------------ brute force

    /** Each contract's assumption and guarantee, as one list. */
    private static List<Formula> both(List<Contract> cs) {
        List<Formula> fs = new ArrayList<>();
        for (Contract c : cs) {
            fs.add(c.assume());
            fs.add(c.guarantee());
        }
        return fs;
    }

    /**
     * Whether some non-empty sequence of {@link RelatedAtomsDeadEndTest#EVENTS} keeps every formula (each accepts at its end),
     * by a search of every product state of their progressions; {@code resultsAfterCalls}: a result of a tool only after a
     * call of it (the state also holds the tools called so far).
     */
    static boolean satisfiable(List<Formula> fs, boolean resultsAfterCalls) {
        if (fs.isEmpty()) return true;
        List<Object> start = new ArrayList<>();
        for (Formula f : fs) start.add(Progression.start(f, ATOMS));
        start.add(0);
        Set<List<Object>> seen = new HashSet<>();
        ArrayDeque<List<Object>> todo = new ArrayDeque<>();
        seen.add(start);
        todo.add(start);
        while (!todo.isEmpty()) {
            List<Object> state = todo.poll();
            int called = (Integer) state.get(fs.size());
            for (int e = 0; e < LETTERS.length; e++) {
                Event event = EVENTS.get(e);
                if (resultsAfterCalls && event.kind() == EventKind.RETURN && (called & RelatedAtomsDeadEndTest.toolBit(event)) == 0) continue;
                List<Object> next = new ArrayList<>();
                boolean all = true;
                for (int f = 0; f < fs.size(); f++) {
                    Progression.Residual r = Progression.step((Progression.Residual) state.get(f), LETTERS[e]);
                    next.add(r);
                    all &= Progression.acceptsAtEnd(r);
                }
                if (all) return true;
                next.add(event.kind() == EventKind.CALL ? called | RelatedAtomsDeadEndTest.toolBit(event) : called);
                if (seen.add(next)) todo.add(next);
            }
            assertThat(seen.size()).as("the product stays small").isLessThan(50_000);
        }
        return false;
    }

    /**
     * The consistency, compatibility and conflict findings agree with brute force, with the fact (sessions the agent sees
     * from their start) and without it (the checks before session 22); where they differ, the finding says what it rests on.
     */
    @Property(tries = 200)
    void theChecksAgreeWithBruteForceWithAndWithoutTheFact(@ForAll("libraries") List<Contract> library) {
        boolean differs = false;
        for (boolean fact : List.of(true, false)) {
            List<LibraryAnalysis.Finding> found = analysis(fact).analyseTogether(library);
            assertThat(found).extracting(LibraryAnalysis.Finding::kind).doesNotContain(LibraryAnalysis.Kind.TOO_LARGE);
            Set<String> inconsistent = new TreeSet<>();
            List<Contract> consistent = new ArrayList<>();
            for (Contract c : library) {
                if (satisfiable(both(List.of(c)), fact)) consistent.add(c);
                else inconsistent.add(c.id());
            }
            Set<String> reported = found.stream().filter(f -> f.kind() == LibraryAnalysis.Kind.INCONSISTENT)
                    .flatMap(f -> f.contracts().stream()).collect(Collectors.toCollection(TreeSet::new));
            assertThat(reported).as("inconsistent, fact " + fact).isEqualTo(inconsistent);
            List<Formula> assumptions = library.stream().map(Contract::assume).filter(a -> !(a instanceof Formula.Const k && k.value())).toList();
            assertThat(found.stream().anyMatch(f -> f.kind() == LibraryAnalysis.Kind.INCOMPATIBLE)).as("incompatible, fact " + fact)
                    .isEqualTo(!assumptions.isEmpty() && !satisfiable(assumptions, fact));
            boolean conflict = !consistent.isEmpty() && !satisfiable(both(consistent), fact);
            assertThat(found.stream().anyMatch(f -> f.kind() == LibraryAnalysis.Kind.CONFLICT)).as("conflict, fact " + fact).isEqualTo(conflict);
            for (LibraryAnalysis.Finding f : found) {
                if (f.kind() == LibraryAnalysis.Kind.DEAD_END || f.kind() == LibraryAnalysis.Kind.TOO_LARGE) continue;
                List<Contract> named = library.stream().filter(c -> f.contracts().contains(c.id())).toList();
                List<Formula> fs = f.kind() == LibraryAnalysis.Kind.INCOMPATIBLE ? named.stream().map(Contract::assume).toList() : both(named);
                assertThat(satisfiable(fs, fact)).as(f + ": its contracts have no trace").isFalse();
                if (f.kind() == LibraryAnalysis.Kind.CONFLICT) {
                    for (Contract drop : named) {   // minimal: dropping any one leaves a trace
                        List<Contract> rest = new ArrayList<>(named);
                        rest.remove(drop);
                        assertThat(satisfiable(both(rest), fact)).as(f + " without " + drop.id()).isTrue();
                    }
                }
                boolean needsFact = satisfiable(fs, false);
                assertThat(f.explanation().contains("this rests on a result of")).as(f.toString()).isEqualTo(fact && needsFact);
                differs |= fact && needsFact;
            }
        }
        Statistics.collect(differs ? "a finding only the fact makes" : "the same findings");
        Statistics.coverage(check -> check.check("a finding only the fact makes").count(k -> k >= 1));
    }

    @Provide
    Arbitrary<List<Contract>> libraries() {
        Arbitrary<String> results = Arbitraries.of("F returned(t0)", "F return", "G !call(t0)", "G !call", "G(call(t1) -> F returned(t0))",
                "G(call -> call(t1))", "F (returned(t0) & X user)", "G(return -> X call(t0))");
        Arbitrary<String> assume = Arbitraries.frequencyOf(Tuple.of(5, Arbitraries.just("true")), Tuple.of(1, RelatedAtomsDeadEndTest.formula(1)),
                Tuple.of(1, results));
        Arbitrary<String> guarantee = Arbitraries.frequencyOf(Tuple.of(2, RelatedAtomsDeadEndTest.formula(2)), Tuple.of(3, results),
                Tuple.of(1, Combinators.combine(results, RelatedAtomsDeadEndTest.formula(1)).as((a, b) -> "(" + a + ") & (" + b + ")")));
        return Combinators.combine(assume, guarantee).as((a, g) -> new String[] {a, g}).list().ofMinSize(1).ofMaxSize(3)
                .map(specs -> {
                    List<Contract> out = new ArrayList<>();
                    for (int i = 0; i < specs.size(); i++) out.add(c("c" + i, specs.get(i)[0], specs.get(i)[1]));
                    return out;
                });
    }
}
