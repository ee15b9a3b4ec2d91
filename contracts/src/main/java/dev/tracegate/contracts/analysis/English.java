package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Term;

/** Reads a formula back in plain English, so a reviewer can check that it says what was meant. */
public final class English {
    private English() {}

    public static String of(Formula f) {
        String s = say(f);
        return Character.toUpperCase(s.charAt(0)) + s.substring(1) + ".";
    }

    private static String say(Formula f) {
        if (f instanceof Formula.Const c) return c.value() ? "true" : "false";
        if (f instanceof Atom a) return atom(a);
        if (f instanceof Formula.Unary u) {
            Formula x = u.arg();
            return switch (u.op()) {
                case NOT -> x instanceof Atom a ? negatedAtom(a) : "it is not the case that (" + say(x) + ")";
                case NEXT -> "at the next event (which must exist), " + say(x);
                case WEAK_NEXT -> "at the next event, if there is one, " + say(x);
                case EVENTUALLY -> "eventually " + say(x);
                case ALWAYS -> always(x);
                case YESTERDAY -> "at the previous event, " + say(x);
                case ONCE -> say(x) + " at some point so far";
                case HISTORICALLY -> "at every event so far, " + say(x);
            };
        }
        Formula.Binary b = (Formula.Binary) f;
        String l = say(b.left());
        String r = say(b.right());
        return switch (b.op()) {
            case AND -> group(b.left(), l) + " and " + group(b.right(), r);
            case OR -> group(b.left(), l) + " or " + group(b.right(), r);
            case IMPLIES -> "if " + l + ", then " + r;
            case IFF -> l + " exactly when " + r;
            case UNTIL -> l + " until " + r + " (which must happen)";
            case WEAK_UNTIL -> l + " until " + r + " (or to the end)";
            case RELEASE -> r + " up to and including the first time " + l + " (or to the end)";
            case SINCE -> l + " ever since " + r;
        };
    }

    private static String always(Formula x) {
        if (x instanceof Formula.Binary b && b.op() == Formula.BinOp.IMPLIES) {
            return "whenever " + say(b.left()) + ", " + say(b.right());
        }
        if (x instanceof Formula.Unary u && u.op() == Formula.UnOp.NOT) return "never " + say(u.arg());
        return "always " + say(x);
    }

    private static String group(Formula f, String s) {
        return f instanceof Formula.Binary b && (b.op() == Formula.BinOp.AND || b.op() == Formula.BinOp.OR
                || b.op() == Formula.BinOp.IMPLIES) ? "(" + s + ")" : s;
    }

    private static String negatedAtom(Atom a) {
        return "not " + atom(a);
    }

    private static String atom(Atom a) {
        String first = a.args().isEmpty() ? null : plain(a.args().get(0));
        String cmp = a.comparison() == null ? "" : " " + comparison(a.comparison()) + " " + plain(a.bound());
        switch (a.name()) {
            case "call":
                return a.args().size() > 1 ? "the agent calls " + first + " with arguments matching " + plain(a.args().get(1))
                        : "the agent calls " + first;
            case "returned":
                return first + " returns a result";
            case "count":
                return "the number of calls to " + first + " so far" + cmp;
            case "run":
                return "the number of consecutive calls to " + first + cmp;
            case "sum":
                return "the running total of " + plain(a.args().get(a.args().size() - 1)) + " over calls to " + first + cmp;
            case "arg":
                return "argument " + first + cmp;
            case "consent":
                return "consent for " + first + " is granted";
            case "purpose":
                return "the event serves purpose " + first;
            case "category":
                return "the event carries " + first + " data";
            case "untrusted":
                return "argument " + first + " holds a value that came from a tool output and not from the user";
            case "mentions_erased":
                return "the event mentions an erased data subject";
            default:
                return "`" + a.key() + "`";
        }
    }

    private static String comparison(String c) {
        return switch (c) {
            case "<" -> "is below";
            case "<=" -> "is at most";
            case ">" -> "is above";
            case ">=" -> "is at least";
            case "==" -> "equals";
            case "!=" -> "differs from";
            default -> c;
        };
    }

    private static String plain(Term t) {
        if (t instanceof Term.Str s) return "\"" + s.value() + "\"";
        if (t instanceof Term.Call c && c.name().equals("ctx") && c.args().size() == 1) return "context value " + c.args().get(0);
        return t.toString();
    }
}
