package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Term;

import java.util.List;

/** Reads a formula back in plain English, so a reviewer can check that it says what was meant. */
public final class English {
    private English() {}

    public static String of(Formula f) {
        String s = top(f);
        int i = s.startsWith("(") ? 1 : 0;   // "(eventually a) until b" reads "(Eventually a) until b"
        return s.substring(0, i) + Character.toUpperCase(s.charAt(i)) + s.substring(i + 1) + ".";
    }

    /**
     * The formula as it holds on a whole trace: an atom outside every temporal operator is read at
     * the first event (a bare {@code user} guarantee means "the session opens with a user message",
     * not "the user sends a message at some point"), so such a part is said as "at the first event, ...".
     */
    private static String top(Formula f) {
        if (f instanceof Formula.Const) return say(f);
        if (propositional(f)) return "at the first event, " + say(f);
        // O b, H !a at the top: nothing comes before the first event, so they read only it (trial36 03: "at some point
        // so far" read as "by now", yet O call(b) is violated by a first event that is not b)
        if (past(f)) {
            return "at the first event, " + say(atFirst(f)) + " (a past operator outside every future one reads only the first"
                    + " event; for \"by then\" put it under G: G(... -> " + firstPast(f) + "))";
        }
        if (f instanceof Formula.Binary b && b.op() != Formula.BinOp.UNTIL && b.op() != Formula.BinOp.WEAK_UNTIL
                && b.op() != Formula.BinOp.RELEASE && b.op() != Formula.BinOp.SINCE) {
            String l = top(b.left());
            String r = top(b.right());
            return switch (b.op()) {
                case AND -> group(b.left(), l, b.op()) + " and " + group(b.right(), r, b.op());
                case OR -> group(b.left(), l, b.op()) + " or " + group(b.right(), r, b.op());
                case IMPLIES -> "if " + condition(b.left(), l) + ", then " + r;
                default -> l + " exactly when " + r;
            };
        }
        return say(f);
    }

    /** True when {@code f} has past operators and no future one (its truth on a trace is its truth at the first event). */
    private static boolean past(Formula f) {
        if (f instanceof Formula.Const || f instanceof Atom) return false;
        if (f instanceof Formula.Unary u) {
            return switch (u.op()) {
                case ONCE, HISTORICALLY, YESTERDAY -> pastOrPlain(u.arg());
                case NOT -> past(u.arg());
                default -> false;
            };
        }
        Formula.Binary b = (Formula.Binary) f;
        return switch (b.op()) {
            case SINCE -> pastOrPlain(b.left()) && pastOrPlain(b.right());
            case AND, OR, IMPLIES, IFF -> pastOrPlain(b.left()) && pastOrPlain(b.right()) && (past(b.left()) || past(b.right()));
            default -> false;
        };
    }

    private static boolean pastOrPlain(Formula f) { return propositional(f) || past(f); }

    /** A past-only formula at the first event: O x and H x are x there, Y x is false, x S y is y. */
    private static Formula atFirst(Formula f) {
        if (f instanceof Formula.Unary u) {
            return switch (u.op()) {
                case ONCE, HISTORICALLY -> atFirst(u.arg());
                case YESTERDAY -> Formula.Const.FALSE;
                default -> dev.tracegate.engine.ltl.Formulas.unary(u.op(), atFirst(u.arg()));
            };
        }
        if (f instanceof Formula.Binary b) {
            if (b.op() == Formula.BinOp.SINCE) return atFirst(b.right());
            return dev.tracegate.engine.ltl.Formulas.binary(b.op(), atFirst(b.left()), atFirst(b.right()));
        }
        return f;
    }

    /** The first past operator of {@code f}, as written, for the advice. */
    private static String firstPast(Formula f) {
        if (f instanceof Formula.Unary u && u.op() != Formula.UnOp.NOT) return f.toString();
        if (f instanceof Formula.Unary u) return firstPast(u.arg());
        if (f instanceof Formula.Binary b) {
            if (b.op() == Formula.BinOp.SINCE) return f.toString();
            return past(b.left()) ? firstPast(b.left()) : firstPast(b.right());
        }
        return f.toString();
    }

    /** True when no temporal operator occurs in {@code f} (its truth on a trace is its truth at the first event). */
    private static boolean propositional(Formula f) {
        if (f instanceof Formula.Const || f instanceof Atom) return true;
        if (f instanceof Formula.Unary u) return u.op() == Formula.UnOp.NOT && propositional(u.arg());
        Formula.Binary b = (Formula.Binary) f;
        return switch (b.op()) {
            case AND, OR, IMPLIES, IFF -> propositional(b.left()) && propositional(b.right());
            default -> false;
        };
    }

    /**
     * An atom as a clause, three ways, so that a negation reads as English ("the agent does not call
     * refund") instead of "not the agent calls refund".
     */
    private record Clause(String positive, String negative, String never) {}

    private static String say(Formula f) {
        if (f instanceof Formula.Const c) return c.value() ? "true" : "false";
        if (f instanceof Atom a) return clause(a).positive();
        if (f instanceof Formula.Unary u) {
            Formula x = u.arg();
            return switch (u.op()) {
                case NOT -> negate(x);
                case NEXT -> "at the next event (which must exist), " + operand(x);
                case WEAK_NEXT -> "at the next event, if there is one, " + operand(x);
                case EVENTUALLY -> "eventually " + operand(x);
                case ALWAYS -> always(x);
                case YESTERDAY -> "at the previous event, " + operand(x);
                // said after its operand: bracket what would run on into it (X (O a) is not O (X a), trial21)
                case ONCE -> (prefixed(x) || x instanceof Formula.Binary ? "(" + say(x) + ")" : say(x)) + " at some point so far";
                case HISTORICALLY -> "at every event so far, " + operand(x);
            };
        }
        Formula.Binary b = (Formula.Binary) f;
        String l = say(b.left());
        String r = say(b.right());
        if (temporal(b.op())) {
            // a prefix operator on either side binds tighter than the until: (X X a) W b is not X X (a W b) (trial21)
            l = prefixed(b.left()) || temporal(b.left()) ? "(" + l + ")" : condition(b.left(), l);
            r = prefixed(b.right()) || temporal(b.right()) ? "(" + r + ")" : condition(b.right(), r);
        }
        return switch (b.op()) {
            case AND -> group(b.left(), l, b.op()) + " and " + group(b.right(), r, b.op());
            case OR -> group(b.left(), l, b.op()) + " or " + group(b.right(), r, b.op());
            case IMPLIES -> "if " + condition(b.left(), l) + ", then " + r;
            case IFF -> l + " exactly when " + r;
            case UNTIL -> l + " until " + r + " (which must happen)";
            case WEAK_UNTIL -> l + " until " + r + " (or to the end)";
            case RELEASE -> r + " up to and including the first time " + l + " (or to the end)";
            // φ S ψ holds exactly when φ held at every event after the last ψ, and there was a ψ.
            case SINCE -> "since the last time " + r + " (which must have happened), " + l;
        };
    }

    /** The operand of a prefix operator: bracketed when it is an until-like operator, whose own "until" would run on. */
    private static String operand(Formula x) {
        return temporal(x) ? "(" + say(x) + ")" : say(x);
    }

    private static boolean temporal(Formula.BinOp op) {
        return op == Formula.BinOp.UNTIL || op == Formula.BinOp.WEAK_UNTIL || op == Formula.BinOp.RELEASE || op == Formula.BinOp.SINCE;
    }

    private static boolean temporal(Formula f) {
        return f instanceof Formula.Binary b && temporal(b.op());
    }

    /** A temporal prefix operator (X, WX, F, G, Y, O, H), whose reading would otherwise run into an until around it. */
    private static boolean prefixed(Formula f) {
        return f instanceof Formula.Unary u && u.op() != Formula.UnOp.NOT;
    }

    /** {@code !x}: pushed into atoms and the past and future operators that have a plain dual. */
    private static String negate(Formula x) {
        if (x instanceof Atom a) return clause(a).negative();
        if (x instanceof Formula.Unary u) {
            switch (u.op()) {
                case NOT: return say(u.arg());
                case ONCE: return "at every event so far, " + negate(u.arg());          // !O a == H !a
                case HISTORICALLY: return negate(u.arg()) + " at some point so far";  // !H a == O !a
                case EVENTUALLY: return never(u.arg());                               // !F a == G !a
                case ALWAYS: return "eventually " + negate(u.arg());                  // !G a == F !a
                default: break;
            }
        }
        return "it is not the case that (" + say(x) + ")";
    }

    private static String always(Formula x) {
        if (x instanceof Formula.Binary b && b.op() == Formula.BinOp.IMPLIES) {
            return "whenever " + condition(b.left(), say(b.left())) + ", " + say(b.right());
        }
        if (x instanceof Formula.Unary u && u.op() == Formula.UnOp.NOT) return never(u.arg());
        return "at every event, " + operand(x);
    }

    private static String never(Formula x) {
        if (x instanceof Atom a) return clause(a).never();
        return "it never happens that " + operand(x);
    }

    /**
     * Brackets the text {@code s} of a condition ("if _, then", "whenever _,") or of the left side of an until when
     * it is itself an implication, an equivalence or an until-like operator, whose own commas or "until" would
     * otherwise run on: "if (if a, then b), then c" is not "if a, then if b, then c" (trial13 explain-nested-implication).
     */
    private static String condition(Formula f, String s) {
        if (!(f instanceof Formula.Binary b)) return s;
        return switch (b.op()) {
            case IMPLIES, IFF, UNTIL, WEAK_UNTIL, RELEASE, SINCE -> "(" + s + ")";
            default -> s;
        };
    }

    /**
     * Brackets a nested connective unless it is the same associative one (a and b and c), and a prefix operator
     * (G, F, X, WX, H, Y, a negated one) whose reading ("whenever a, ...", "at every event, ...") would run on into the
     * other side: G(a -> X b) & F user is "(whenever a, ...) and eventually ...", not G(a -> X b & F user) (trial36 01).
     */
    private static String group(Formula f, String s, Formula.BinOp parent) {
        if (runsOn(f)) return "(" + s + ")";
        if (!(f instanceof Formula.Binary b)) return s;
        boolean connective = b.op() == Formula.BinOp.AND || b.op() == Formula.BinOp.OR || b.op() == Formula.BinOp.IMPLIES;
        return connective && b.op() != parent ? "(" + s + ")" : s;
    }

    /** A prefix reading whose scope would run to the end of the sentence: a temporal prefix operator or a negated formula. */
    private static boolean runsOn(Formula f) {
        if (!(f instanceof Formula.Unary u)) return false;
        if (u.op() == Formula.UnOp.NOT) return !(u.arg() instanceof Atom) && !(u.arg() instanceof Formula.Const);
        // G !a is the closed clause "the agent never calls a"; O is said after its operand, bracketed there
        if (u.op() == Formula.UnOp.ALWAYS && u.arg() instanceof Formula.Unary n && n.op() == Formula.UnOp.NOT && n.arg() instanceof Atom) {
            return false;
        }
        return u.op() != Formula.UnOp.ONCE;
    }

    /** Subject + verb: "the agent calls refund", "the agent does not call refund", "the agent never calls refund". */
    private static Clause verb(String subject, String verb, String base, String rest) {
        return new Clause(subject + " " + verb + rest, subject + " does not " + base + rest, subject + " never " + verb + rest);
    }

    /** Subject + "is": "the number of calls to search so far is at most 3". */
    private static Clause is(String subject, String rest) {
        return new Clause(subject + " is " + rest, subject + " is not " + rest, subject + " is never " + rest);
    }

    private static Clause clause(Atom a) {
        List<Term> args = a.args();
        int n = args.size();
        String first = n == 0 ? null : plain(args.get(0));
        String cmp = a.comparison() == null ? null : comparison(a.comparison()) + " " + bound(a.bound());
        // "argument amount" or, when the first argument names the tool, "argument amount of a call of refund"
        String argument = n == 0 ? null : "argument " + plain(args.get(n - 1)) + (n > 1 ? " of a call of " + first : "");
        switch (a.name() + "/" + n) {
            case "call/0": return verb("the agent", "calls", "call", " a tool");
            case "call/1": return verb("the agent", "calls", "call", " " + first);
            case "call/2": return verb("the agent", "calls", "call", " " + first + " with arguments matching " + pattern(args.get(1)));
            // "the tool": a sentence that starts with a tool's name would capitalise it (Lookup_order), trial7 repro 20
            case "returned/1": return verb("the tool " + first, "returns", "return", " a result");
            case "failed/1": return verb("the tool " + first, "fails", "fail", "");
            case "user/0": return verb("the user", "sends", "send", " a message");
            case "assistant/0": return verb("the model", "answers", "answer", "");
            case "return/0": return verb("a tool", "returns", "return", " a result");
            case "consent/0": return verb("the event", "records", "record", " a consent");
            case "erasure/0": return verb("the event", "requests", "request", " an erasure");
            case "end/0": return verb("the session", "ends", "end", "");
            case "user_matches/1": return verb("the user", "writes", "write", " something matching " + pattern(args.get(0)));
            case "output_matches/1": return verb("the model", "writes", "write", " something matching " + pattern(args.get(0)));
            case "result_matches/1": return verb("a tool result", "matches", "match", " " + pattern(args.get(0)));
            case "result_matches/2": return verb("a result of " + first, "matches", "match", " " + pattern(args.get(1)));
            case "arg_matches/2": return verb("argument " + first, "matches", "match", " " + pattern(args.get(1)));
            case "arg_matches/3": return verb("argument " + plain(args.get(1)) + " of a call of " + first, "matches", "match", " " + pattern(args.get(2)));
            case "arg_in/2", "arg_in/3", "path_within/2", "path_within/3": {
                String field = n == 2 ? "argument " + first : "argument " + plain(args.get(1)) + " of a call of " + first;
                return a.name().equals("arg_in") ? is(field, "one of " + plain(args.get(n - 1)))
                        : verb(field, "lies", "lie", " within " + plain(args.get(n - 1)));
            }
            case "arg_eq_ctx/2": return verb("argument " + first, "equals", "equal", " context value " + plain(args.get(1)));
            case "arg_eq_ctx/3": return verb("argument " + plain(args.get(1)) + " of a call of " + first, "equals", "equal",
                    " context value " + plain(args.get(2)));
            case "untrusted/1", "untrusted/2":
                return verb(argument, "holds", "hold", " a value that came from a tool output and not from the user");
            case "flow/1", "flow/2": return verb(argument, "carries", "carry", " a value that an earlier tool result introduced");
            case "untrusted_target/0":
                return verb("a side-effecting call", "targets", "target", " a value that came from a tool output and not from the user");
            case "side_effect/0": return verb("the agent", "calls", "call", " a side-effecting tool");
            case "named_link/0": return verb("the agent", "opens", "open", " a link inside a record the user named");
            case "permission/1": return is("permission " + first, "held");
            case "consent/1": return is("consent for " + first, "granted");
            case "purpose/1": return verb("the event", "serves", "serve", " purpose " + first);
            case "category/1": return verb("the event", "carries", "carry", " " + first + " data");
            case "personal_data/0": return verb("the event", "carries", "carry", " personal data");
            case "excess_data/0": {
                Clause c = verb("the event", "carries", "carry", " data its purposes do not need");
                return new Clause(c.positive(), "the event carries only data its purposes need", c.never());
            }
            case "consented/0":
                return new Clause("every consent-based purpose of the event has the data subject's consent",
                        "some consent-based purpose of the event lacks the data subject's consent",
                        "no event has the data subject's consent for every consent-based purpose");
            case "undeclared_purpose/0": {
                Clause c = verb("the event", "serves", "serve", " an undeclared purpose, or none");
                return new Clause(c.positive(), "the event serves a declared purpose and no undeclared one", c.never());
            }
            case "mentions_erased/0": return verb("the event", "mentions", "mention", " an erased data subject");
            default: break;
        }
        if (cmp != null) {
            String subject = switch (a.name() + "/" + n) {
                case "count/1" -> "the number of calls to " + first + " so far";
                case "run/1" -> "the number of consecutive calls to " + first;
                case "sum/2" -> "the running total of " + plain(args.get(1)) + " over calls to " + first;
                case "arg/1", "arg/2" -> argument;
                case "ctx/1" -> "context value " + first;
                case "len/1" -> "the length of " + plain(args.get(0));
                case "context_len/0" -> "the number of characters of the conversation so far";
                case "output_chars/0" -> "the number of characters of model output so far";
                case "tokens/0" -> "the number of model tokens so far";
                case "depth/0" -> "the delegation depth";
                case "since/1" -> "the number of events since " + first + " last held";
                default -> null;
            };
            if (subject != null) return is(subject, cmp);
        } else if (a.name().equals("ctx") && n == 1) {
            return is("context value " + first, "set");
        }
        String raw = "`" + a.key() + "`";
        return new Clause(raw, "not " + raw, "never " + raw);
    }

    private static String comparison(String c) {
        return switch (c) {
            case "<" -> "below";
            case "<=" -> "at most";
            case ">" -> "above";
            case ">=" -> "at least";
            case "==" -> "equal to";
            case "!=" -> "different from";
            default -> c;
        };
    }

    private static String bound(Term t) {
        if (t instanceof Term.Name n && n.value().startsWith("ctx.")) return "context value " + n.value().substring(4);
        return plain(t);
    }

    private static String pattern(Term t) {
        return t instanceof Term.Str s ? "/" + s.value() + "/" : plain(t);
    }

    private static String plain(Term t) {
        if (t instanceof Term.Str s) return "\"" + s.value() + "\"";
        if (t instanceof Term.Call c && c.name().equals("ctx") && c.args().size() == 1) return "context value " + c.args().get(0);
        if (t instanceof Term.Call c && c.name().equals("arg")) {
            return "argument " + plain(c.args().get(c.args().size() - 1)) + (c.args().size() == 2 ? " of a call of " + plain(c.args().get(0)) : "");
        }
        return t.toString();
    }
}
