package dev.tracegate.engine.ltl;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the concrete syntax of the temporal layer into a {@link Formula}, or reports the first error
 * with its line, column, offending token and what was expected.
 *
 * <p>Grammar, loosest binding first:
 * <pre>
 *   formula  := implies ('&lt;-&gt;' implies)*                  left associative
 *   implies  := or ('-&gt;' implies)?                          right associative
 *   or       := and (('|' | '||') and)*
 *   and      := temporal (('&amp;' | '&amp;&amp;') temporal)*
 *   temporal := unary (('U' | 'W' | 'R' | 'S') temporal)?     right associative, binds tighter than &amp; and |
 *   unary    := ('!' | 'X' | 'WX' | 'F' | 'G' | 'Y' | 'O' | 'H') unary | primary
 *   primary  := 'true' | 'false' | '(' formula ')' | atom
 *   atom     := ident ('(' terms? ')')? (cmp term)?          cmp is one of &lt; &lt;= &gt; &gt;= == !=
 *   term     := number | string | ident ('(' terms? ')')? | '[' terms? ']'
 *   terms    := term (',' term)*
 * </pre>
 * An identifier is letters, digits and {@code _}, not starting with a digit, with single dots
 * inside ({@code ctx.approved}). The operator words {@code X WX F G U W R Y O H S true false} cannot
 * name an atom, but inside an argument list or as a comparison's bound they are plain names
 * ({@code call(F)} is the atom {@code call} applied to the name {@code F}), because terms are never
 * formulas. Numbers are {@code -?digits(.digits)?}; strings are double-quoted on one line with the
 * escapes {@code \" \\ \n}. {@code #} starts a comment that runs to the end of the line.
 *
 * <p>Nesting (parentheses, brackets, and the depth of the resulting tree) is limited to
 * {@link #MAX_DEPTH} so that neither this parser nor any recursive consumer of the tree can
 * overflow the stack.
 */
public final class Parser {
    /** Deepest nesting of parentheses, brackets and operators accepted. */
    public static final int MAX_DEPTH = 500;

    private static final Map<String, Formula.UnOp> UNARY_WORDS = Map.of(
            "X", Formula.UnOp.NEXT, "WX", Formula.UnOp.WEAK_NEXT, "F", Formula.UnOp.EVENTUALLY,
            "G", Formula.UnOp.ALWAYS, "Y", Formula.UnOp.YESTERDAY, "O", Formula.UnOp.ONCE,
            "H", Formula.UnOp.HISTORICALLY);
    private static final Map<String, Formula.BinOp> BINARY_WORDS = Map.of(
            "U", Formula.BinOp.UNTIL, "W", Formula.BinOp.WEAK_UNTIL, "R", Formula.BinOp.RELEASE,
            "S", Formula.BinOp.SINCE);
    private static final Set<String> CONSTANTS = Set.of("true", "false");

    private enum Kind { IDENT, NUMBER, STRING, NOT, AND, OR, IMPLIES, IFF, LPAREN, RPAREN, LBRACKET, RBRACKET, COMMA, CMP, ILLEGAL, BAD, EOF }

    /**
     * A token; for {@code BAD} (a malformed number, string or escape) {@code value} holds the
     * description and {@code expected} what a well-formed token looks like.
     */
    private record Token(Kind kind, String text, String value, String expected, int offset, int line, int column) {}

    /** A parsed formula and the depth of its tree. */
    private record Parsed(Formula formula, int depth) {}

    private final String source;
    private final List<Token> tokens;
    private int pos;
    private int nesting;

    private Parser(String source) {
        this.source = source;
        this.tokens = lex(source);
    }

    /**
     * Parses one formula.
     *
     * @throws ParseException at the first token that does not fit the grammar
     */
    public static Formula parse(String text) {
        try {
            return new Parser(text).whole();
        } catch (StackOverflowError e) {
            // MAX_DEPTH keeps interpreted frames well inside a default stack, but JIT-compiled frames
            // with deep inlining can be larger (found by fuzzing), and the caller's thread may have
            // little stack left. A formula within the limits must still parse: try once more on a
            // thread of our own with a stack sized for MAX_DEPTH (rare path).
            return parseOnLargeStack(text);
        }
    }

    private static final long LARGE_STACK = 64L << 20;

    private static Formula parseOnLargeStack(String text) {
        Parser p = new Parser(text);
        Formula[] out = new Formula[1];
        RuntimeException[] failed = new RuntimeException[1];
        boolean[] overflow = new boolean[1];
        Thread t = new Thread(null, () -> {
            try {
                out[0] = p.whole();
            } catch (RuntimeException ex) {
                failed[0] = ex;
            } catch (StackOverflowError ex) {
                overflow[0] = true;
            }
        }, "tracegate-parse", LARGE_STACK);
        t.setDaemon(true);
        t.start();
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException ie) {
                interrupted = true;
            }
        }
        if (interrupted) Thread.currentThread().interrupt();
        if (failed[0] != null) throw failed[0];
        if (overflow[0] || out[0] == null) {
            // the thread's stack, not the grammar, ran out even there: the caller still gets the documented error
            throw p.error(p.peek(), "formula nested too deeply for this thread's stack",
                    "fewer nested levels (group long chains with parentheses or split the formula)");
        }
        return out[0];
    }

    private Formula whole() {
        Parsed p = formula(null);
        if (peek().kind != Kind.EOF) fail(afterOperand("an operator or end of input"));
        return p.formula;
    }

    // ---------------------------------------------------------------- formulas

    private Parsed formula(Token after) {
        Parsed left = implies(after);
        while (peek().kind == Kind.IFF) {
            Token op = next();
            left = node(op, Formulas.binary(Formula.BinOp.IFF, left.formula, implies(op).formula), left, null);
        }
        return left;
    }

    // Right-associative chains are collected and folded, so a long chain costs no stack.
    private Parsed implies(Token after) {
        List<Parsed> operands = new ArrayList<>();
        List<Token> ops = new ArrayList<>();
        operands.add(or(after));
        while (peek().kind == Kind.IMPLIES) {
            Token op = next();
            ops.add(op);
            operands.add(or(op));
        }
        return foldRight(operands, ops);
    }

    private Parsed or(Token after) {
        Parsed left = and(after);
        while (peek().kind == Kind.OR) {
            Token op = next();
            Parsed right = and(op);
            left = node(op, Formulas.or(left.formula, right.formula), left, right);
        }
        return left;
    }

    private Parsed and(Token after) {
        Parsed left = temporal(after);
        while (peek().kind == Kind.AND) {
            Token op = next();
            Parsed right = temporal(op);
            left = node(op, Formulas.and(left.formula, right.formula), left, right);
        }
        return left;
    }

    private Parsed temporal(Token after) {
        List<Parsed> operands = new ArrayList<>();
        List<Token> ops = new ArrayList<>();
        operands.add(unary(after));
        while (peek().kind == Kind.IDENT && BINARY_WORDS.containsKey(peek().text)) {
            Token op = next();
            ops.add(op);
            operands.add(unary(op));
        }
        return foldRight(operands, ops);
    }

    private Parsed foldRight(List<Parsed> operands, List<Token> ops) {
        Parsed right = operands.get(operands.size() - 1);
        for (int i = ops.size() - 1; i >= 0; i--) {
            Token op = ops.get(i);
            Parsed left = operands.get(i);
            Formula.BinOp bin = op.kind == Kind.IMPLIES ? Formula.BinOp.IMPLIES : BINARY_WORDS.get(op.text);
            right = node(op, Formulas.binary(bin, left.formula, right.formula), left, right);
        }
        return right;
    }

    private Parsed unary(Token after) {
        List<Token> ops = new ArrayList<>();
        Token operandAfter = after;
        while (true) {
            Token t = peek();
            if (t.kind == Kind.NOT || (t.kind == Kind.IDENT && UNARY_WORDS.containsKey(t.text))) {
                ops.add(next());
                operandAfter = t;
            } else {
                break;
            }
        }
        Parsed p = primary(operandAfter);
        for (int i = ops.size() - 1; i >= 0; i--) {
            Token op = ops.get(i);
            Formula.UnOp u = op.kind == Kind.NOT ? Formula.UnOp.NOT : UNARY_WORDS.get(op.text);
            p = node(op, Formulas.unary(u, p.formula), p, null);
        }
        return p;
    }

    private Parsed primary(Token after) {
        Token t = peek();
        String expected = after == null ? "a formula" : "a formula after '" + after.text + "'";
        if (t.kind == Kind.LPAREN) {
            next();
            enter(t);
            Parsed inner = formula(t);
            if (peek().kind != Kind.RPAREN) {
                String wanted = afterOperand(closing("an operator or ')'", t));
                // F(a, b): the author probably meant an atom named like an operator.
                if (peek().kind == Kind.COMMA && after != null && UNARY_WORDS.containsKey(after.text)) {
                    wanted += " ('" + after.text + "' is an operator and takes one formula; it cannot name an atom)";
                }
                fail(wanted);
            }
            next();
            nesting--;
            return inner;
        }
        if (t.kind != Kind.IDENT) fail(expected + boundedOperator(after, t) + foreignSpelling(t));
        if (BINARY_WORDS.containsKey(t.text)) {
            fail(expected + " ('" + t.text + "' is a binary operator and cannot name an atom)");
        }
        next();
        if (CONSTANTS.contains(t.text)) {
            if (peek().kind == Kind.LPAREN || peek().kind == Kind.CMP) {
                fail(afterOperand("an operator") + " ('" + t.text + "' is a constant and cannot name an atom)");
            }
            return new Parsed(t.text.equals("true") ? Formula.Const.TRUE : Formula.Const.FALSE, 1);
        }
        return new Parsed(atom(t), 1);
    }

    private Atom atom(Token name) {
        List<Term> args = List.of();
        if (peek().kind == Kind.LPAREN) args = terms(next(), Kind.RPAREN);
        String comparison = null;
        Term bound = null;
        if (peek().kind == Kind.CMP) {
            Token cmp = peek();
            // '<=>' is MONA's, NuSMV's and LTLf2DFA's equivalence, read here as '<=' and a stray '>'
            if (cmp.text.equals("<=") && cmp.offset + 2 < source.length() && source.charAt(cmp.offset + 2) == '>') {
                fail("an operator ('<=>' is no operator here: write <-> for equivalence)");
            }
            next();
            comparison = cmp.text;
            bound = term("a value after '" + cmp.text + "'");
        }
        return new Atom(name.text, args, comparison, bound, name.line, name.column);
    }

    // ---------------------------------------------------------------- terms

    private Term term(String expected) {
        Token t = peek();
        switch (t.kind) {
            case NUMBER: next(); return new Term.Num(t.text);
            case STRING: next(); return new Term.Str(t.value);
            case IDENT:
                next();
                if (peek().kind == Kind.LPAREN) return new Term.Call(t.text, terms(next(), Kind.RPAREN));
                return new Term.Name(t.text);
            case LBRACKET: next(); return new Term.ListOf(terms(t, Kind.RBRACKET));
            default: fail(expected); return null;
        }
    }

    /** The items after an opening parenthesis or bracket, up to and including its closing one. */
    private List<Term> terms(Token open, Kind close) {
        enter(open);
        String closeText = close == Kind.RPAREN ? "')'" : "']'";
        List<Term> items = new ArrayList<>();
        if (peek().kind == close) {
            next();
            nesting--;
            return items;
        }
        items.add(term(closing("an argument or " + closeText, open)));
        while (true) {
            Token t = peek();
            if (t.kind == close) break;
            if (t.kind != Kind.COMMA) {
                String quote = hyphenatedName(open);
                // a BAD token ('-2fa' of tool-2fa) would otherwise report itself as a malformed number
                if (!quote.isEmpty()) throw error(t, t.kind == Kind.BAD ? "'" + t.text + "'" : describe(t), closing("',' or " + closeText, open) + quote);
                fail(closing("',' or " + closeText, open));
            }
            Token comma = next();
            items.add(term(closing("an argument after '" + comma.text + "'", open)));
        }
        next();
        nesting--;
        return items;
    }

    // ---------------------------------------------------------------- helpers

    private Parsed node(Token op, Formula f, Parsed left, Parsed right) {
        int depth = 1 + Math.max(left.depth, right == null ? 0 : right.depth);
        if (depth > MAX_DEPTH) tooDeep(op);
        return new Parsed(f, depth);
    }

    private void enter(Token open) {
        if (++nesting > MAX_DEPTH) tooDeep(open);
    }

    private void tooDeep(Token t) {
        throw error(t, describe(t) + " beyond nesting depth " + MAX_DEPTH,
                "at most " + MAX_DEPTH + " nested levels (group long chains with parentheses or split the formula)");
    }

    /** What may follow a complete operand, with a hint for the usual slips. */
    private String afterOperand(String base) {
        Token t = peek();
        if (t.kind == Kind.CMP) return base + " (a comparison relates one atom to one value; write a < b & b < c)";
        if (t.kind == Kind.ILLEGAL && t.text.equals("=")) {
            // '=>' is MONA's, NuSMV's and LTLf2DFA's implication
            if (t.offset + 1 < source.length() && source.charAt(t.offset + 1) == '>') return base + " ('=>' is no operator here: write -> for implication)";
            return base + " (compare with '==')";
        }
        // Z φ, B φ, P φ: another tool's past operator, read here as an atom's name followed by a formula
        Token last = pos > 0 ? tokens.get(pos - 1) : null;
        boolean bound = pos > 1 && tokens.get(pos - 2).kind == Kind.CMP;
        if (last != null && last.kind == Kind.IDENT && FOREIGN_PAST.containsKey(last.text) && !bound
                && (t.kind == Kind.IDENT || t.kind == Kind.NOT)) {
            return base + " (" + FOREIGN_PAST.get(last.text) + ")";
        }
        if (t.kind == Kind.IDENT && t.text.equals("B")) return base + " (" + FOREIGN_PAST.get("B") + ")";
        // GF φ, FG φ, XX φ: operators written together, as other LTL tools accept, read here as one atom's name
        if (last != null && last.kind == Kind.IDENT && gluedOperators(last.text) != null && !bound
                && (t.kind == Kind.IDENT || t.kind == Kind.NOT)) {
            return base + " (" + gluedOperators(last.text) + ")";
        }
        return base;
    }

    /**
     * For a word made only of the letters of prefix operators ({@code GF}, {@code FG}, {@code XX}), what to write instead:
     * tracegate reads it as an atom's name; null for any other word. The loader adds it to an unknown atom {@code GF(...)}.
     */
    public static String gluedOperators(String word) {
        if (word == null || word.length() < 2 || UNARY_WORDS.containsKey(word)) return null;
        StringBuilder apart = new StringBuilder();
        for (int i = 0; i < word.length(); i++) {
            if ("XFGYOH".indexOf(word.charAt(i)) < 0) return null;
            apart.append(i == 0 ? "" : " ").append(word.charAt(i));
        }
        return "'" + word + "' is no operator here, so it is read as an atom's name; write the operators apart: " + apart;
    }

    /** An interval after an operator, as MTL, STL and Spot write bounded operators: [a,b], [a:b], [a..b], [a,$], [n]. */
    private static final java.util.regex.Pattern INTERVAL = java.util.regex.Pattern.compile(
            "\\[\\s*(\\d{1,4})\\s*(?:(?:,|:|\\.\\.)\\s*(\\d{1,4}|\\$|inf|oo|\u221e)\\s*)?]");
    /** Most events a bounded operator is spelt out for in a hint (beyond it, the shape is described). */
    private static final int SPELL_OUT = 6;

    /**
     * For a {@code [} right after an operator ({@code F[0,3] φ}, {@code G[1,5] φ}, {@code X[2] φ}, {@code φ U[0,2] ψ}): a
     * bounded operator of MTL, STL or Spot, which tracegate does not have; what to write with the operators it has, its
     * bounds counting events (docs/FORMULAS.md, "Bounded operators"). Else "".
     */
    private String boundedOperator(Token after, Token t) {
        if (after == null || t.kind != Kind.LBRACKET || after.kind != Kind.IDENT) return "";
        String op = after.text;
        if (!UNARY_WORDS.containsKey(op) && !BINARY_WORDS.containsKey(op)) return "";
        if (op.equals("X") && source.startsWith("[!]", t.offset)) {
            return " ('X[!]' is Spot's strong next: X is strong here already (false at the last event; WX is the weak one), so write X φ)";
        }
        java.util.regex.Matcher m = INTERVAL.matcher(source).region(t.offset, source.length());
        String general = "; a bound counts events here (each call, result and message is one), not time, and is written with"
                + " nested X (next) or Y (yesterday): F[0,2] φ is (φ | X φ | X X φ), G[0,2] φ is (φ & WX φ & WX WX φ)";
        if (!m.lookingAt()) {
            return " ('" + op + "[' starts a bounded operator, which tracegate does not have" + general + ")";
        }
        String read = op + m.group().replaceAll("\\s+", "");
        int lo = Integer.parseInt(m.group(1));
        String upper = m.group(2);
        Integer hi = upper == null ? null : upper.chars().allMatch(Character::isDigit) ? Integer.valueOf(upper) : Integer.valueOf(-1);
        String rewrite = bounded(op, lo, hi);
        if (rewrite == null) {
            return " ('" + read + "' is a bounded operator, which tracegate does not have" + general + ")";
        }
        String shape = BINARY_WORDS.containsKey(op) ? "φ " + read + " ψ" : read + " φ";
        return " ('" + read + "' is a bounded operator, which tracegate does not have; a bound counts events here (each call,"
                + " result and message is one), not time: write " + shape + " as " + rewrite + ")";
    }

    /**
     * {@code op} bounded to events {@code lo..hi} ({@code hi} null for {@code X[n]}, -1 for no upper bound) written with
     * the operators the syntax has, with φ (and ψ) for the operands; null where there is none to offer.
     */
    static String bounded(String op, int lo, Integer hi) {
        if (hi == null) {
            // X[n] φ (Spot): n nested next steps; likewise WX[n] and Y[n]
            if (!op.equals("X") && !op.equals("WX") && !op.equals("Y")) return null;
            return lo > SPELL_OUT ? op + " " + op + " ... φ (" + lo + " times " + op + ")" : (op + " ").repeat(lo) + "φ";
        }
        if (hi >= 0 && hi < lo) return null;
        boolean unbounded = hi < 0;
        switch (op) {
            case "F", "O", "G", "H": {
                String step = op.equals("F") ? "X " : op.equals("O") ? "Y " : op.equals("G") ? "WX " : null;
                String join = op.equals("F") || op.equals("O") ? " | " : " & ";
                if (unbounded) {
                    if (lo > SPELL_OUT) return null;
                    return lo == 0 ? op + " φ" : op.equals("H") ? "!" + "Y ".repeat(lo) + "!H φ" : step.repeat(lo) + op + " φ";
                }
                if (hi > SPELL_OUT) {
                    if (lo > SPELL_OUT) return null;
                    String unit = op.equals("F") ? "X" : op.equals("G") ? "WX" : "Y";
                    return "(" + shifted(op, step, lo) + join + shifted(op, step, lo + 1) + join + "... up to " + hi + " times "
                            + unit + ")";
                }
                StringBuilder b = new StringBuilder("(");
                for (int k = lo; k <= hi; k++) b.append(k == lo ? "" : join).append(shifted(op, step, k));
                return b.append(')').toString();
            }
            case "U": {
                if (unbounded) return lo > SPELL_OUT ? null : until(lo, -1);
                return hi > SPELL_OUT ? null : until(lo, hi);
            }
            default:
                return null;
        }
    }

    /** φ k events on (X, WX) or back (Y; for H the weak yesterday !Y !φ, whose k-fold is !Y Y...Y !φ). */
    private static String shifted(String op, String step, int k) {
        if (k == 0) return "φ";
        if (op.equals("H")) return "!" + "Y ".repeat(k) + "!φ";
        return step.repeat(k) + "φ";
    }

    /** φ U[lo,hi] ψ (hi -1: no upper bound) unfolded: ψ at one of those events, φ at every event before it. */
    private static String until(int lo, int hi) {
        if (lo > 0) return "(φ & X " + until(lo - 1, hi < 0 ? -1 : hi - 1) + ")";
        if (hi < 0) return "(φ U ψ)";
        if (hi == 0) return "ψ";
        return "(ψ | (φ & X " + until(0, hi - 1) + "))";
    }

    /**
     * For a name with '-' in an argument list ({@code call(send-email)}, read as {@code send} and then a '-' that no
     * argument may start with): names with other characters are strings, so the fix quotes them; the fixed atom. Else "".
     */
    private String hyphenatedName(Token open) {
        Token last = tokens.get(pos - 1);
        Token t = peek();
        if (last.kind != Kind.IDENT || !t.text.startsWith("-") || t.offset != last.offset + last.text.length()) return "";
        int end = last.offset;
        while (end < source.length() && (identPart(source.charAt(end)) || source.charAt(end) == '-' || source.charAt(end) == '.')) end++;
        String name = source.substring(last.offset, end);
        int openAt = tokens.indexOf(open);
        Token head = openAt > 0 && tokens.get(openAt - 1).kind == Kind.IDENT ? tokens.get(openAt - 1) : null;
        String fixed = head == null ? null : quoteHyphenated(head.offset, open.offset);
        return " ('" + name + "' has a '-', which ends a name in a formula; a tool or field name with '-' (or any character"
                + " besides letters, digits, _ and .) is written in double quotes: "
                + (fixed != null ? fixed : "\"" + name + "\"") + ")";
    }

    /**
     * The atom from {@code from} to the ')' matching the '(' at {@code open}, on its line, with every name that has a
     * '-' in double quotes; null when that ')' is not on the line.
     */
    private String quoteHyphenated(int from, int open) {
        StringBuilder b = new StringBuilder(source.substring(from, open));
        int depth = 0;
        int i = open;
        while (i < source.length() && source.charAt(i) != '\n') {
            char c = source.charAt(i);
            if (c == '"') {
                int j = i + 1;
                while (j < source.length() && source.charAt(j) != '"' && source.charAt(j) != '\n') j += source.charAt(j) == '\\' ? 2 : 1;
                if (j >= source.length() || source.charAt(j) != '"') return null;
                b.append(source, i, j + 1);
                i = j + 1;
                continue;
            }
            if (identStart(c) && (i == 0 || !identPart(source.charAt(i - 1)))) {
                int j = i;
                while (j < source.length() && (identPart(source.charAt(j)) || source.charAt(j) == '-' || source.charAt(j) == '.')) j++;
                String word = source.substring(i, j);
                b.append(word.indexOf('-') > 0 ? "\"" + word + "\"" : word);
                i = j;
                continue;
            }
            b.append(c);
            if (c == '(') depth++;
            if (c == ')' && --depth == 0) return b.toString();
            i++;
        }
        return null;
    }

    /** Other LTL tools' spellings of always, eventually and not ({@code []}, {@code <>}, {@code ~}), with what to write. */
    private String foreignSpelling(Token t) {
        Token following = pos + 1 < tokens.size() ? tokens.get(pos + 1) : null;
        boolean glued = following != null && following.offset == t.offset + t.text.length();
        if (t.kind == Kind.LBRACKET && glued && following.kind == Kind.RBRACKET) {
            return " ('[]' is no operator here: write G φ for 'always')";
        }
        if (t.kind == Kind.CMP && t.text.equals("<") && glued && following.kind == Kind.CMP && following.text.equals(">")) {
            return " ('<>' is no operator here: write F φ for 'eventually')";
        }
        if (t.kind == Kind.ILLEGAL && t.text.equals("~")) return " ('~' is no operator here: write !φ for 'not')";
        return "";
    }

    /**
     * What to write instead of {@code word} when it is another tool's past operator ({@code Z}, {@code B}, {@code P}) or
     * weak next ({@code N}) that tracegate reads as an atom's name, or null; the loader adds it to an unknown atom {@code Z(...)}.
     */
    public static String foreignPastHint(String word) {
        return FOREIGN_PAST.get(word);
    }

    /**
     * Past operators of other LTLf-with-past tools that tracegate does not have, with what to write instead
     * (docs/FORMULAS.md): the past operators are {@code Y O H S}.
     */
    private static final Map<String, String> FOREIGN_PAST = Map.of(
            "Z", "'Z' is no operator here, so it is read as an atom's name; the past operators are Y, O, H and S,"
                    + " and weak yesterday Z φ is written !Y !φ",
            "B", "'B' is no operator here, so it is read as an atom's name; the past operators are Y, O, H and S:"
                    + " write B φ (weak yesterday, 'before') as !Y !φ and weak since φ B ψ as (φ S ψ) | H φ",
            "P", "'P' is no operator here, so it is read as an atom's name; the past operators are Y, O, H and S:"
                    + " write P φ (previous) as Y φ, or as O φ if it means 'at some earlier time'",
            "N", "'N' is no operator here, so it is read as an atom's name; weak next (true at the last event) is written"
                    + " WX φ, strong next X φ");

    /** The brackets a message asked to close (at most a few: only at the end of input). */
    private final List<Token> opened = new ArrayList<>(2);

    private String closing(String expected, Token open) {
        if (peek().kind != Kind.EOF) return expected;
        opened.add(open);
        return expected + " to close '" + open.text + "' at " + open.line + ":" + open.column;
    }

    private Token peek() { return tokens.get(pos); }

    private Token next() { return tokens.get(pos++); }

    private void fail(String expected) {
        Token t = peek();
        if (t.kind == Kind.BAD) throw error(t, t.value, t.expected);
        throw error(t, describe(t), expected);
    }

    private ParseException error(Token t, String description, String expected) {
        String tokenText = t.kind == Kind.EOF ? "end of input" : t.text;
        // the bracket an error at the end asks to close, named by its place in the formula: a caller that places the
        // formula in a file maps that place too (ParseException.openedAt)
        Token open = null;
        for (Token c : opened) if (expected != null && expected.contains(" to close '" + c.text + "' at " + c.line + ":" + c.column)) open = c;
        return open == null ? new ParseException(t.line, t.column, tokenText, description, expected, sourceLine(t.line))
                : new ParseException(t.line, t.column, tokenText, description, expected, sourceLine(t.line), open.line, open.column);
    }

    private static String describe(Token t) {
        if (t.kind == Kind.EOF) return "end of input";
        if (t.kind == Kind.ILLEGAL) {
            char c = t.text.charAt(0);
            if (Character.isISOControl(c) || Character.isWhitespace(c)) return String.format(java.util.Locale.ROOT, "character U+%04X", (int) c);
            return "character '" + t.text + "'";
        }
        return "'" + t.text + "'";
    }

    private String sourceLine(int line) {
        String[] lines = source.split("\n", -1);
        String l = line - 1 < lines.length ? lines[line - 1] : "";
        return l.endsWith("\r") ? l.substring(0, l.length() - 1) : l;
    }

    // ---------------------------------------------------------------- lexer

    private static boolean identStart(char c) { return Character.isLetter(c) || c == '_'; }

    private static boolean identPart(char c) { return Character.isLetterOrDigit(c) || c == '_'; }

    private static boolean digit(char c) { return c >= '0' && c <= '9'; }

    /** Tokens up to the first illegal or malformed one (the parser never reads past it), then EOF. */
    private static List<Token> lex(String s) {
        List<Token> out = new ArrayList<>();
        int n = s.length();
        int i = 0;
        int line = 1;
        int lineStart = 0;
        while (i < n) {
            char c = s.charAt(i);
            if (c == '\n') {
                i++;
                line++;
                lineStart = i;
                continue;
            }
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                i++;
                continue;
            }
            if (c == '#') {
                while (i < n && s.charAt(i) != '\n') i++;
                continue;
            }
            int start = i;
            int col = i - lineStart + 1;
            Kind kind;
            if (identStart(c)) {
                i++;
                while (i < n && identPart(s.charAt(i))) i++;
                while (i + 1 < n && s.charAt(i) == '.' && identPart(s.charAt(i + 1))) {
                    i += 2;
                    while (i < n && identPart(s.charAt(i))) i++;
                }
                kind = Kind.IDENT;
            } else if (digit(c) || (c == '-' && i + 1 < n && digit(s.charAt(i + 1)))) {
                i++;
                while (i < n && digit(s.charAt(i))) i++;
                if (i + 1 < n && s.charAt(i) == '.' && digit(s.charAt(i + 1))) {
                    i += 2;
                    while (i < n && digit(s.charAt(i))) i++;
                }
                // an exponent, as JSON and the event values write numbers: 1e3, 1.5E-2 (trial36 02)
                if (i + 1 < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
                    int e = i + 1;
                    if (e + 1 < n && (s.charAt(e) == '-' || s.charAt(e) == '+')) e++;
                    if (e < n && digit(s.charAt(e))) {
                        i = e;
                        while (i < n && digit(s.charAt(i))) i++;
                    }
                }
                if (i < n && (s.charAt(i) == '.' || identPart(s.charAt(i)))) {
                    while (i < n && (s.charAt(i) == '.' || identPart(s.charAt(i)))) i++;
                    String text = s.substring(start, i);
                    out.add(new Token(Kind.BAD, text, "malformed number '" + text + "'",
                            "a number such as 12, -2.5 or 1e3", start, line, col));
                    break;
                }
                kind = Kind.NUMBER;
            } else if (c == '"') {
                Token str = string(s, start, line, col);
                out.add(str);
                if (str.kind == Kind.BAD) break;
                i = start + str.text.length();
                continue;
            } else {
                String two = i + 1 < n ? s.substring(i, i + 2) : "";
                if (s.startsWith("<->", i)) { kind = Kind.IFF; i += 3; }
                else if (two.equals("->")) { kind = Kind.IMPLIES; i += 2; }
                else if (two.equals("&&")) { kind = Kind.AND; i += 2; }
                else if (two.equals("||")) { kind = Kind.OR; i += 2; }
                else if (two.equals("<=") || two.equals(">=") || two.equals("==") || two.equals("!=")) { kind = Kind.CMP; i += 2; }
                else if (c == '<' || c == '>') { kind = Kind.CMP; i++; }
                else if (c == '!') { kind = Kind.NOT; i++; }
                else if (c == '&') { kind = Kind.AND; i++; }
                else if (c == '|') { kind = Kind.OR; i++; }
                else if (c == '(') { kind = Kind.LPAREN; i++; }
                else if (c == ')') { kind = Kind.RPAREN; i++; }
                else if (c == '[') { kind = Kind.LBRACKET; i++; }
                else if (c == ']') { kind = Kind.RBRACKET; i++; }
                else if (c == ',') { kind = Kind.COMMA; i++; }
                else {
                    int end = Character.isHighSurrogate(c) && i + 1 < n ? i + 2 : i + 1;
                    out.add(new Token(Kind.ILLEGAL, s.substring(i, end), null, null, start, line, col));
                    break;
                }
            }
            out.add(new Token(kind, s.substring(start, i), null, null, start, line, col));
        }
        out.add(endOfInput(out));
        return out;
    }

    /** Characters that follow a backslash in an RE2 pattern (classes, anchors, escaped punctuation), for the escape hint. */
    private static final String REGEX_ESCAPES = "dDwWsSbBpPQEAzx.()[]{}*+?^$|/-";

    /** A string token starting at {@code start}, or a BAD token for an unterminated string or unknown escape. */
    private static Token string(String s, int start, int line, int col) {
        StringBuilder value = new StringBuilder();
        int n = s.length();
        int i = start + 1;
        while (true) {
            if (i >= n || s.charAt(i) == '\n' || (s.charAt(i) == '\\' && (i + 1 >= n || s.charAt(i + 1) == '\n'))) {
                String text = s.substring(start, i).replace("\r", "");
                return new Token(Kind.BAD, text, "unterminated string " + text,
                        "a closing '\"' on the same line", start, line, col);
            }
            char c = s.charAt(i);
            if (c == '"') return new Token(Kind.STRING, s.substring(start, i + 1), value.toString(), null, start, line, col);
            if (c == '\\') {
                char e = s.charAt(i + 1);
                if (e == '"' || e == '\\') value.append(e);
                else if (e == 'n') value.append('\n');
                else {
                    String esc = "\\" + e;
                    String hint = REGEX_ESCAPES.indexOf(e) < 0 ? "" : " (a pattern's backslash is written twice in a formula: \\\\"
                            + e + ", and four times inside a YAML double-quoted scalar: \\\\\\\\" + e + ")";
                    return new Token(Kind.BAD, esc, "escape '" + esc + "' in a string",
                            "one of \\\" \\\\ \\n" + hint, i, line, col + (i - start));
                }
                i += 2;
                continue;
            }
            value.append(c);
            i++;
        }
    }

    private static Token endOfInput(List<Token> out) {
        if (out.isEmpty()) return new Token(Kind.EOF, "", null, null, 0, 1, 1);
        Token last = out.get(out.size() - 1);
        return new Token(Kind.EOF, "", null, null, last.offset + last.text.length(), last.line, last.column + last.text.length());
    }
}
