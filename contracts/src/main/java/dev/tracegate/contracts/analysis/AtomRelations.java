package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.matchers.event.ToolName;

import java.util.List;

/**
 * What the library analysis knows of how two atoms constrain each other at one event, read from the atoms' forms as the
 * grounding evaluates them (matchers' {@code Nodes}: each condition's event kind and tool guard, a comparison's bound),
 * without a policy. The automata take atoms as independent propositions; these relations are the axioms that keep the
 * analysis to letters some event produces, and the dependences that keep contracts from being analysed apart.
 *
 * <ul>
 * <li>{@link #excludes}: no event makes both hold ({@code call(t)} and {@code call(u)}, {@code user_matches("x")} and
 *     {@code call}, {@code returned(t)} and {@code failed(u)}, {@code arg(f) > 50} and {@code arg(f) < 10});</li>
 * <li>{@link #implies}: every event that makes the first hold makes the second hold ({@code call(audit)} implies the kind
 *     atom {@code call}, {@code arg(limit) > 50} implies {@code arg(limit) > 10} and {@code call},
 *     {@code arg(t, f) > 5} implies {@code call(t)} and {@code arg(f) > 5}, {@code call(t)} implies {@code count(t) >= 1});</li>
 * <li>{@link #related}: a part of the contracts that reads one may not treat the other part's events as events of its
 *     own that it waits through (see {@link LibraryAnalysis#independentParts}): one implies the other, they read one
 *     value, one is an event's kind or tool and the other's value depends on it, or the policy decides how they relate
 *     (which tools have side effects, serve which purposes, record consent or erasure, set which context).</li>
 * </ul>
 * Pairs only: a constraint among three atoms ({@code count(t) <= 3} false and {@code count(t) > 5} false) is not known, so
 * the analysis may still see a letter that no event makes. Patterns are compared only when both are plain literals.
 */
final class AtomRelations {
    private AtomRelations() {}

    // event kinds as bits
    static final int CALL = 1, RETURN = 2, USER = 4, ASSISTANT = 8, CONSENT = 16, ERASURE = 32, END = 64;
    static final int ANY = 127;
    /**
     * The kinds of events that carry purposes as the agent records them: a call and a result (their tool's purposes under
     * gdpr {@code tools:}, and a call's purpose argument) and a consent (its own). A user message, a reply, an erasure and
     * the end carry none (a trace line may declare {@code purposes} on any event, which the agent never writes).
     */
    static final int PURPOSES = CALL | RETURN | CONSENT;

    /** The event kinds at which {@code a} can hold (it is false at the others): as the grounding's guards say. */
    static int kinds(Atom a) {
        int n = a.args().size();
        if (a.comparison() != null) {
            if (a.name().equals("arg")) return CALL;   // an argument is not found (false) but at a call
            if (a.name().equals("len") && n == 1 && a.args().get(0) instanceof Term.Call c && c.name().equals("arg")) return CALL;
            return ANY;
        }
        return switch (a.name()) {
            case "user", "user_matches" -> USER;
            case "assistant", "output_matches" -> ASSISTANT;
            case "return", "returned", "failed", "result_matches" -> RETURN;
            case "end" -> END;
            case "consent" -> n == 0 ? CONSENT | CALL : ANY;   // a CONSENT event, or a call of a consent tool
            case "purpose", "excess_data" -> PURPOSES;   // an event without purposes serves none and needs no category
            case "erasure" -> ERASURE | CALL;
            case "call", "arg_matches", "arg_in", "path_within", "arg_eq_ctx", "flow", "untrusted", "untrusted_target",
                 "side_effect", "named_link" -> CALL;
            default -> ANY;
        };
    }

    /**
     * The event kinds at which {@code a} can be false (it is true at the others): as the grounding evaluates it.
     * {@code consented} ("every purpose of the event that rests on consent has the subject's consent") is true at an event
     * without purposes (see {@link #PURPOSES}), so {@code assistant}, {@code user} and {@code end} imply it.
     */
    static int falseKinds(Atom a) {
        if (a.comparison() == null && a.args().isEmpty() && a.name().equals("consented")) return PURPOSES;
        return ANY;
    }

    /** The folded tool whose events alone can make {@code a} hold (with {@link #kinds} CALL or RETURN), or null: any. */
    static String tool(Atom a) {
        List<Term> args = a.args();
        int n = args.size();
        switch (a.name()) {
            case "call", "returned", "failed" -> { return n >= 1 ? toolName(args.get(0)) : null; }
            case "result_matches", "flow", "untrusted" -> { return n == 2 ? toolName(args.get(0)) : null; }
            case "arg_matches", "arg_in", "path_within", "arg_eq_ctx" -> { return n == 3 ? toolName(args.get(0)) : null; }
            case "arg" -> { return a.comparison() != null && n == 2 ? toolName(args.get(0)) : null; }
            case "len" -> {
                return a.comparison() != null && n == 1 && args.get(0) instanceof Term.Call c && c.name().equals("arg")
                        && c.args().size() == 2 ? toolName(c.args().get(0)) : null;
            }
            default -> { return null; }
        }
    }

    /** A field or key as the grounding reads it: {@code limit} and {@code "limit"} are one field. */
    private static String name(Term t) {
        return t instanceof Term.Str s ? s.value() : t.toString();
    }

    private static String toolName(Term t) {
        if (t instanceof Term.Name n) return ToolName.fold(n.value());
        if (t instanceof Term.Str s && !s.value().isBlank()) return ToolName.fold(s.value());
        return null;
    }

    /**
     * Whether one event's tool can answer to both names (each is the other, or the other with an mcp__server__ prefix),
     * since an event tool answers to its folded name and to that name without the prefix; null is any tool. Neither
     * implies the other: {@code call(mcp__s__a)} also holds without {@code call(a)}, for a tool {@code mcp__t__mcp__s__a}.
     */
    static boolean sameToolPossible(String t, String u) {
        return t == null || u == null || t.equals(u) || ToolName.bare(t).equals(u) || ToolName.bare(u).equals(t);
    }

    /** An event's kind or tool alone decides it: {@code call}, {@code call(t)}, {@code returned(t)}, {@code user}... */
    static boolean structural(Atom a) {
        if (a.comparison() != null) return false;
        int n = a.args().size();
        return switch (a.name()) {
            case "call" -> n <= 1;
            case "returned", "failed" -> n == 1;
            case "return", "user", "assistant", "end", "erasure" -> n == 0;
            case "consent" -> n == 0;
            default -> false;
        };
    }

    /**
     * Whether the policy, or the history of other events, decides it in ways the atom's form does not show: which tools have
     * side effects or serve which purposes, which values flowed from results, what a latch put in the context, which data
     * categories a tool's fields carry.
     */
    private static boolean policyDecided(Atom a) {
        if (a.bound() != null && isCtx(a.bound())) return true;
        return switch (a.name()) {
            case "side_effect", "untrusted_target", "named_link", "flow", "untrusted", "purpose", "undeclared_purpose",
                 "consented", "excess_data", "mentions_erased", "ctx", "permission", "arg_eq_ctx", "category",
                 "personal_data" -> true;
            case "consent" -> !a.args().isEmpty();
            default -> false;
        };
    }

    private static boolean isCtx(Term t) {
        return t instanceof Term.Name n && n.value().startsWith("ctx.") || t instanceof Term.Call c && c.name().equals("ctx");
    }

    // ------------------------------------------------------------------ values compared with a number

    /** The value a comparison reads, without its tool: {@code arg(t, f)} and {@code arg(f)} read one value at a call of t. */
    private static String valueKey(Atom a) {
        if (a.comparison() == null) return null;
        List<Term> args = a.args();
        if (a.name().equals("arg") && !args.isEmpty()) return "arg:" + name(args.get(args.size() - 1));
        if (a.name().equals("len") && args.size() == 1 && args.get(0) instanceof Term.Call c && c.name().equals("arg") && !c.args().isEmpty()) {
            return "len:arg:" + name(c.args().get(c.args().size() - 1));
        }
        if (a.name().equals("count") || a.name().equals("run") || a.name().equals("sum")) {
            StringBuilder b = new StringBuilder(a.name()).append(':').append(args.isEmpty() ? "" : toolName(args.get(0)));
            for (int i = 1; i < args.size(); i++) b.append(':').append(name(args.get(i)));
            return b.toString();
        }
        return a.name() + args;
    }

    /** The tool that qualifies {@link #valueKey} (a tool's argument), or null. */
    private static String valueTool(Atom a) {
        return a.name().equals("arg") || a.name().equals("len") ? tool(a) : null;
    }

    /** Values that are whole numbers (a count, a length...): a strict bound is a bound one further. */
    private static boolean whole(Atom a) {
        return switch (a.name()) {
            case "count", "run", "len", "depth", "context_len", "output_chars", "tokens", "since" -> true;
            default -> false;
        };
    }

    /** The values {@code a} holds for, as {lo, hi} (closed), or null when not one interval of a numeric bound. */
    private static double[] interval(Atom a) {
        if (!(a.bound() instanceof Term.Num num)) return null;
        double b;
        try {
            b = num.value();
        } catch (NumberFormatException e) {
            return null;
        }
        boolean whole = whole(a);
        double inf = Double.POSITIVE_INFINITY;
        return switch (a.comparison()) {
            case "<" -> new double[] {-inf, whole ? Math.ceil(b) - 1 : Math.nextDown(b)};
            case "<=" -> new double[] {-inf, whole ? Math.floor(b) : b};
            case ">" -> new double[] {whole ? Math.floor(b) + 1 : Math.nextUp(b), inf};
            case ">=" -> new double[] {whole ? Math.ceil(b) : b, inf};
            case "==" -> new double[] {b, b};
            default -> null;
        };
    }

    private static boolean within(double[] i, double[] j) { return i[0] >= j[0] && i[1] <= j[1]; }

    private static boolean disjoint(double[] i, double[] j) { return i[0] > j[1] || j[0] > i[1] || i[0] > i[1] || j[0] > j[1]; }

    /** For {@code count(t)} and {@code run(t)}: the tool; a call of it makes the value at least 1. */
    private static String countedTool(Atom a) {
        if ((a.name().equals("count") || a.name().equals("run")) && a.args().size() == 1) return toolName(a.args().get(0));
        return null;
    }

    private static boolean plainCall(Atom a) {
        return a.name().equals("call") && a.args().size() == 1 && a.comparison() == null;
    }

    // ------------------------------------------------------------------ undeclared_purpose, as the policy decides

    /**
     * {@code undeclared_purpose} holds when the event serves a purpose the policy does not declare, or serves none although
     * the policy declares some (matchers' {@code Grounding.undeclaredPurpose}). At an event without purposes (a user
     * message, a reply, an erasure, the end: see {@link #PURPOSES}) it is therefore true when the policy declares purposes
     * and false when it declares none. Only the policy says which: {@code declared} is TRUE, FALSE, or null when the
     * analysis was given no policy (then the atom is free at every event, as before session 22).
     */
    static boolean undeclaredPurpose(Atom a) {
        return a.comparison() == null && a.args().isEmpty() && a.name().equals("undeclared_purpose");
    }

    /** {@code a} holds only at events that carry no purposes (its kinds are not empty and none of them is in {@link #PURPOSES}). */
    private static boolean onlyWithoutPurposes(Atom a) {
        int k = kinds(a);
        return k != 0 && (k & PURPOSES) == 0;
    }

    /** {@link #kinds(Atom)}, with {@code undeclared_purpose} false at events without purposes when the policy declares none. */
    static int kinds(Atom a, Boolean declared) {
        if (Boolean.FALSE.equals(declared) && undeclaredPurpose(a)) return PURPOSES;
        return kinds(a);
    }

    /** {@link #implies(Atom, Atom)}, and: an event without purposes makes {@code undeclared_purpose} true when purposes are declared. */
    static boolean implies(Atom a, Atom b, Boolean declared) {
        if (implies(a, b)) return true;
        return Boolean.TRUE.equals(declared) && undeclaredPurpose(b) && onlyWithoutPurposes(a);
    }

    /** {@link #excludes(Atom, Atom)}, and: an event without purposes makes {@code undeclared_purpose} false when none are declared. */
    static boolean excludes(Atom a, Atom b, Boolean declared) {
        if (excludes(a, b)) return true;
        return Boolean.FALSE.equals(declared)
                && (undeclaredPurpose(b) && onlyWithoutPurposes(a) || undeclaredPurpose(a) && onlyWithoutPurposes(b));
    }

    /** {@link #related(Atom, Atom)}, and the relations above under the policy. */
    static boolean related(Atom a, Atom b, Boolean declared) {
        return related(a, b) || implies(a, b, declared) || implies(b, a, declared) || excludes(a, b, declared) && !excludes(a, b);
    }

    // ------------------------------------------------------------------ the relations

    /** Whether no one event makes both {@code a} and {@code b} hold. */
    static boolean excludes(Atom a, Atom b) {
        if (a.equals(b)) return false;
        int ka = kinds(a), kb = kinds(b);
        if ((ka & kb) == 0) return true;
        // both only at calls (or both only at returns) of tools that no one event's tool answers to
        if ((ka == CALL && kb == CALL || ka == RETURN && kb == RETURN) && !sameToolPossible(tool(a), tool(b))) return true;
        // a successful RETURN and one that reports an error
        if (ka == RETURN && kb == RETURN && a.comparison() == null && b.comparison() == null
                && (a.name().equals("returned") && b.name().equals("failed") || a.name().equals("failed") && b.name().equals("returned"))) {
            return true;
        }
        String va = valueKey(a);
        if (va != null && va.equals(valueKey(b)) && sameToolPossible(valueTool(a), valueTool(b))) {
            double[] ia = interval(a), ib = interval(b);
            if (ia != null && ib != null && disjoint(ia, ib)) return true;
        }
        return callExcludesCount(a, b) || callExcludesCount(b, a);
    }

    /** {@code call(t)} and {@code count(t) < 1}: a call of t counts itself. */
    private static boolean callExcludesCount(Atom call, Atom count) {
        if (!plainCall(call)) return false;
        String t = countedTool(count);
        double[] i = interval(count);
        return t != null && i != null && t.equals(tool(call)) && disjoint(i, new double[] {1, Double.POSITIVE_INFINITY});
    }

    /** Whether every event that makes {@code a} hold makes {@code b} hold. */
    static boolean implies(Atom a, Atom b) {
        if (a.equals(b)) return true;
        int ka = kinds(a);
        // b is true at every kind of event a holds at: user, assistant, end imply consented (no purposes there)
        if ((ka & falseKinds(b)) == 0) return true;
        // b is the kind atom of every event a holds at: call(audit), arg(limit) > 50 -> call; user_matches(..) -> user
        if (b.comparison() == null && b.args().isEmpty() && ka != ANY) {
            int kb = switch (b.name()) {
                case "call" -> CALL;
                case "return" -> RETURN;
                case "user" -> USER;
                case "assistant" -> ASSISTANT;
                case "end" -> END;
                default -> 0;
            };
            if (kb != 0 && (ka & ~kb) == 0) return true;
        }
        // b is call(t) and a holds only at calls of t (its guard is the same test of the event's tool)
        if (plainCall(b) && ka == CALL) {
            String t = tool(a);
            if (t != null && t.equals(tool(b))) return true;
        }
        // one value, a's interval inside b's; b reads it at every event a does (b names no tool, or a's)
        String va = valueKey(a);
        if (va != null && va.equals(valueKey(b))) {
            String tb = valueTool(b);
            if (tb == null || tb.equals(valueTool(a))) {
                double[] ia = interval(a), ib = interval(b);
                if (ia != null && ib != null && within(ia, ib)) return true;
            }
        }
        // call(t) -> count(t) >= 1, run(t) >= 1
        if (plainCall(a)) {
            String t = countedTool(b);
            double[] i = interval(b);
            if (t != null && i != null && t.equals(tool(a)) && within(new double[] {1, Double.POSITIVE_INFINITY}, i)) return true;
        }
        return false;
    }

    /**
     * Whether two parts of a library, one reading {@code a} and the other {@code b}, may depend on each other through
     * these atoms: one's events can change the other's value. Sound rather than sharp: when in doubt, related.
     */
    static boolean related(Atom a, Atom b) {
        return relatedOneWay(a, b) || relatedOneWay(b, a);
    }

    private static boolean relatedOneWay(Atom a, Atom b) {
        if (a.equals(b) || implies(a, b)) return true;
        // since(x) <op> n reads when x held
        if (a.name().equals("since") && a.args().size() == 1) {
            Atom x = inner(a.args().get(0));
            return x == null || x.equals(b) || implies(b, x) || implies(x, b) || related(x, b);
        }
        // a result of t comes only after a call of t (the dead-end search knows it): what decides whether t may be called
        // decides whether a result of t may come
        if (kinds(a) == RETURN && (kinds(b) & CALL) != 0 && kinds(b) != ANY && sameToolPossible(tool(a), tool(b))) {
            return true;
        }
        boolean excl = excludes(a, b);
        // the event's kind and tool: one event may make both hold (call and call(t), call(mcp__s__t) and call(t))
        if (structural(a) && structural(b)) return !excl;
        // which tool an event calls, decides the policy's atoms (side effects, purposes, consent and erasure tools, latches)
        if (policyDecided(a) && (structural(b) || policyDecided(b)) && (kinds(a) & kinds(b)) != 0) return true;
        // one value, compared with other bounds (or with != or a context value, which no interval says)
        String va = valueKey(a);
        if (va != null && va.equals(valueKey(b)) && sameToolPossible(valueTool(a), valueTool(b))) return true;
        // counters of a tool's calls: its calls change them (and any call ends a run)
        String counted = countedTool(a);
        if (counted != null && (kinds(b) & CALL) != 0 && structural(b)) {
            if (a.name().equals("run") || sameToolPossible(counted, tool(b))) return true;
        }
        if (a.name().equals("sum") && a.args().size() == 2 && (kinds(b) & CALL) != 0) {
            String t = toolName(a.args().get(0));
            if (structural(b) && sameToolPossible(t, tool(b))) return true;
            if (field(b) != null && field(b).equals(name(a.args().get(1))) && sameToolPossible(t, tool(b))) return true;
        }
        // two tests of one text (a message, a result, an argument, a call's arguments) where one may imply the other
        return !excl && sameText(a, b) && !distinctLiterals(a, b);
    }

    private static Atom inner(Term t) {
        if (t instanceof Term.Call c) return new Atom(c.name(), c.args(), null, null, 0, 0);
        if (t instanceof Term.Name n) return Atom.of(n.value());
        return null;
    }

    /** The argument field a call's condition reads, or null. */
    private static String field(Atom a) {
        List<Term> args = a.args();
        switch (a.name()) {
            case "arg", "flow", "untrusted" -> { return args.isEmpty() ? null : name(args.get(args.size() - 1)); }
            case "arg_matches", "arg_in", "path_within", "arg_eq_ctx" -> { return args.size() >= 2 ? name(args.get(args.size() - 2)) : null; }
            case "len" -> {
                return args.size() == 1 && args.get(0) instanceof Term.Call c && c.name().equals("arg") && !c.args().isEmpty()
                        ? name(c.args().get(c.args().size() - 1)) : null;
            }
            default -> { return null; }
        }
    }

    /** Both read one text of one event: a message, a result, one argument, or a call's arguments whole. */
    private static boolean sameText(Atom a, Atom b) {
        String ta = text(a), tb = text(b);
        if (ta == null || tb == null) return false;
        if (ta.equals("args") || tb.equals("args")) return ta.startsWith("arg") && tb.startsWith("arg");   // the JSON holds every field
        return ta.equals(tb);
    }

    private static String text(Atom a) {
        switch (a.name()) {
            case "user_matches" -> { return "user"; }
            case "output_matches" -> { return "output"; }
            case "result_matches" -> { return "result"; }
            case "call" -> { return a.args().size() == 2 ? "args" : null; }
            default -> {
                String f = field(a);
                return f == null ? null : "arg " + f;
            }
        }
    }

    /**
     * Two pattern tests of one text whose patterns are plain literals (no RE2 operator) of which neither contains the
     * other: some text matches one and not the other, either way, and both or neither.
     */
    private static boolean distinctLiterals(Atom a, Atom b) {
        String pa = literal(a), pb = literal(b);
        return pa != null && pb != null && !pa.contains(pb) && !pb.contains(pa);
    }

    private static String literal(Atom a) {
        boolean matcher = switch (a.name()) {
            case "user_matches", "output_matches", "result_matches", "arg_matches" -> true;
            case "call" -> a.args().size() == 2;
            default -> false;
        };
        if (!matcher || !(a.args().get(a.args().size() - 1) instanceof Term.Str s)) return null;
        String p = s.value();
        if (p.isEmpty()) return null;
        for (int i = 0; i < p.length(); i++) if ("\\^$.|?*+()[]{}".indexOf(p.charAt(i)) >= 0) return null;
        return p;
    }
}
