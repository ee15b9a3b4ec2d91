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
