package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryReader;
import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Parser;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.reference.Progression;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An assumption that the agent's own events can break lets the agent switch its contract off (IDLE) and escape the
 * guarantee (trial7 repro 8: assume G !call(debug_mode), guarantee G(count(pay) <= 1)); {@link AgentAssumptions} names
 * such contracts, and whether the agent can break an assumption is checked against formula progression.
 */
class AgentAssumptionsTest {

    private static List<String> notes(String yaml) {
        return AgentAssumptions.notes(Library.compile(List.of(LibraryReader.read("lib.yaml", yaml))));
    }

    @Test
    void anAssumptionOverTheAgentsCallsIsNamedWithItsAgentAtoms() {
        List<String> notes = notes("library: ag2\ncontracts:\n  - id: ag2.pay-once\n    assume: G !call(debug_mode)\n"
                + "    guarantee: G(count(pay) <= 1)\n    message: one payment\n");
        assertThat(notes).containsExactly("lib.yaml:3: contract ag2.pay-once's assumption (G !call(debug_mode)) reads the agent's own"
                + " events (call(debug_mode)), so the agent can break the assumption and so escape the guarantee: a broken assumption"
                + " makes the contract IDLE, and only an environment event (a user message, a tool result) that would break it is"
                + " withheld. Move those conditions into the guarantee, or into a separate contract whose guarantee they are"
                + " (guarantee: G !call(debug_mode))");
    }

    @Test
    void anOrderingAssumptionTheAgentCanBreakIsNamedAndOneOverResultsIsNot() {
        assertThat(notes("library: x\ncontracts:\n  - id: x.a\n    assume: G(call(refund) -> O returned(lookup))\n    guarantee: G !call(wipe)\n"))
                .singleElement().asString().contains("x.a's assumption").contains("(call(refund))");
        assertThat(notes("library: x\ncontracts:\n  - id: x.a\n    assume: G !failed(lookup)\n    guarantee: G(call(refund) -> O returned(lookup))\n"))
                .isEmpty();
        // an agent atom that cannot decide a break at an agent event (the guard return is false there)
        assertThat(notes("library: x\ncontracts:\n  - id: x.a\n    assume: G(return -> !mentions_erased)\n    guarantee: G !call(wipe)\n"))
                .isEmpty();
    }

    /**
     * trial21 (06): check advised {@code assume: G(call(a) -> WX false)}; any agent call after a breaks it (the contract
     * goes IDLE and that call runs), yet no note came. Checked with the monitor: call(x) after call(a) is not refused.
     */
    @Test
    void anAssumptionAnyAgentEventAfterACallBreaksIsNamed() {
        String yaml = "library: adv2\ncontracts:\n  - id: adv2.a-last\n    assume: G(call(a) -> WX false)\n    guarantee: G !call(x)\n"
                + "    strategy: suppress\n    message: m\n";
        assertThat(notes(yaml)).singleElement().asString().contains("adv2.a-last's assumption").contains("so the agent can break");
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml", yaml)));
        var replay = lib.replay("s");
        replay.next(dev.tracegate.matchers.event.Event.call("s", 1, "a", "{}"), true, true);
        assertThat(replay.next(dev.tracegate.matchers.event.Event.call("s", 2, "x", "{}"), true, true).decision())
                .as("the agent's call breaks the assumption and escapes the guarantee")
                .isNotEqualTo(dev.tracegate.engine.monitor.Decision.Kind.VIOLATION);
        // and check's advice for that guarantee no longer suggests making it an assumption
        Library step1 = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: adv\ncontracts:\n  - id: adv.a-last\n    guarantee: G(call(a) -> WX false)\n    message: m\n")));
        assertThat(EnvironmentFailures.notes(step1)).singleElement().asString().doesNotContain("make the condition the assumption");
        Library quote = Library.compile(List.of(LibraryReader.read("lib.yaml",
                "library: q\ncontracts:\n  - id: q.book\n    guarantee: G(returned(quote) -> X call(book))\n    message: m\n")));
        assertThat(EnvironmentFailures.notes(quote)).as("an answer after the quote would break it as an assumption").singleElement()
                .asString().doesNotContain("make the condition the assumption").contains("Not as an assumption");
    }

    /**
     * trial21 leftover: an assumption on the result after the agent's own call ({@code G(call(a) -> X returned(a))}) looks
     * like one only the environment decides. By the definition (an agent event at a reachable state violates it for good)
     * the agent can break it: after call(a) a failed result would break it and is withheld (or, with tools run
     * concurrently, another call comes first), so the agent's next event comes right after call(a) and breaks it whatever
     * it is. The oracle and the analysis agree on these and the similar ones; F never breaks for good. The note said the
     * assumption "reads the agent's own events (call(a))" and advised moving it into the guarantee, where a's failed
     * result (which tracegate cannot refuse) would make the contract fail; it now says the agent breaks it by acting at
     * all and advises an assumption over the results alone.
     */
    @Test
    void anAssumptionOnTheResultAfterTheAgentsCallIsBrokenByAnyAgentEventThere() {
        String[][] cases = {
                {"G(call(a) -> X returned(a))", "true"},
                {"G(call(a) -> WX returned(a))", "true"},
                {"G(call(a) -> X (returned(a) | failed(a)))", "true"},
                {"G(call(a) -> F returned(a))", "false"},
                {"G(call(a) -> X !call(a))", "true"},
        };
        DfaCompiler compiler = new DfaCompiler(10_000);
        for (String[] c : cases) {
            Formula f = Parser.parse(c[0]);
            Dfa dfa = compiler.compile(f);
            long agent = 0;
            long env = 0;
            for (int j = 0; j < dfa.atoms().size(); j++) {
                String name = dfa.atoms().get(j).name();
                if (name.equals("call")) agent |= 1L << j;
                if (name.equals("returned") || name.equals("failed")) env |= 1L << j;
            }
            boolean expected = Boolean.parseBoolean(c[1]);
            assertThat(oracle(f, dfa.atoms(), agent, env, new ArrayList<>(), LEN)).as("oracle: %s", c[0]).isEqualTo(expected);
            assertThat(AgentAssumptions.agentCanBreak(dfa, agent, env)).as("analysis: %s", c[0]).isEqualTo(expected);
            if (expected) {
                assertThat(AgentAssumptions.agentBreak(dfa, agent, env).byAnyEvent()).as("by any event: %s", c[0])
                        .isEqualTo(!c[0].contains("!call(a)"));
            }
        }

        String yaml = "library: r\ncontracts:\n  - id: r.pay-once\n    assume: G(call(a) -> X returned(a))\n"
                + "    guarantee: G(count(pay) <= 1)\n    message: m\n";
        assertThat(notes(yaml)).containsExactly("lib.yaml:3: contract r.pay-once's assumption (G(call(a) -> X returned(a))) is broken"
                + " by any event of the agent's right after call(a): it requires an event there that only the environment gives (a"
                + " result, a user message), and one that would break it is withheld, so when that happens (a failed result, say),"
                + " or another call comes first (tools that run concurrently), the agent's next call or answer comes there; so the"
                + " agent can break the assumption by acting at all and so escape the guarantee: a broken assumption makes the"
                + " contract IDLE, and only an environment event (a user message, a tool result) that would break it is withheld."
                + " Write the assumption over the results alone (G !failed(a): every call of a succeeds; G(returned(a) -> ...):"
                + " what a result of a holds), not over what comes after the agent's own event");
        // the monitor: a's failed result is withheld, the agent's next call breaks the assumption, and its second pay runs
        Library lib = Library.compile(List.of(LibraryReader.read("lib.yaml", yaml)));
        for (boolean error : new boolean[] {false, true}) {
            var replay = lib.replay("s");
            replay.next(dev.tracegate.matchers.event.Event.call("s", 1, "a", "{}"), true, true);
            var result = replay.next(dev.tracegate.matchers.event.Event.returned("s", 2, "a", "x", error), false, true);
            assertThat(result.decision()).isEqualTo(error ? dev.tracegate.engine.monitor.Decision.Kind.SUPPRESS
                    : dev.tracegate.engine.monitor.Decision.Kind.PASS);
            replay.next(dev.tracegate.matchers.event.Event.call("s", 3, "pay", "{}"), true, true);
            assertThat(replay.next(dev.tracegate.matchers.event.Event.call("s", 4, "pay", "{}"), true, true).decision())
                    .as("second pay after a %s result of a", error ? "failed" : "successful")
                    .isEqualTo(error ? dev.tracegate.engine.monitor.Decision.Kind.PASS : dev.tracegate.engine.monitor.Decision.Kind.BLOCK);
        }
        // the advised assumption: a failed result is withheld, and no agent event breaks it
        assertThat(notes(yaml.replace("G(call(a) -> X returned(a))", "G !failed(a)"))).isEmpty();
        // a guarantee that must end the session after a call keeps the advice to move it into the guarantee
        assertThat(notes("library: e\ncontracts:\n  - id: e.last\n    assume: G(call(a) -> WX false)\n    guarantee: G !call(x)\n"))
                .singleElement().asString().contains("right after call(a): it requires the session to end there")
                .contains("Move that condition into the guarantee");
    }

    @Test
    void aContextKeyCountsAsTheAgentsOnlyWhenALatchOnACallWritesIt() {
        String contract = "contracts:\n  - id: x.a\n    assume: G !ctx(locked)\n    guarantee: G !call(wipe)\n";
        assertThat(notes("library: x\ncontext:\n  - on: {kind: RETURN, tool: lock}\n    set: locked\n    value: \"yes\"\n" + contract)).isEmpty();
        assertThat(notes("library: x\ncontext:\n  - on: {kind: CALL, tool: lock}\n    set: locked\n    value: \"yes\"\n" + contract))
                .singleElement().asString().contains("(ctx(locked))");
    }

    @Test
    void noBuiltinLibraryHasAnAssumptionTheAgentCanBreak() {
        for (String b : Library.BUILTINS) {
            assertThat(AgentAssumptions.notes(Library.load(List.of(b), null))).as(b).isEmpty();
        }
    }

    /**
     * Oracle: formula progression (the engine's reference evaluator, which shares nothing with the automata) over every
     * prefix up to a length: the agent can break the assumption when, after some prefix not yet violated for good, an
     * agent letter (results false) violates it for good. When
     * the automaton has at most {@code LEN + 1} states every state is reached within the bound, so both must agree;
     * otherwise the oracle's finds must be among the analysis' finds.
     */
    @Test
    void agreesWithProgressionOnRandomAssumptions() {
        Random random = new Random(7);
        DfaCompiler compiler = new DfaCompiler(10_000);
        int compared = 0;
        int breakable = 0;
        for (int i = 0; i < 60; i++) {
            Formula f = Parser.parse(FORMULAS.future(random, 3));
            Dfa dfa = compiler.compile(f);
            List<Atom> atoms = dfa.atoms();
            long agent = 0;
            long env = 0;
            for (int j = 0; j < atoms.size(); j++) {
                if (atoms.get(j).name().equals("call")) agent |= 1L << j;
                if (atoms.get(j).name().equals("returned")) env |= 1L << j;
            }
            if (agent == 0) continue;
            boolean analysis = AgentAssumptions.agentCanBreak(dfa, agent, env);
            boolean oracle = oracle(f, atoms, agent, env, new ArrayList<>(), LEN);
            if (dfa.stateCount() <= LEN + 1) {
                assertThat(analysis).as("%s", f).isEqualTo(oracle);
                compared++;
                if (oracle) breakable++;
            } else if (oracle) {
                assertThat(analysis).as("%s", f).isTrue();
            }
        }
        assertThat(compared).as("formulas compared exactly").isGreaterThan(20);
        assertThat(breakable).as("both answers among them").isBetween(3, compared - 3);
    }

    private static final int LEN = 3;

    private static boolean oracle(Formula f, List<Atom> atoms, long agent, long env, List<Long> prefix, int left) {
        int k = atoms.size();
        RvVerdict[] next = new RvVerdict[1 << k];
        for (long l = 0; l < (1L << k); l++) next[(int) l] = verdict(f, atoms, prefix, l);
        for (long l = 0; l < (1L << k); l++) {
            if ((l & env) == 0 && next[(int) l] == RvVerdict.PERMANENTLY_VIOLATED) return true;
        }
        if (left == 0) return false;
        for (long l = 0; l < (1L << k); l++) {
            if (next[(int) l] == RvVerdict.PERMANENTLY_VIOLATED) continue;
            prefix.add(l);
            boolean found = oracle(f, atoms, agent, env, prefix, left - 1);
            prefix.remove(prefix.size() - 1);
            if (found) return true;
        }
        return false;
    }

    private static RvVerdict verdict(Formula f, List<Atom> atoms, List<Long> prefix, long letter) {
        long[] p = new long[prefix.size() + 1];
        for (int i = 0; i < prefix.size(); i++) p[i] = prefix.get(i);
        p[prefix.size()] = letter;
        return Progression.verdict(f, atoms, p);
    }

    private static final FormulaText FORMULAS = new FormulaText("call(a)", "returned(b)", "ctx(k)");
}
