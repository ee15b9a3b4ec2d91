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
            Break b = agentBreak(a, latchedByAgent, agentAtoms);
            if (b == null) continue;
            Library.ContractInfo info = lib.info().get(c);
            String assume = info.assumeText().strip();
            String head = info.file() + ":" + info.line() + ": contract " + info.id() + "'s assumption (" + assume + ")";
            String idle = " a broken assumption makes the contract IDLE, and only an environment event (a user message, a tool"
                    + " result) that would break it is withheld.";
            if (b.byAnyEvent()) {
                // G(call(a) -> X returned(a)), G(call(a) -> WX false): no choice of the agent's keeps it after the call
                String at = b.prefix().isEmpty() ? "at the first event" : "right after " + String.join(", ", b.prefix());
                String tool = b.tool();
                notes.add(head + " is broken by any event of the agent's " + at + ": "
                        + (b.environmentKeeps()
                            ? "it requires an event there that only the environment gives (a result, a user message), and one"
                                + " that would break it is withheld, so when that happens (a failed result, say), or another call"
                                + " comes first (tools that run concurrently), the agent's next call or answer comes there"
                            : "it requires the session to end there, and an environment event there is withheld, so the agent's"
                                + " next call or answer comes there")
                        + "; so the agent can break the assumption by acting at all and so escape the guarantee:" + idle
                        + (b.environmentKeeps()
                            ? " Write the assumption over the results alone"
                                + (tool == null ? " (G !failed(T): every call of T succeeds; G(returned(T) -> ...): what a result of T"
                                        : " (G !failed(" + tool + "): every call of " + tool + " succeeds; G(returned(" + tool
                                            + ") -> ...): what a result of " + tool)
                                + " holds), not over what comes after the agent's own event"
                            : " Move that condition into the guarantee, or into a separate contract whose guarantee it is"
                                + " (guarantee: " + assume + ")"));
                continue;
            }
            notes.add(head + " reads the agent's own"
                    + " events (" + String.join(", ", agentAtoms) + "), so the agent can break the assumption and so escape the guarantee:"
                    + idle + " Move those conditions into the guarantee, or into a separate contract whose"
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
        return agentBreak(a, latchedByAgent, agentAtoms) != null;
    }

    private static Break agentBreak(Dfa a, Set<String> latchedByAgent, List<String> agentAtoms) {
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
        return agent == 0 ? null : agentBreak(a, agent, env);
    }

    /**
     * How an agent event breaks an assumption: at a state reached after {@code prefix} (the atoms that hold at each
     * event, shortest first), either by what the event is (some agent events there keep it: {@code byAnyEvent} false),
     * or by coming at all ({@code byAnyEvent}: every agent event breaks it there, as {@code G(call(a) -> X returned(a))}
     * after a call of a); {@code environmentKeeps} whether some environment event there would keep it, {@code tool} the
     * tool whose call ends the prefix, or null.
     */
    record Break(boolean byAnyEvent, boolean environmentKeeps, List<String> prefix, String tool) {}

    /** Whether some agent event breaks the assumption: {@link #agentBreak(Dfa, long, long)} found one. */
    static boolean agentCanBreak(Dfa a, long agent, long env) {
        return agentBreak(a, agent, env) != null;
    }

    /**
     * Whether some state of the assumption's automaton that the trace can reach, and that is not already violated for
     * good, has a letter possible at an agent event (the environment-only atoms false) that violates the assumption for
     * good: an agent's call or answer there breaks it, whether by what it is (a call of debug_mode) or by coming at all
     * ({@code G(call(a) -> WX false)} after a call of a: trial21). With more than {@link #MAX_FREE_ATOMS} atoms to
     * enumerate, an assumption that reads the agent's events at all counts. A state where the agent's choice decides is
     * preferred for the witness over one where any agent event breaks it; null when no agent event breaks it.
     */
    static Break agentBreak(Dfa a, long agent, long env) {
        int k = a.atoms().size();
        long all = k == 64 ? -1L : (1L << k) - 1;
        long free = all & ~env;
        if (Long.bitCount(free) > MAX_FREE_ATOMS) return new Break(false, true, List.of(), null);
        long state = free & ~agent;
        int[] parent = new int[a.stateCount()];
        java.util.Arrays.fill(parent, -2);
        List<Integer> order = new ArrayList<>();
        java.util.ArrayDeque<Integer> todo = new java.util.ArrayDeque<>();
        parent[a.initialState()] = -1;
        todo.add(a.initialState());
        while (!todo.isEmpty()) {
            int q = todo.poll();
            order.add(q);
            for (int s : a.successors(q)) {
                if (parent[s] == -2) {
                    parent[s] = q;
                    todo.add(s);
                }
            }
        }
        int anyAt = -1;
        for (int q : order) {
            if (a.verdict(q) == RvVerdict.PERMANENTLY_VIOLATED) continue;
            // does some agent event (any assignment of the atoms the agent does not decide, and of its own) violate it?
            boolean someBreaks = false;
            boolean choice = false;
            boolean any = false;
            for (long s = state; ; s = (s - 1) & state) {
                int broken = 0;
                int letters = 0;
                for (long g = agent; ; g = (g - 1) & agent) {
                    letters++;
                    if (a.verdict(a.next(q, s | g)) == RvVerdict.PERMANENTLY_VIOLATED) broken++;
                    if (g == 0) break;
                }
                someBreaks |= broken > 0;
                choice |= broken > 0 && broken < letters;
                any |= broken == letters;
                if (s == 0) break;
            }
            if (choice) return new Break(false, true, prefix(a, parent, q), null);
            if (someBreaks && any && anyAt < 0) anyAt = q;
        }
        if (anyAt < 0) return null;
        return new Break(true, environmentKeeps(a, anyAt, agent, env), prefix(a, parent, anyAt), callEnding(a, parent, anyAt));
    }

    /** Whether an event that sets no agent atom (a result, a user message) leaves the assumption unbroken at {@code q}. */
    private static boolean environmentKeeps(Dfa a, int q, long agent, long env) {
        int k = a.atoms().size();
        long all = k == 64 ? -1L : (1L << k) - 1;
        long others = all & ~agent;
        if (Long.bitCount(others) > 16) return true;
        for (long l = others; ; l = (l - 1) & others) {
            if (a.verdict(a.next(q, l)) != RvVerdict.PERMANENTLY_VIOLATED) return true;
            if (l == 0) return false;
        }
    }

    /** The events (the atoms that hold at each, or "an event") along a shortest way to {@code q}. */
    private static List<String> prefix(Dfa a, int[] parent, int q) {
        List<String> out = new ArrayList<>();
        for (int s = q; parent[s] >= 0; s = parent[s]) {
            java.util.BitSet letter = a.letterTo(parent[s], s);
            List<String> holding = new ArrayList<>();
            for (int j = letter == null ? -1 : letter.nextSetBit(0); j >= 0; j = letter.nextSetBit(j + 1)) holding.add(a.atoms().get(j).key());
            out.add(0, holding.isEmpty() ? "an event" : String.join(" & ", holding));
        }
        return out;
    }

    /** The tool of the {@code call(T)} that holds at the last event on the way to {@code q}, or null. */
    private static String callEnding(Dfa a, int[] parent, int q) {
        if (parent[q] < 0) return null;
        java.util.BitSet letter = a.letterTo(parent[q], q);
        for (int j = letter == null ? -1 : letter.nextSetBit(0); j >= 0; j = letter.nextSetBit(j + 1)) {
            Atom x = a.atoms().get(j);
            if (x.name().equals("call") && !x.args().isEmpty()) return x.args().get(0).toString();
        }
        return null;
    }

    /** The context key a {@code ctx(k)} or {@code permission(p)} atom reads (permissions live under "permissions"). */
    private static String contextKey(Atom x) {
        if (x.name().equals("permission")) return "permissions";
        if (x.args().isEmpty()) return null;
        String k = x.args().get(0).toString();
        return k.startsWith("ctx.") ? k.substring(4) : k;
    }
}
