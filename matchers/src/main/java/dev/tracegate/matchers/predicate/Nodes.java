package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.number.NumberText;

/** The compiled forms of atoms: conditions ({@link Pred}) and values ({@link Source}). */
final class Nodes {
    static final int TRUE = 1, FALSE = 0, UNEV = -1;
    /** Source status: a value was loaded / the atom does not apply (false) / unevaluable. */
    static final int OK = 1, NA = 0;

    static final int LT = 0, LE = 1, GT = 2, GE = 3, EQ = 4, NE = 5;

    private Nodes() {}

    static int op(String cmp) {
        return switch (cmp) {
            case "<" -> LT;
            case "<=" -> LE;
            case ">" -> GT;
            case ">=" -> GE;
            case "==" -> EQ;
            case "!=" -> NE;
            default -> -1;
        };
    }

    static boolean compare(double a, int op, double b) {
        return switch (op) {
            case LT -> a < b;
            case LE -> a <= b;
            case GT -> a > b;
            case GE -> a >= b;
            case EQ -> a == b;
            default -> a != b;
        };
    }

    /**
     * Numeric reading of a JSON value: numbers as they are, text via {@link NumberText}; NaN otherwise, and NaN for a
     * value outside the double range too (a JSON {@code -1e400} reads as -Infinity, which no later amount could undo in
     * a sum): not a number, so unevaluable, like the text "-Infinity".
     */
    static double number(JsonNode n) {
        if (n == null) return Double.NaN;
        double v = n.isNumber() ? n.doubleValue() : n.isTextual() ? NumberText.parse(n.textValue()) : Double.NaN;
        return Double.isInfinite(v) ? Double.NaN : v;
    }

    /*
     * sum(T, f) adds in millionths, exactly (a long per sum in the session words), so decimal amounts add up as written:
     * 1.10 + 2.20 is 3.30, not binary floating point's 3.3000000000000003. An amount counts as the decimal with at most
     * six digits after the point whose nearest double it reads as (exact below 2^33 = 8,589,934,592 in magnitude, any
     * whole number up to MAX_WHOLE); one with more digits is rounded to the nearest millionth. A whole amount or total
     * beyond +-MAX_WHOLE is OUT_OF_RANGE: no number, unevaluable, for good (as a sum beyond the double range was).
     */
    static final long MICROS = 1_000_000L;
    static final long MAX_WHOLE = Long.MAX_VALUE / MICROS;   // 9,223,372,036,854
    /** Not a number (nor an amount). */
    static final long NOT_AMOUNT = Long.MIN_VALUE;
    /** An amount or a total beyond +-MAX_WHOLE; the state word of such a sum keeps it. */
    static final long OUT_OF_RANGE = Long.MIN_VALUE + 1;

    /** An argument as millionths for a sum: NOT_AMOUNT when it is not a number, OUT_OF_RANGE beyond MAX_WHOLE. */
    static long micros(JsonNode n) {
        if (n != null && n.isIntegralNumber() && n.canConvertToLong()) return wholeMicros(n.longValue());
        double v = number(n);
        return Double.isNaN(v) ? NOT_AMOUNT : micros(v);
    }

    static long micros(double v) {
        if (v == Math.rint(v)) return Math.abs(v) > MAX_WHOLE ? OUT_OF_RANGE : (long) v * MICROS;
        if (Math.abs(v) > MAX_WHOLE) return OUT_OF_RANGE;
        long n = Math.round(v * 1e6);
        if (n / 1e6 == v) return n;                 // the decimal n / 10^6 reads as v: that is the amount
        if ((n - 1) / 1e6 == v) return n - 1;       // v * 1e6 rounded off by one
        if ((n + 1) / 1e6 == v) return n + 1;
        return n;                                   // more than six decimals: the nearest millionth
    }

    private static long wholeMicros(long v) {
        return v > MAX_WHOLE || v < -MAX_WHOLE ? OUT_OF_RANGE : v * MICROS;
    }

    /** A running total plus an amount in millionths (neither NOT_AMOUNT), OUT_OF_RANGE beyond +-MAX_WHOLE. */
    static long addMicros(long total, long amount) {
        if (total == OUT_OF_RANGE || amount == OUT_OF_RANGE) return OUT_OF_RANGE;
        long r = total + amount;
        if (((total ^ r) & (amount ^ r)) < 0) return OUT_OF_RANGE;   // wrapped around
        return r > MAX_WHOLE * MICROS || r < -MAX_WHOLE * MICROS ? OUT_OF_RANGE : r;
    }

    /** Text of a JSON value; allocates only for non-text scalars and containers. */
    static CharSequence text(JsonNode n) {
        if (n == null) return null;
        if (n.isTextual()) return n.textValue();
        // a value node is neither a container nor missing: isValueNode() would read the node type's ordinal and Jackson's
        // switch table, two objects on pages of their own that a cold call would walk to (session 18)
        if (!n.isContainerNode() && !n.isMissingNode()) return n.asText();
        return n.toString();
    }

    /** Equality of two texts ignoring surrounding white space, without allocating. */
    static boolean sameText(CharSequence a, CharSequence b) {
        int i = 0, j = a.length(), k = 0, l = b.length();
        while (i < j && Character.isWhitespace(a.charAt(i))) i++;
        while (j > i && Character.isWhitespace(a.charAt(j - 1))) j--;
        while (k < l && Character.isWhitespace(b.charAt(k))) k++;
        while (l > k && Character.isWhitespace(b.charAt(l - 1))) l--;
        if (j - i != l - k) return false;
        for (; i < j; i++, k++) if (a.charAt(i) != b.charAt(k)) return false;
        return true;
    }

    // ------------------------------------------------------------------ conditions

    abstract static class Pred {
        /** TRUE, FALSE or UNEV. */
        abstract int eval(Frame f);

        /** The one event kind on which this condition can hold (it is FALSE on every other), or null: any kind. */
        EventKind onlyKind() { return null; }

        /** With {@link #onlyKind}: the one tool (id) whose events it can hold on, or -1: any tool. */
        int onlyTool() { return -1; }
    }

    static final class KindIs extends Pred {
        final EventKind kind;
        KindIs(EventKind kind) { this.kind = kind; }
        // consent and erasure also hold on a CALL of a consent or erasure tool
        @Override EventKind onlyKind() { return kind == EventKind.CONSENT || kind == EventKind.ERASURE ? null : kind; }
        @Override int eval(Frame f) {
            if (f.kind == kind) return TRUE;
            if (kind == EventKind.CONSENT) return f.g.consentCall(f) ? TRUE : FALSE;
            if (kind == EventKind.ERASURE) return f.g.erasureCall(f) ? TRUE : FALSE;
            return FALSE;
        }
    }

    static final class CallOf extends Pred {
        final int tool;
        final int pattern; // -1: any arguments
        CallOf(int tool, int pattern) { this.tool = tool; this.pattern = pattern; }
        @Override EventKind onlyKind() { return EventKind.CALL; }
        @Override int onlyTool() { return tool; }
        @Override int eval(Frame f) {
            if (!f.isCall || !f.tool(tool)) return FALSE;
            if (pattern < 0) return TRUE;
            return f.find(pattern, f.e.args().json()) ? TRUE : FALSE;
        }
    }

    static final class ReturnOf extends Pred {
        final int tool;
        final boolean error;
        ReturnOf(int tool, boolean error) { this.tool = tool; this.error = error; }
        @Override EventKind onlyKind() { return EventKind.RETURN; }
        @Override int onlyTool() { return tool; }
        @Override int eval(Frame f) {
            return f.kind == EventKind.RETURN && f.tool(tool) && f.e.error() == error ? TRUE : FALSE;
        }
    }

    /** Base of conditions over one argument value; loads it with {@link ArgValue}. */
    abstract static class ArgPred extends Pred {
        final ArgValue arg;
        ArgPred(ArgValue arg) { this.arg = arg; }
        @Override final EventKind onlyKind() { return EventKind.CALL; }   // the argument is not found (NA) elsewhere
        @Override final int onlyTool() { return arg.tool; }
        @Override final int eval(Frame f) {
            int s = arg.find(f);   // the tests read the node itself
            if (s != OK) return s == NA ? FALSE : UNEV;
            return test(f, f.node);
        }
        abstract int test(Frame f, JsonNode value);
    }

    static final class ArgMatches extends ArgPred {
        final int pattern;
        ArgMatches(ArgValue arg, int pattern) { super(arg); this.pattern = pattern; }
        @Override int test(Frame f, JsonNode v) { return f.find(pattern, text(v)) ? TRUE : FALSE; }
    }

    static final class ArgIn extends ArgPred {
        final String[] texts;
        final double[] numbers;
        ArgIn(ArgValue arg, String[] texts, double[] numbers) { super(arg); this.texts = texts; this.numbers = numbers; }
        @Override int test(Frame f, JsonNode v) {
            double x = numbers.length == 0 ? Double.NaN : number(v);   // a list of texts only: no numeric reading
            if (!Double.isNaN(x)) {
                for (double n : numbers) if (n == x) return TRUE;
            }
            CharSequence t = text(v);
            for (String s : texts) if (sameText(t, s)) return TRUE;
            return FALSE;
        }
    }

    static final class PathWithin extends ArgPred {
        final String[] prefixes; // normalised, no trailing slash except "/"
        PathWithin(ArgValue arg, String[] prefixes) { super(arg); this.prefixes = prefixes; }
        @Override int test(Frame f, JsonNode v) {
            if (!v.isTextual()) return UNEV;
            int n = Paths.normalise(v.textValue(), f.pathBuf);
            if (n < 0) return UNEV; // too long to judge
            for (String p : prefixes) if (Paths.within(f.pathBuf, n, p)) return TRUE;
            return FALSE;
        }
    }

    static final class ArgEqCtx extends ArgPred {
        final int slot;
        ArgEqCtx(ArgValue arg, int slot) { super(arg); this.slot = slot; }
        @Override int test(Frame f, JsonNode v) {
            Object c = f.st.refs[slot];
            if (c == null) return FALSE;
            if (c instanceof ValueSet set) return set.contains(text(v)) ? TRUE : FALSE;
            JsonNode cv = (JsonNode) c;
            double a = number(v), b = number(cv);
            if (!Double.isNaN(a) && !Double.isNaN(b)) return a == b ? TRUE : FALSE;
            return sameText(text(v), text(cv)) ? TRUE : FALSE;
        }
    }

    /**
     * flow(f) and untrusted(f): the value, or an identifier inside it, came from a tool result. Both read an object or a
     * list as untrusted_target reads a target ({@link Grounding#flowsInto}: each field and element, at any depth, so its
     * JSON keys, quotes and escapes are no values); a scalar as before.
     */
    static final class Flow extends ArgPred {
        final boolean untrusted;
        Flow(ArgValue arg, boolean untrusted) { super(arg); this.untrusted = untrusted; }
        @Override int test(Frame f, JsonNode v) {
            if (v.isContainerNode()) return f.g.flowsInto(f, v, untrusted) ? TRUE : FALSE;
            return f.g.flows(f, text(v), untrusted) ? TRUE : FALSE;
        }
    }

    static final class TextMatches extends Pred {
        final EventKind kind;
        final int tool; // -1: any (RETURN only)
        final int pattern;
        TextMatches(EventKind kind, int tool, int pattern) { this.kind = kind; this.tool = tool; this.pattern = pattern; }
        @Override EventKind onlyKind() { return kind; }
        @Override int onlyTool() { return tool; }
        @Override int eval(Frame f) {
            if (f.kind != kind) return FALSE;
            if (tool >= 0 && !f.tool(tool)) return FALSE;
            String s = kind == EventKind.RETURN ? f.e.result() : f.e.text();
            return s != null && f.find(pattern, s) ? TRUE : FALSE;
        }
    }

    static final class CtxHolds extends Pred {
        final int slot;
        CtxHolds(int slot) { this.slot = slot; }
        @Override int eval(Frame f) {
            Object c = f.st.refs[slot];
            return c != null && !(c instanceof ValueSet s && s.isEmpty()) ? TRUE : FALSE;
        }
    }

    static final class InSet extends Pred {
        final int slot;
        final long hash;
        InSet(int slot, long hash) { this.slot = slot; this.hash = hash; }
        @Override int eval(Frame f) {
            Object c = f.st.refs[slot];
            if (c instanceof ValueSet s) return s.contains(hash) ? TRUE : FALSE;
            return c instanceof JsonNode n && TextHash.of(text(n)) == hash ? TRUE : FALSE;
        }
    }

    static final class UntrustedTarget extends Pred {
        final boolean requireUntrusted;
        UntrustedTarget(boolean requireUntrusted) { this.requireUntrusted = requireUntrusted; }
        @Override int eval(Frame f) { return f.g.sideEffect(f, requireUntrusted); }
    }

    static final class Category extends Pred {
        final long mask;
        Category(long mask) { this.mask = mask; }
        @Override int eval(Frame f) { return f.anyCategory(mask) ? TRUE : FALSE; }
    }

    static final class ExcessData extends Pred {
        @Override int eval(Frame f) { return f.g.excess(f) ? TRUE : FALSE; }
    }

    static final class Purpose extends Pred {
        final long bit;
        Purpose(long bit) { this.bit = bit; }
        @Override int eval(Frame f) { return (f.purposes() & bit) != 0 ? TRUE : FALSE; }
    }

    static final class Consent extends Pred {
        final String purpose; // null: every purpose of the event
        Consent(String purpose) { this.purpose = purpose; }
        @Override int eval(Frame f) {
            return (purpose == null ? f.g.consentedAll(f) : f.g.consented(f, purpose)) ? TRUE : FALSE;
        }
    }

    static final class UndeclaredPurpose extends Pred {
        @Override int eval(Frame f) { return f.g.undeclaredPurpose(f) ? TRUE : FALSE; }
    }

    static final class MentionsErased extends Pred {
        @Override int eval(Frame f) { return f.g.mentionsErased(f) ? TRUE : FALSE; }
    }

    /** A value compared with a bound. */
    static final class Compare extends Pred {
        final Source left;
        final int op;
        final double num;       // numeric bound, or NaN
        final String str;       // text bound, or null
        final int ctxSlot;      // context bound, or -1
        Compare(Source left, int op, double num, String str, int ctxSlot) {
            this.left = left;
            this.op = op;
            this.num = num;
            this.str = str;
            this.ctxSlot = ctxSlot;
        }
        /** An argument, or an argument's length, is not found (NA, so FALSE) but on a CALL of its tool. */
        @Override EventKind onlyKind() { return argument() != null ? EventKind.CALL : null; }
        @Override int onlyTool() { return argument() != null ? argument().tool : -1; }
        private ArgValue argument() {
            return left instanceof ArgValue a ? a : left instanceof Length l ? l.arg : null;
        }
        @Override int eval(Frame f) {
            int s = left.load(f);
            if (s != OK) return s == NA ? FALSE : UNEV;
            if (ctxSlot >= 0) return againstCtx(f);
            if (str == null) {
                double x = f.num;
                if (Double.isNaN(x)) return UNEV;
                return compare(x, op, num) ? TRUE : FALSE;
            }
            // a text bound: == / != only (checked at compile time)
            boolean eq;
            if (f.ref instanceof ValueSet set) eq = set.contains(str);
            else if (!Double.isNaN(num) && !Double.isNaN(f.num)) eq = f.num == num;
            else if (lazyText(f) != null) eq = sameText(lazyText(f), str);
            else return UNEV;
            return eq == (op == EQ) ? TRUE : FALSE;
        }
        private int againstCtx(Frame f) {
            Object c = f.st.refs[ctxSlot];
            if (c == null) return UNEV;
            if (c instanceof ValueSet set) {
                if (op == EQ || op == NE) {
                    CharSequence t = lazyText(f);
                    if (t == null) return UNEV;
                    return set.contains(t) == (op == EQ) ? TRUE : FALSE;
                }
                double x = f.num;
                return Double.isNaN(x) ? UNEV : compare(x, op, set.size()) ? TRUE : FALSE;
            }
            JsonNode b = (JsonNode) c;
            double y = number(b);
            double x = f.num;
            if (!Double.isNaN(x) && !Double.isNaN(y)) return compare(x, op, y) ? TRUE : FALSE;
            if ((op == EQ || op == NE) && lazyText(f) != null) return sameText(lazyText(f), text(b)) == (op == EQ) ? TRUE : FALSE;
            return UNEV;
        }
    }

    /** The loaded value as text; made from a non-text node only here (allocates for numbers, rare). */
    static CharSequence lazyText(Frame f) {
        if (f.text == null && f.node != null) f.text = text(f.node);
        return f.text;
    }

    // ------------------------------------------------------------------ values

    abstract static class Source {
        /** Loads the value into {@code f.num} (NaN when not a number) and {@code f.text}/{@code f.ref}; returns OK, NA or UNEV. */
        abstract int load(Frame f);
    }

    /** An argument of the current CALL, of any tool ({@code tool} -1) or of one tool. */
    static final class ArgValue extends Source {
        final int tool;
        final Args.Path path;
        ArgValue(int tool, Args.Path path) { this.tool = tool; this.path = path; }
        @Override int load(Frame f) {
            int s = find(f);
            if (s == OK) f.num = number(f.node);
            return s;
        }

        /** As {@link #load} without the numeric reading (a text argument would be parsed for nothing): {@code f.num} is left as it was. */
        int find(Frame f) {
            f.ref = null;
            if (!f.isCall) return NA;
            if (tool >= 0 && !f.tool(tool)) return NA;
            JsonNode v = f.e.args().get(path);
            // absent: the tool-scoped form names an argument its tool needs; the unscoped one applies to every tool and
            // most do not have it (false), unless the call's arguments could not be read: then nobody knows (trial43 01)
            if (v == null) return tool >= 0 || f.e.args().unreadable() ? UNEV : NA;
            f.node = v;
            f.text = v.isTextual() ? v.textValue() : null; // other scalars: text made only if compared as text
            return OK;
        }
    }

    static final class CtxValue extends Source {
        final int slot;
        CtxValue(int slot) { this.slot = slot; }
        @Override int load(Frame f) {
            Object c = f.st.refs[slot];
            f.ref = c;
            if (c == null) return NA;
            if (c instanceof ValueSet s) {
                f.num = s.size();
                f.text = null;
                f.node = null;
                return OK;
            }
            JsonNode n = (JsonNode) c;
            f.node = n;
            f.num = number(n);
            f.text = n.isTextual() ? n.textValue() : null;
            return OK;
        }
    }

    /** A pure number: {@code f.text} is null. */
    abstract static class NumberSource extends Source {
        @Override final int load(Frame f) {
            f.ref = null;
            f.text = null;
            f.node = null;
            return compute(f);
        }
        abstract int compute(Frame f);
    }

    static final class Count extends NumberSource {
        final int tool;
        final int word;
        Count(int tool, int word) { this.tool = tool; this.word = word; }
        @Override int compute(Frame f) {
            f.num = f.st.words[word] + (f.isCall && f.tool(tool) ? 1 : 0);
            return OK;
        }
    }

    static final class Run extends NumberSource {
        final int tool;
        final int word;
        Run(int tool, int word) { this.tool = tool; this.word = word; }
        @Override int compute(Frame f) {
            long r = f.st.words[word];
            f.num = f.isCall ? (f.tool(tool) ? r + 1 : 0) : r;
            return OK;
        }
    }

    static final class Sum extends NumberSource {
        final int tool;
        final Args.Path path;
        final int word;
        Sum(int tool, Args.Path path, int word) { this.tool = tool; this.path = path; this.word = word; }
        @Override int compute(Frame f) {
            long base = f.st.words[word];
            if (f.isCall && f.tool(tool)) {
                long m = micros(f.e.args().get(path));
                if (m == NOT_AMOUNT) return UNEV;
                base = addMicros(base, m);
            }
            if (base == OUT_OF_RANGE) return UNEV;   // an amount or a total beyond the exact range: no number
            f.num = base / 1e6;   // exact order: the nearest double of each total, distinct for distinct totals below 2^33
            return OK;
        }
    }

    /** Length of an argument, of the result or of the text. */
    static final class Length extends NumberSource {
        final ArgValue arg; // null: result or text
        final boolean result;
        Length(ArgValue arg, boolean result) { this.arg = arg; this.result = result; }
        @Override int compute(Frame f) {
            if (arg != null) {
                int s = arg.find(f);
                f.text = null;
                f.ref = null;
                if (s != OK) return s;
                JsonNode v = f.node;
                f.num = v.isTextual() ? v.textValue().length() : v.isContainerNode() ? v.size() : text(v).length();
                return OK;
            }
            String s = result ? f.e.result() : f.e.text();
            if (s == null) return NA;
            f.num = s.length();
            return OK;
        }
    }

    /** A session counter kept by the grounding plus this event's contribution. */
    static final class Counter extends NumberSource {
        static final int CONTEXT = 0, OUTPUT = 1, TOKENS = 2;
        final int which;
        final int word;
        Counter(int which, int word) { this.which = which; this.word = word; }
        @Override int compute(Frame f) {
            f.num = f.st.words[word] + contribution(f.e, which);
            return OK;
        }

        static long contribution(Event e, int which) {
            EventKind k = e.kind();
            return switch (which) {
                case CONTEXT -> k == EventKind.USER || k == EventKind.ASSISTANT || k == EventKind.RETURN ? chars(e) : 0;
                case OUTPUT -> k == EventKind.ASSISTANT && e.text() != null ? e.text().length() : 0;
                default -> e.tokens() >= 0 ? e.tokens()
                        : k == EventKind.USER || k == EventKind.ASSISTANT || k == EventKind.RETURN ? (chars(e) + 3) / 4 : 0;
            };
        }

        private static long chars(Event e) {
            return (e.text() == null ? 0 : e.text().length()) + (e.result() == null ? 0 : e.result().length());
        }
    }

    static final class Depth extends NumberSource {
        @Override int compute(Frame f) {
            f.num = f.e.depth();
            return OK;
        }
    }

    static final class Since extends NumberSource {
        final Pred inner;
        final int word;
        final int eventsWord;
        Since(Pred inner, int word, int eventsWord) { this.inner = inner; this.word = word; this.eventsWord = eventsWord; }
        @Override int compute(Frame f) {
            if (inner.eval(f) == TRUE) {
                f.num = 0;
                return OK;
            }
            long last = f.st.words[word];
            f.num = last == 0 ? Double.POSITIVE_INFINITY : f.st.words[eventsWord] - last + 1;
            return OK;
        }
    }
}
