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
 * <p>Decided on the automata: from the initial state, walk the states of the contract's assumption and guarantee
 * that the monitor can reach (an agent event that would make the contract FAIL is refused, an environment event that
 * would break the assumption is withheld, a broken assumption ends the contract's interest), and ask whether one event
 * of the environment leads from a reached state to a violated guarantee while the assumption still holds. Events are
 * letters that one event of its kind can produce: a result is no call ({@code call(T)}, {@code arg(...)} and the other
 * argument atoms are false at it), names one tool, is a success or a failure; {@code count(T)} and {@code sum(T, f)}
 * change only at calls. Atoms the event does not decide by its kind (data categories, context, purposes...) take
 * every value.
 */
public final class EnvironmentFailures {
    private EnvironmentFailures() {}

    /**
     * A contract (index into the library's contracts) that an event of {@code kind} can make fail after the events
     * of {@code prefix} (each the atoms that hold at it, or its kind when none does); {@code atoms} hold at that event.
     */
    public record Finding(int contract, EventKind kind, List<String> prefix, List<String> atoms) {}

    /** Atoms free at one event kind beyond which the letters are not enumerated (2^12 per reached state and kind). */
    private static final int MAX_FREE_ATOMS = 12;
    /** Reached states (assumption, guarantee, counters' truth) beyond which a contract is left unjudged. */
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
        return info.file() + ":" + info.line() + ": contract " + info.id() + "'s guarantee (" + guarantee + ") can be made to"
                + " fail by an event the agent does not control: " + event(f.kind(), f.atoms())
                + (f.prefix().isEmpty() ? " as the first event" : " after " + String.join(", ", f.prefix()))
                + ". tracegate refuses only the agent's own calls and answers, so that event is applied and the contract is"
                + " violated for good in that session, whatever its strategy (redact never rewrites a result or a user"
                + " message). To withhold such an event, make the condition the assumption (assume: " + guarantee
                + ", strategy: suppress; the model then gets a notice instead of the content); to keep the data out of"
                + " what the agent does with it, put the condition on the agent's own events (G(assistant -> ...) with"
                + " strategy: redact masks the answer; G(call(T) -> ...) guards a call) (docs/LIBRARY.md, Analysis)";
    }

    /** The contracts an environment event can make fail, each with a shortest way there. */
    public static List<Finding> find(Library lib) {
        List<Finding> out = new ArrayList<>();
        var set = lib.contracts();
        for (int c = 0; c < set.contracts().size(); c++) {
            Finding f = find(c, set.formulas().get(set.assumeOf(c)), set.formulas().get(set.guaranteeOf(c)));
            if (f != null) out.add(f);
        }
        return out;
    }

    /** The finding for one contract with these automata, or null (none, or too large to judge). */
    static Finding find(int contract, Dfa assume, Dfa guarantee) {
        List<Atom> atoms = new ArrayList<>(guarantee.atoms());
        for (Atom a : assume.atoms()) if (!atoms.contains(a)) atoms.add(a);
        if (atoms.size() > 63) return null;
        int[] toA = local(assume.atoms(), atoms);
        int[] toG = local(guarantee.atoms(), atoms);
        Letters[] letters = new Letters[KINDS.length];
        for (int k = 0; k < KINDS.length; k++) {
            letters[k] = Letters.of(KINDS[k], atoms);
            if (letters[k] == null) return null;
        }
        long sticky = letters[0].sticky;
        long stickyStart = 0;
        for (int j = 0; j < atoms.size(); j++) if (startsTrue(atoms.get(j))) stickyStart |= 1L << j;
        stickyStart &= sticky;

        Map<Node, Node> parent = new HashMap<>();
        Map<Node, Long> via = new HashMap<>();
        Map<Node, EventKind> viaKind = new HashMap<>();
        ArrayDeque<Node> todo = new ArrayDeque<>();
        Node start = new Node(assume.initialState(), guarantee.initialState(), stickyStart);
        parent.put(start, null);
        todo.add(start);
        while (!todo.isEmpty()) {
            Node n = todo.poll();
            for (int k = 0; k < KINDS.length; k++) {
                Letters ls = letters[k];
                boolean agent = KINDS[k].controlledByAgent();
                long fixed = ls.fixedTrue | (agent ? 0 : n.sticky & ls.sticky);
                for (long s = 0; ; s = ((s | ~ls.free) + 1) & ls.free) {
                    long letter = fixed | s;
                    if (ls.possible(letter)) {
                        int qa = assume.next(n.assume, gather(letter, toA));
                        if (assume.verdict(qa) != RvVerdict.PERMANENTLY_VIOLATED) {
                            int qg = guarantee.next(n.guarantee, gather(letter, toG));
                            if (guarantee.verdict(qg) == RvVerdict.PERMANENTLY_VIOLATED) {
                                if (!agent) return new Finding(contract, KINDS[k], prefix(n, parent, via, viaKind, atoms), keys(letter, atoms));
                            } else {
                                Node m = new Node(qa, qg, agent ? letter & sticky : n.sticky);
                                if (!parent.containsKey(m)) {
                                    if (parent.size() >= MAX_NODES) return null;
                                    parent.put(m, n);
                                    via.put(m, letter);
                                    viaKind.put(m, KINDS[k]);
                                    todo.add(m);
                                }
                            }
                        }
                    }
                    if (s == ls.free) break;
                }
            }
        }
        return null;
    }

    /** A state of the walk: the two automata's states and the truth of the counter atoms at the last applied event. */
    private record Node(int assume, int guarantee, long sticky) {}

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

    private static long gather(long letter, int[] map) {
        long l = 0;
        for (int j = 0; j < map.length; j++) l |= (letter >>> map[j] & 1L) << j;
        return l;
    }

    /** Whether a counter atom holds before any call: its comparison with 0 ({@code count(T) <= 3}: yes). */
    private static boolean startsTrue(Atom a) {
        if (!(a.bound() instanceof Term.Num n)) return false;
        double b = Double.parseDouble(n.text());
        return switch (a.comparison()) {
            case "<" -> 0 < b;
            case "<=" -> 0 <= b;
            case ">" -> 0 > b;
            case ">=" -> 0 >= b;
            case "==" -> 0 == b;
            case "!=" -> 0 != b;
            default -> false;
        };
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
        final String[] tool;

        private Letters(int n) { tool = new String[n]; }

        static Letters of(EventKind kind, List<Atom> atoms) {
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
                    case "user_matches/1" -> ls.free |= kind == EventKind.USER ? bit : 0;
                    case "output_matches/1" -> ls.free |= kind == EventKind.ASSISTANT ? bit : 0;
                    case "call/1", "call/2", "arg/2", "arg_matches/3", "arg_in/3", "path_within/3", "arg_eq_ctx/3", "flow/2", "untrusted/2" -> {
                        if (call) {
                            ls.free |= bit;
                            ls.tool[j] = tool(a.args().get(0));
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
                    case "count/1", "sum/2" -> {
                        // a counter moves only at a call; between calls its comparison keeps the value it had
                        if (call || !(a.bound() instanceof Term.Num)) ls.free |= bit;
                        else ls.sticky |= bit;
                    }
                    default -> ls.free |= bit;
                }
            }
            return Long.bitCount(ls.free) > MAX_FREE_ATOMS ? null : ls;
        }

        /** Whether one event can make exactly these atoms true: the tools they name agree, not a success and a failure. */
        boolean possible(long letter) {
            if ((letter & succeeded) != 0 && (letter & failed) != 0) return false;
            String seen = null;
            for (long m = letter & free; m != 0; m &= m - 1) {
                String t = tool[Long.numberOfTrailingZeros(m)];
                if (t == null) continue;
                if (seen == null) seen = t;
                else if (!sameTool(seen, t)) return false;
            }
            return true;
        }
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
