package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.RvVerdict;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Set;

/**
 * Contracts whose assumption the agent's own events (its tool calls and model output) can break: a broken assumption
 * makes the contract IDLE and only an environment event that would break one is withheld, so such an agent escapes
 * the guarantee by breaking the assumption; {@code check} and the agent's start say so.
 */
public final class AgentAssumptions {
    private AgentAssumptions() {}

    /** Forms that hold only at an environment event (USER, RETURN), so they are false at every CALL and ASSISTANT. */
    private static final Set<String> ENVIRONMENT_ONLY = Set.of("user/0", "return/0", "returned/1", "failed/1", "result_matches/1",
            "result_matches/2", "user_matches/1", "end/0");
    /** Forms that read state the agent's events do not write (a latch on a CALL aside): context, permissions, depth. */
    private static final Set<String> STATE = Set.of("ctx/1", "permission/1", "depth/0");
    /** Letters (assignments of the atoms an agent event can set) enumerated per state at most: 2^12, so the start stays quick. */
    private static final int MAX_FREE_ATOMS = 12;

    /**
     * One note per contract whose assumption an agent event can break, naming its file:line, the contract and the
     * atoms of the assumption that the agent's events decide; empty when there is none.
     */
    public static List<String> notes(Library lib) {
        List<String> notes = new ArrayList<>();
        Set<String> latchedByAgent = latchedByAgent(lib);
        for (int c = 0; c < lib.info().size(); c++) {
            Dfa a = lib.contracts().formulas().get(lib.contracts().assumeOf(c));
            List<String> agentAtoms = new ArrayList<>();
            if (!agentCanBreak(a, latchedByAgent, agentAtoms)) continue;
            Library.ContractInfo info = lib.info().get(c);
            String assume = info.assumeText().strip();
            notes.add(info.file() + ":" + info.line() + ": contract " + info.id() + "'s assumption (" + assume + ") reads the agent's own"
                    + " events (" + String.join(", ", agentAtoms) + "), so the agent can break the assumption and so escape the guarantee:"
                    + " a broken assumption makes the contract IDLE, and only an environment event (a user message, a tool result) that"
                    + " would break it is withheld. Move those conditions into the guarantee, or into a separate contract whose"
                    + " guarantee they are (guarantee: " + assume + ")");
        }
        return notes;
    }

    /**
     * Whether an agent event could break {@code formula} written as an assumption of a contract of {@code lib} (so that
     * advice to make a condition an assumption does not hand the agent a way out).
     */
    public static boolean agentCouldBreak(Library lib, Dfa formula) {
        return agentCanBreak(formula, latchedByAgent(lib), new ArrayList<>());
    }

    private static Set<String> latchedByAgent(Library lib) {
        Set<String> latchedByAgent = new java.util.HashSet<>();
        for (var spec : lib.specs()) {
            for (var l : spec.latches()) {
                if (l.kind().equalsIgnoreCase("CALL") || l.kind().equalsIgnoreCase("ASSISTANT")) {
                    latchedByAgent.add(l.key().startsWith("ctx.") ? l.key().substring(4) : l.key());
                }
            }
        }
        return latchedByAgent;
    }

    /** {@link #agentCanBreak(Dfa, long, long)} over the atoms of {@code a}, adding the agent's atoms it reads to {@code agentAtoms}. */
    private static boolean agentCanBreak(Dfa a, Set<String> latchedByAgent, List<String> agentAtoms) {
        List<Atom> atoms = a.atoms();
        long agent = 0;
        long env = 0;
        for (int j = 0; j < atoms.size(); j++) {
            Atom x = atoms.get(j);
            String form = x.name() + "/" + x.args().size();
            if (ENVIRONMENT_ONLY.contains(form)) {
                env |= 1L << j;
            } else if (!STATE.contains(form) || latchedByAgent.contains(contextKey(x))) {
                agent |= 1L << j;
                agentAtoms.add(x.key());
            }
        }
        return agent != 0 && agentCanBreak(a, agent, env);
    }

    /**
     * Whether some state of the assumption's automaton that the trace can reach, and that is not already violated for
     * good, has a letter possible at an agent event (the environment-only atoms false) that violates the assumption for
     * good: an agent's call or answer there breaks it, whether by what it is (a call of debug_mode) or by coming at all
     * ({@code G(call(a) -> WX false)} after a call of a: trial21). With more than {@link #MAX_FREE_ATOMS} atoms to
     * enumerate, an assumption that reads the agent's events at all counts.
     */
    static boolean agentCanBreak(Dfa a, long agent, long env) {
        int k = a.atoms().size();
        long all = k == 64 ? -1L : (1L << k) - 1;
        long free = all & ~env;
        if (Long.bitCount(free) > MAX_FREE_ATOMS) return true;
        long state = free & ~agent;
        BitSet reachable = new BitSet(a.stateCount());
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
        reachable.set(a.initialState());
        todo.add(a.initialState());
        while (!todo.isEmpty()) {
            int q = todo.poll();
            for (int s : a.successors(q)) {
                if (!reachable.get(s)) {
                    reachable.set(s);
                    todo.add(s);
                }
            }
        }
        for (int q = reachable.nextSetBit(0); q >= 0; q = reachable.nextSetBit(q + 1)) {
            if (a.verdict(q) == RvVerdict.PERMANENTLY_VIOLATED) continue;
            // does some agent event (any assignment of the atoms the agent does not decide, and of its own) violate it?
            for (long s = state; ; s = (s - 1) & state) {
                for (long g = agent; ; g = (g - 1) & agent) {
                    if (a.verdict(a.next(q, s | g)) == RvVerdict.PERMANENTLY_VIOLATED) return true;
                    if (g == 0) break;
                }
                if (s == 0) break;
            }
        }
        return false;
    }

    /** The context key a {@code ctx(k)} or {@code permission(p)} atom reads (permissions live under "permissions"). */
    private static String contextKey(Atom x) {
        if (x.name().equals("permission")) return "permissions";
        if (x.args().isEmpty()) return null;
        String k = x.args().get(0).toString();
        return k.startsWith("ctx.") ? k.substring(4) : k;
    }
}
