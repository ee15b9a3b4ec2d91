package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.ToolName;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Contracts whose guarantee an event the agent does not control (a tool result, a user message, a consent or an
 * erasure) can make fail: tracegate refuses only the agent's own calls and answers, so such an event is applied and
 * the contract is violated for good in that session whatever its strategy; {@code check} notes them.
 *
 * <p>Decided on the automata: from the initial states, walk the states of the library's assumptions and guarantees
 * that the monitor can reach (an agent event that would make a contract FAIL is refused, an environment event that
 * would break an assumption is withheld, a broken assumption ends its contract's interest), and ask whether one event
 * of the environment leads from a reached state to a contract's violated guarantee while its assumption still holds.
 * Events are letters that one event of its kind can produce: a result is no call ({@code call(T)}, {@code arg(...)} and
 * the other argument atoms are false at it), names one tool, is a success or a failure; an atom about a call of T holds
 * only with {@code call(T)}; {@code count(T)} counts the calls of T, {@code sum(T, f)} changes only at calls. Atoms the
 * event does not decide by its kind (data categories, context, purposes...) take every value.
 */
public final class EnvironmentFailures {
    private EnvironmentFailures() {}

    /**
     * A contract (index into the library's contracts) that an event of {@code kind} can make fail after the events
     * of {@code prefix} (each the atoms that hold at it, or its kind when none does); {@code atoms} hold at that event.
     * {@code ownResultOf}, when not null, is the tool whose call ends {@code prefix}: every result of that call (success
     * or failure, whatever it holds), which is the next event of the session after the call, makes the contract fail.
     */
    public record Finding(int contract, EventKind kind, List<String> prefix, List<String> atoms, String ownResultOf) {
        public Finding(int contract, EventKind kind, List<String> prefix, List<String> atoms) {
            this(contract, kind, prefix, atoms, null);
        }
    }

    /** Atoms free at one event kind beyond which the letters are not enumerated (2^12 per reached state and kind). */
    private static final int MAX_FREE_ATOMS = 12;
    /** Reached states (the automata's states, the counts, the sums' truth) beyond which a walk gives up. */
    private static final int MAX_NODES = 20_000;

    private static final EventKind[] KINDS = {EventKind.USER, EventKind.RETURN, EventKind.CONSENT, EventKind.ERASURE,
            EventKind.CALL, EventKind.ASSISTANT};

    /** One note per contract that an environment event can make fail, with where, how and what to write instead. */
    public static List<String> notes(Library lib) {
        List<String> notes = new ArrayList<>();
        for (Finding f : find(lib)) notes.add(note(lib, f));
        return notes;
    }

    /** The note for one finding of {@link #find(Library)}: where, how, and what to write instead. */
    public static String note(Library lib, Finding f) {
        Library.ContractInfo info = lib.info().get(f.contract());
        String guarantee = info.guaranteeText().strip();
        if (f.ownResultOf() != null) {
            String t = f.ownResultOf();
            return info.file() + ":" + info.line() + ": contract " + info.id() + "'s guarantee (" + guarantee + ") is made to fail"
                    + " by the result of " + t + " after " + String.join(", ", f.prefix()) + ", whatever that result holds: the"
                    + " next event of a session after a call is that call's own result (its RETURN), so a session that calls " + t
                    + (f.prefix().size() <= 1 ? "" : " after those events") + " violates the contract for good there, whatever"
                    + " its strategy. " + ownResultAdvice(t)
                    + " (docs/LIBRARY.md, Analysis)";
        }
        return info.file() + ":" + info.line() + ": contract " + info.id() + "'s guarantee (" + guarantee + ") can be made to"
                + " fail by an event the agent does not control: " + event(f.kind(), f.atoms())
                + (f.prefix().isEmpty() ? " as the first event" : " after " + String.join(", ", f.prefix()))
                + ". tracegate refuses only the agent's own calls and answers, so that event is applied and the contract is"
                + " violated for good in that session, whatever its strategy (redact never rewrites a result or a user"
                + " message). " + (AgentAssumptions.agentCouldBreak(lib, lib.contracts().formulas().get(lib.contracts().guaranteeOf(f.contract())))
                    // as an assumption the agent's own events would break it, and so escape its guarantee (trial21)
                    ? "Not as an assumption: the agent's own events can break this condition, and a broken assumption lets"
                        + " the agent escape the guarantee; to withhold such an event, make a condition on the environment's"
                        + " events alone the assumption (strategy: suppress)"
                    : "To withhold such an event, make the condition the assumption (assume: " + guarantee
                        + ", strategy: suppress; the model then gets a notice instead of the content)")
                + "; to keep the data out of"
                + " what the agent does with it, put the condition on the agent's own events (G(assistant -> ...) with"
                + " strategy: redact masks the answer; G(call(T) -> ...) guards a call) (docs/LIBRARY.md, Analysis)";
    }

    /**
     * What to write instead of a guarantee that a call's own result makes fail (an {@code X} read right after
     * {@code call(t)}, which is t's result): the same for {@code check}'s note and the agent's warning.
     */
    public static String ownResultAdvice(String t) {
        return "To require something right after the call, put the trigger on its result: G(returned(" + t + ") -> X call(...))"
                + " (or G(call(" + t + ") -> X X ...) whatever the result); for \"at some point later\", F: G(returned(" + t
                + ") -> F call(...)). An assumption over that call's result would withhold it in every session instead";
    }

    /**
     * The advice of the agent's warning for a contract that an environment event of {@code kind} (of tool {@code tool}
     * for a result) made fail, fitted to the guarantee: a next-step ({@code X}) read after a call of that tool is
     * broken by its own result; an argument read without its call as guard fails at every event that is no such call;
     * a counter compared so that 0 fails ({@code G(count(refund) >= 1)}) needs F, not a guard; otherwise the condition is
     * on the environment's content. Not on the hot path: said once per contract.
     */
    public static String advice(dev.tracegate.engine.ltl.Formula guarantee, EventKind kind, String tool) {
        if (kind == EventKind.RETURN && tool != null && nextAfterCallOf(guarantee, ToolName.fold(tool), false)) {
            return "The next event of a session after a call is that call's own result, and the guarantee reads the event"
                    + " right after a call of " + tool + " (X): that result is what broke it, in every session that calls "
                    + tool + ". " + ownResultAdvice(tool) + " (docs/FORMULAS.md)";
        }
        boolean readsArgs = false;
        for (Atom a : dev.tracegate.engine.ltl.Formulas.atoms(guarantee)) {
            readsArgs |= a.name().startsWith("arg") || a.name().equals("len") || a.name().equals("path_within")
                    || a.name().equals("flow") || a.name().equals("untrusted");
        }
        if (readsArgs) {
            return "If that event should not have mattered, the guarantee probably lacks a guard: G(call(T) -> arg(T, f) <= n),"
                    + " not G(arg(T, f) <= n) (docs/FORMULAS.md)";
        }
        for (Atom a : dev.tracegate.engine.ltl.Formulas.atoms(guarantee)) {
            // G(count(refund) >= 1): no guard mends a count that a session starts below (as check's first-event note says)
            if (LibraryNotes.failsAtZero(a)) {
                return "If that event should not have mattered: " + LibraryNotes.counterAdvice(a) + " (docs/FORMULAS.md)";
            }
        }
        return "If that event should not have mattered, put the condition on the agent's own events (G(call(T) -> ...),"
                + " G(assistant -> ...)); to withhold such events instead, make an assumption of a condition on them"
                + " (docs/LIBRARY.md, Analysis; `check` notes such a guarantee)";
    }

    /** Whether {@code f} has a next-step ({@code X}, {@code WX}) in the scope of a {@code call(tool)} that holds (not negated). */
    private static boolean nextAfterCallOf(dev.tracegate.engine.ltl.Formula f, String tool, boolean afterCall) {
        if (f instanceof dev.tracegate.engine.ltl.Formula.Unary u) {
            boolean next = u.op() == dev.tracegate.engine.ltl.Formula.UnOp.NEXT || u.op() == dev.tracegate.engine.ltl.Formula.UnOp.WEAK_NEXT;
            if (next && afterCall) return true;
            return nextAfterCallOf(u.arg(), tool, afterCall);
        }
        if (f instanceof dev.tracegate.engine.ltl.Formula.Binary b) {
            boolean guard = afterCall || (b.op() == dev.tracegate.engine.ltl.Formula.BinOp.IMPLIES || b.op() == dev.tracegate.engine.ltl.Formula.BinOp.AND)
                    && callsOf(b.left(), tool);
            return nextAfterCallOf(b.left(), tool, afterCall) || nextAfterCallOf(b.right(), tool, guard);
        }
        return false;
    }

    /** Whether {@code f} holds only where a call of {@code tool} does: {@code call(tool)}, or a conjunction with it. */
    private static boolean callsOf(dev.tracegate.engine.ltl.Formula f, String tool) {
        if (f instanceof Atom a) {
            return a.name().equals("call") && !a.args().isEmpty() && sameTool(tool(a.args().get(0)), tool);
        }
        return f instanceof dev.tracegate.engine.ltl.Formula.Binary b && b.op() == dev.tracegate.engine.ltl.Formula.BinOp.AND
                && (callsOf(b.left(), tool) || callsOf(b.right(), tool));
    }

    /**
     * The contracts an environment event can make fail, each with a shortest way there. All contracts are walked
     * together, as the monitor steps them (an agent event that would make any of them FAIL is refused, an environment
     * event that would break any assumption is withheld); when that walk is beyond the bounds, each contract alone,
     * which can only name more contracts, never fewer.
     */
    public static List<Finding> find(Library lib) {
        var set = lib.contracts();
        int n = set.contracts().size();
        List<Dfa> assumes = new ArrayList<>();
        List<Dfa> guarantees = new ArrayList<>();
        for (int c = 0; c < n; c++) {
            assumes.add(set.formulas().get(set.assumeOf(c)));
            guarantees.add(set.formulas().get(set.guaranteeOf(c)));
        }
        List<Finding> out = new ArrayList<>();
        Boolean declared = LibraryAnalysis.purposesDeclared(lib);
        Finding[] together = walk(assumes, guarantees, declared);
        for (int c = 0; c < n; c++) {
            Finding f;
            if (together != null) {
                f = together[c];
            } else {
                Finding[] alone = walk(List.of(assumes.get(c)), List.of(guarantees.get(c)), declared);
                f = alone == null || alone[0] == null ? null
                        : new Finding(c, alone[0].kind(), alone[0].prefix(), alone[0].atoms(), alone[0].ownResultOf());
            }
            if (f != null) out.add(f);
        }
        return out;
    }

    /** Transitions tried in one walk at most, so that a library of many open atoms cannot make {@code check} slow. */
    private static final long MAX_STEPS = 2_000_000;

    /**
     * One breadth-first walk over the product of these contracts' automata (contract {@code i} is {@code assumes[i]},
     * {@code guarantees[i]}): per contract the first environment event that makes it FAIL, or null where none does; null
     * altogether when the walk is beyond the bounds (atoms, reached states, transitions).
     */
    static Finding[] walk(List<Dfa> assumes, List<Dfa> guarantees, Boolean declared) {
        int n = assumes.size();
        Dfa[] dfas = new Dfa[2 * n];
        for (int c = 0; c < n; c++) {
            dfas[2 * c] = assumes.get(c);
            dfas[2 * c + 1] = guarantees.get(c);
        }
        List<Atom> atoms = new ArrayList<>();
        for (Dfa d : dfas) for (Atom a : d.atoms()) if (!atoms.contains(a)) atoms.add(a);
        if (atoms.size() > 63) return null;
        int[][] local = new int[dfas.length][];
        boolean[][] pv = new boolean[dfas.length][];
        for (int d = 0; d < dfas.length; d++) {
            local[d] = local(dfas[d].atoms(), atoms);
            pv[d] = new boolean[dfas[d].stateCount()];
            for (int q = 0; q < pv[d].length; q++) pv[d][q] = dfas[d].verdict(q) == RvVerdict.PERMANENTLY_VIOLATED;
        }
        Letters[] letters = new Letters[KINDS.length];
        for (int k = 0; k < KINDS.length; k++) {
            letters[k] = Letters.of(KINDS[k], atoms, declared);
            if (letters[k] == null) return null;
        }
        long sticky = letters[0].sticky;
        long stickyStart = 0;
        for (int j = 0; j < atoms.size(); j++) if (startsTrue(atoms.get(j))) stickyStart |= 1L << j;
        stickyStart &= sticky;
        Counters counters = new Counters(atoms);
        int m0 = dfas.length;

        Finding[] found = new Finding[n];
        int open = n;
        long steps = 0;
        Map<Node, Node> parent = new HashMap<>();
        Map<Node, Long> via = new HashMap<>();
        Map<Node, EventKind> viaKind = new HashMap<>();
        ArrayDeque<Node> todo = new ArrayDeque<>();
        int[] initial = new int[m0 + counters.tools.length];   // the automata's states, then the calls of each counted tool
        for (int d = 0; d < dfas.length; d++) initial[d] = dfas[d].initialState();
        Node start = new Node(initial, stickyStart);
        parent.put(start, null);
        todo.add(start);
        boolean[] fails = new boolean[n];
        while (!todo.isEmpty() && open > 0) {
            Node node = todo.poll();
            int[] q = node.states;
            // reached by a call of a named tool: does every result of that call (the session's next event) fail a contract?
            String called = viaKind.get(node) == EventKind.CALL ? letters[k(EventKind.CALL)].toolOf(via.get(node)) : null;
            // only along a session in which each earlier call was followed by its own result, as the note says sessions
            // go: two calls in a row (trial36 09: [call(prepare)], [call(prepare)]) reach states no such session does
            if (called != null && sequential(node, parent, via, viaKind, letters)) {
                // the results enumerated count against the walk's bound, as its own transitions do
                steps += 1L << Long.bitCount(letters[k(EventKind.RETURN)].free);
                if (steps > MAX_STEPS) return null;
                boolean[] every = ownResultFails(q, node.sticky, called, letters[k(EventKind.RETURN)], dfas, local, pv, counters, m0, n);
                for (int c = 0; c < n; c++) {
                    if (every[c] && (found[c] == null || found[c].ownResultOf() == null)) {
                        if (found[c] == null) open--;
                        found[c] = new Finding(c, EventKind.RETURN, prefix(node, parent, via, viaKind, atoms), List.of(), called);
                    }
                }
            }
            for (int k = 0; k < KINDS.length; k++) {
                Letters ls = letters[k];
                boolean agent = KINDS[k].controlledByAgent();
                boolean call = KINDS[k] == EventKind.CALL;
                long fixed = ls.fixedTrue | (call ? 0 : node.sticky & ls.sticky);
                for (long i = 0; i < 1L << Long.bitCount(ls.free); i++) {
                    long base = fixed | deposit(i, ls.free);
                    if (!ls.possible(base)) continue;
                    // at a call, which counted tool it calls, if any (-1: none); at other events the counts stay
                    for (int callee = -1; callee < (call ? counters.tools.length : 0); callee++) {
                        if (call && !counters.callee(base, callee, ls)) continue;
                        if (++steps > MAX_STEPS) return null;
                        int[] next = new int[q.length];
                        System.arraycopy(q, m0, next, m0, counters.tools.length);
                        counters.count(next, m0, callee);
                        long letter = base | counters.bits(next, m0);
                        for (int d = 0; d < m0; d++) next[d] = dfas[d].next(q[d], gather(letter, local[d]));
                        // as the monitor judges a step (SessionMonitor.judge): a fresh IDLE, a fresh FAIL
                        boolean freshIdle = false;
                        boolean freshFail = false;
                        for (int c = 0; c < n; c++) {
                            boolean idle0 = pv[2 * c][q[2 * c]];
                            boolean idle1 = pv[2 * c][next[2 * c]];
                            freshIdle |= idle1 & !idle0;
                            fails[c] = !idle1 & pv[2 * c + 1][next[2 * c + 1]] & !pv[2 * c + 1][q[2 * c + 1]];
                            freshFail |= fails[c];
                        }
                        // an agent event that fails a contract is refused; an environment event that breaks an assumption is withheld
                        if (agent ? freshFail : freshIdle) continue;
                        for (int c = 0; c < n && !agent; c++) {
                            if (fails[c] && found[c] == null) {
                                found[c] = new Finding(c, KINDS[k], prefix(node, parent, via, viaKind, atoms), keys(letter, atoms));
                                open--;
                            }
                        }
                        Node m = new Node(next, call ? letter & sticky : node.sticky);
                        if (parent.containsKey(m) || !anyOpen(found, next, pv)) continue;
                        if (parent.size() >= MAX_NODES) return null;
                        parent.put(m, node);
                        via.put(m, letter);
                        viaKind.put(m, KINDS[k]);
                        todo.add(m);
                    }
                }
            }
        }
        return found;
    }

    /**
     * Whether the path the walk took to {@code n} is one a session can take: every call on it but the last is followed
     * by a result of the same tool (the next event after a call is that call's own result).
     */
    private static boolean sequential(Node n, Map<Node, Node> parent, Map<Node, Long> via, Map<Node, EventKind> viaKind,
                                      Letters[] letters) {
        Node after = n;
        for (Node m = parent.get(n); m != null && parent.get(m) != null; after = m, m = parent.get(m)) {
            if (viaKind.get(m) != EventKind.CALL) continue;
            if (viaKind.get(after) != EventKind.RETURN) return false;
            String t = letters[k(EventKind.CALL)].toolOf(via.get(m));
            if (t != null && !letters[k(EventKind.RETURN)].resultOf(via.get(after), t)) return false;
        }
        return true;
    }

    private static int k(EventKind kind) {
        for (int k = 0; k < KINDS.length; k++) if (KINDS[k] == kind) return k;
        throw new IllegalArgumentException(kind.name());
    }

    /**
     * Per contract, whether every result of a call of {@code tool} (a success or a failure, its other atoms free), as the
     * event right after that call, makes it FAIL from states {@code q}: none is withheld (breaks an assumption) and each
     * violates its guarantee for good while its assumption holds. False where no such result is possible.
     */
    private static boolean[] ownResultFails(int[] q, long sticky, String tool, Letters ls, Dfa[] dfas, int[][] local,
                                            boolean[][] pv, Counters counters, int m0, int n) {
        boolean[] every = new boolean[n];
        java.util.Arrays.fill(every, true);
        boolean any = false;
        long fixed = ls.fixedTrue | (sticky & ls.sticky);
        int[] next = new int[q.length];
        for (long i = 0; i < 1L << Long.bitCount(ls.free); i++) {
            long base = fixed | deposit(i, ls.free);
            if (!ls.possible(base) || !ls.resultOf(base, tool)) continue;
            any = true;
            System.arraycopy(q, m0, next, m0, counters.tools.length);
            long letter = base | counters.bits(next, m0);
            for (int d = 0; d < m0; d++) next[d] = dfas[d].next(q[d], gather(letter, local[d]));
            boolean freshIdle = false;
            for (int c = 0; c < n; c++) freshIdle |= pv[2 * c][next[2 * c]] & !pv[2 * c][q[2 * c]];
            for (int c = 0; c < n; c++) {
                every[c] &= !freshIdle && !pv[2 * c][next[2 * c]] && pv[2 * c + 1][next[2 * c + 1]] && !pv[2 * c + 1][q[2 * c + 1]];
            }
        }
        if (!any) java.util.Arrays.fill(every, false);
        return every;
    }

    /** Whether some contract not yet found can still FAIL from these states (neither its assumption nor guarantee violated). */
    private static boolean anyOpen(Finding[] found, int[] states, boolean[][] pv) {
        for (int c = 0; c < found.length; c++) {
            if (found[c] == null && !pv[2 * c][states[2 * c]] && !pv[2 * c + 1][states[2 * c + 1]]) return true;
        }
        return false;
    }

    /** A state of the walk: the automata's states and the truth of the counter atoms at the last applied event. */
    private record Node(int[] states, long sticky) {
        @Override public boolean equals(Object o) {
            return o instanceof Node m && m.sticky == sticky && java.util.Arrays.equals(m.states, states);
        }

        @Override public int hashCode() { return 31 * java.util.Arrays.hashCode(states) + Long.hashCode(sticky); }
    }

    private static List<String> prefix(Node n, Map<Node, Node> parent, Map<Node, Long> via, Map<Node, EventKind> viaKind,
                                       List<Atom> atoms) {
        List<String> steps = new ArrayList<>();
        for (Node m = n; parent.get(m) != null; m = parent.get(m)) {
            List<String> held = keys(via.get(m), atoms);
            steps.add(0, held.isEmpty() ? noun(viaKind.get(m)) : "[" + String.join(", ", held) + "]");
        }
        return steps;
    }

    private static String event(EventKind kind, List<String> atoms) {
        return noun(kind) + (atoms.isEmpty() ? "" : " where " + String.join(", ", atoms) + (atoms.size() == 1 ? " holds" : " hold"));
    }

    private static String noun(EventKind kind) {
        return switch (kind) {
            case USER -> "a user message";
            case RETURN -> "a tool result";
            case CONSENT -> "a consent event";
            case ERASURE -> "an erasure event";
            case CALL -> "a call";
            case ASSISTANT -> "an answer";
            default -> kind.name();
        };
    }

    private static List<String> keys(long letter, List<Atom> atoms) {
        List<String> out = new ArrayList<>();
        for (int j = 0; j < atoms.size(); j++) if ((letter >>> j & 1L) != 0) out.add(atoms.get(j).key());
        return out;
    }

    private static int[] local(List<Atom> own, List<Atom> joint) {
        int[] map = new int[own.size()];
        for (int j = 0; j < own.size(); j++) map[j] = joint.indexOf(own.get(j));
        return map;
    }

    /** The low bits of {@code bits}, one by one, at the set positions of {@code mask}. */
    private static long deposit(long bits, long mask) {
        long out = 0;
        for (long m = mask; m != 0 && bits != 0; m &= m - 1, bits >>>= 1) if ((bits & 1L) != 0) out |= Long.lowestOneBit(m);
        return out;
    }

    private static long gather(long letter, int[] map) {
        long l = 0;
        for (int j = 0; j < map.length; j++) l |= (letter >>> map[j] & 1L) << j;
        return l;
    }

    /** Whether a counter atom holds before any call: its comparison with 0 ({@code sum(T, f) <= 3}: yes). */
    private static boolean startsTrue(Atom a) {
        return a.bound() instanceof Term.Num && compare(0, a);
    }

    /**
     * The letters one event of a kind can produce, over the joint atoms: atoms always true or free at it, counter atoms
     * that keep their last value ({@code sticky}, at every kind but a call), and the tool each free atom names, since
     * one event names one tool (and a result is a success or a failure, not both).
     */
    private static final class Letters {
        long fixedTrue;
        long free;
        long sticky;
        long succeeded;
        long failed;
        /** The {@code call(T)} atoms (at a call). */
        long calls;
        final String[] tool;

        private Letters(int n) { tool = new String[n]; }

        static Letters of(EventKind kind, List<Atom> atoms, Boolean declared) {
            Letters ls = new Letters(atoms.size());
            for (int j = 0; j < atoms.size(); j++) {
                Atom a = atoms.get(j);
                long bit = 1L << j;
                String form = a.name() + "/" + a.args().size();
                boolean call = kind == EventKind.CALL;
                switch (form) {
                    case "user/0" -> ls.fixedTrue |= kind == EventKind.USER ? bit : 0;
                    case "assistant/0" -> ls.fixedTrue |= kind == EventKind.ASSISTANT ? bit : 0;
                    case "call/0" -> ls.fixedTrue |= call ? bit : 0;
                    case "return/0" -> ls.fixedTrue |= kind == EventKind.RETURN ? bit : 0;
                    case "consent/0" -> {
                        ls.fixedTrue |= kind == EventKind.CONSENT ? bit : 0;
                        ls.free |= call ? bit : 0;   // a call of a consent tool is a consent
                    }
                    case "erasure/0" -> {
                        ls.fixedTrue |= kind == EventKind.ERASURE ? bit : 0;
                        ls.free |= call ? bit : 0;
                    }
                    case "returned/1", "failed/1", "result_matches/2" -> {
                        if (kind == EventKind.RETURN) {
                            ls.free |= bit;
                            ls.tool[j] = tool(a.args().get(0));
                            if (form.equals("returned/1")) ls.succeeded |= bit;
                            if (form.equals("failed/1")) ls.failed |= bit;
                        }
                    }
                    case "result_matches/1" -> ls.free |= kind == EventKind.RETURN ? bit : 0;
                    case "undeclared_purpose/0" -> {
                        // at an event without purposes (a user message, a reply, an erasure) the policy decides it: true when
                        // it declares purposes, false when it declares none; free where the analysis has no policy
                        boolean carriesPurposes = kind == EventKind.CALL || kind == EventKind.RETURN || kind == EventKind.CONSENT;
                        if (declared == null || carriesPurposes) ls.free |= bit;
                        else if (declared) ls.fixedTrue |= bit;
                    }
                    case "user_matches/1" -> ls.free |= kind == EventKind.USER ? bit : 0;
                    case "output_matches/1" -> ls.free |= kind == EventKind.ASSISTANT ? bit : 0;
                    case "call/1", "call/2", "arg/2", "arg_matches/3", "arg_in/3", "path_within/3", "arg_eq_ctx/3", "flow/2", "untrusted/2" -> {
                        if (call) {
                            ls.free |= bit;
                            ls.tool[j] = tool(a.args().get(0));
                            if (form.equals("call/1")) ls.calls |= bit;
                        }
                    }
                    case "arg/1", "arg_matches/2", "arg_in/2", "path_within/2", "arg_eq_ctx/2", "flow/1", "untrusted/1",
                         "untrusted_target/0", "side_effect/0", "named_link/0" -> ls.free |= call ? bit : 0;
                    case "len/1" -> {
                        if (!(a.args().get(0) instanceof Term.Call inner && inner.name().equals("arg"))) ls.free |= bit;
                        else if (call) {
                            ls.free |= bit;
                            if (inner.args().size() == 2) ls.tool[j] = tool(inner.args().get(0));
                        }
                    }
                    case "count/1", "sum/2", "run/1" -> {
                        // count(T) <op> n is set from the counted calls (Counters); a sum or a run moves only at a call, so
                        // between calls its comparison keeps the value it had (a run too: other kinds do not break it)
                        if (!(a.bound() instanceof Term.Num)) ls.free |= bit;
                        else if (!form.equals("count/1")) {
                            if (call) ls.free |= bit;
                            else ls.sticky |= bit;
                        }
                    }
                    default -> ls.free |= bit;
                }
            }
            return Long.bitCount(ls.free) > MAX_FREE_ATOMS ? null : ls;
        }

        /**
         * Whether one event can make exactly these atoms true: the tools they name agree, not a success and a failure, and
         * an atom about a call of T ({@code arg(T, f)}, ...) holds only where {@code call(T)} does.
         */
        boolean possible(long letter) {
            if ((letter & succeeded) != 0 && (letter & failed) != 0) return false;
            for (long m = letter & free; m != 0; m &= m - 1) {
                int j = Long.numberOfTrailingZeros(m);
                String t = tool[j];
                if (t == null) continue;
                for (long o = m & (m - 1); o != 0; o &= o - 1) {
                    String u = tool[Long.numberOfTrailingZeros(o)];
                    if (u != null && !sameTool(t, u)) return false;
                }
                if ((calls >>> j & 1L) == 0 && (letter & callsOf(t)) != callsOf(t)) return false;
            }
            return true;
        }

        /** The one tool the true tool atoms of this call's letter name (the most specific name), or null when none or several. */
        String toolOf(long letter) {
            String out = null;
            for (long m = letter & free; m != 0; m &= m - 1) {
                String t = tool[Long.numberOfTrailingZeros(m)];
                if (t == null) continue;
                if (out == null || ToolName.bare(t).equals(out)) out = t;
                else if (!sameTool(out, t)) return null;
            }
            return out;
        }

        /**
         * Whether a result whose atoms are {@code letter} can be a result of {@code t}: its tool atoms name t, and it
         * is a success (every returned(t) true, no failed(t)) or a failure (the other way round).
         */
        boolean resultOf(long letter, String t) {
            long ownS = 0;
            long ownF = 0;
            for (int j = 0; j < tool.length; j++) {
                if (tool[j] == null || (free >>> j & 1L) == 0) continue;
                boolean own = sameTool(tool[j], t) && (ToolName.bare(t).equals(tool[j]) || tool[j].equals(t));
                if (!own && (letter >>> j & 1L) != 0) return false;
                if (own && (succeeded >>> j & 1L) != 0) ownS |= 1L << j;
                if (own && (failed >>> j & 1L) != 0) ownF |= 1L << j;
            }
            long s = letter & ownS;
            long f = letter & ownF;
            return s == ownS && f == 0 || s == 0 && f == ownF;
        }

        /** The {@code call(t)} atoms of exactly this tool name. */
        long callsOf(String t) {
            long out = 0;
            for (long m = calls; m != 0; m &= m - 1) {
                int i = Long.numberOfTrailingZeros(m);
                if (tool[i].equals(t)) out |= 1L << i;
            }
            return out;
        }
    }

    /**
     * The {@code count(T) <op> n} atoms with a number bound, read from counted calls: a call of T adds one, nothing else
     * changes the count, so a result cannot break {@code G(count(search) <= 3)} and the first call of T has count 1. A
     * count is kept up to one past the largest bound of its tool, where every comparison has its final value.
     */
    private static final class Counters {
        final String[] tools;
        private final int[] cap;
        private final int[] counter;
        private final Atom[] atoms;

        Counters(List<Atom> all) {
            List<String> names = new ArrayList<>();
            List<Integer> caps = new ArrayList<>();
            counter = new int[all.size()];
            atoms = all.toArray(new Atom[0]);
            for (int j = 0; j < all.size(); j++) {
                Atom a = all.get(j);
                counter[j] = -1;
                if (!a.name().equals("count") || a.args().size() != 1 || !(a.bound() instanceof Term.Num n)) continue;
                String t = tool(a.args().get(0));
                int i = names.indexOf(t);
                int c = (int) Math.max(0, Math.min(1_000, Math.floor(Double.parseDouble(n.text())) + 1));
                if (i < 0) {
                    names.add(t);
                    caps.add(c);
                    i = names.size() - 1;
                } else {
                    caps.set(i, Math.max(caps.get(i), c));
                }
                counter[j] = i;
            }
            tools = names.toArray(new String[0]);
            cap = caps.stream().mapToInt(Integer::intValue).toArray();
        }

        /** Whether a call whose atoms are {@code letter} can be a call of counted tool {@code callee} (-1: of none of them). */
        boolean callee(long letter, int callee, Letters ls) {
            for (long m = letter & ls.free; m != 0; m &= m - 1) {
                String t = ls.tool[Long.numberOfTrailingZeros(m)];
                if (t == null) continue;
                if (callee >= 0 && !sameTool(t, tools[callee])) return false;
                if (callee < 0) for (String u : tools) if (sameTool(t, u)) return false;
            }
            return callee < 0 || (letter & ls.callsOf(tools[callee])) == ls.callsOf(tools[callee]);
        }

        /** Counts a call of {@code callee} (-1: none) into the counts at {@code states[from...]}. */
        void count(int[] states, int from, int callee) {
            if (callee < 0) return;
            for (int i = 0; i < tools.length; i++) {
                // a call of mcp__s__a answers to count(a) too
                if (tools[i].equals(tools[callee]) || ToolName.bare(tools[callee]).equals(tools[i])) {
                    states[from + i] = Math.min(states[from + i] + 1, cap[i]);
                }
            }
        }

        /** The counted atoms that hold with the counts at {@code states[from...]}. */
        long bits(int[] states, int from) {
            long out = 0;
            for (int j = 0; j < counter.length; j++) {
                if (counter[j] >= 0 && compare(states[from + counter[j]], atoms[j])) out |= 1L << j;
            }
            return out;
        }
    }

    /** Whether {@code value <op> bound} holds for a counter atom with a number bound (LibraryNotes asks it too). */
    static boolean compare(double value, Atom a) {
        double b = Double.parseDouble(((Term.Num) a.bound()).text());
        return switch (a.comparison()) {
            case "<" -> value < b;
            case "<=" -> value <= b;
            case ">" -> value > b;
            case ">=" -> value >= b;
            case "==" -> value == b;
            case "!=" -> value != b;
            default -> false;
        };
    }

    private static String tool(Term t) {
        String name = t instanceof Term.Name n ? n.value() : t instanceof Term.Str s ? s.value() : t.toString();
        return ToolName.fold(name);
    }

    /** Whether one event's tool can answer to both names ({@code mcp__s__a} answers to {@code a}). */
    private static boolean sameTool(String a, String b) {
        return a.equals(b) || ToolName.bare(a).equals(b) || ToolName.bare(b).equals(a);
    }
}
