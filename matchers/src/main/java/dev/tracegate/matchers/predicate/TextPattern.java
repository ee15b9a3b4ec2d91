package dev.tracegate.matchers.predicate;

import com.google.re2j.Pattern;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A library pattern compiled once with a literal prefilter derived from its syntax, so most texts
 * are answered without running RE2/J: every match of {@code (?i)ignore (all )?previous instructions}
 * contains {@code ignore previous instructions} or {@code ignore all previous instructions}, so a
 * text holding neither cannot match. Texts that hold a required literal go to RE2/J, except when
 * the pattern is only an alternation of plain literals ({@code (?i)password|secret}), whose answer
 * is the search itself. Same answers as RE2/J's unanchored find (a property test checks it on
 * patterns from a grammar); the prefilter searches without allocating.
 */
final class TextPattern {
    /** {@link #quick} answers: no match, a match, or run the regex. */
    static final int NO = 0, YES = 1, ASK = 2;

    /** Bounds of the syntax analysis: alternatives kept per node, and their length. */
    private static final int MAX_SET = 16, MAX_LEN = 64;

    final Pattern regex;
    /** The whole pattern is plain text (answered by {@link Literal}), or null. */
    private final Literal literal;
    /** Any match contains at least one of these (folded when {@link #ignoreCase}); null: no prefilter. */
    private final char[][] required;
    /** Horspool shift per required literal, indexed by the low byte of a (folded) text char. */
    private final byte[][] shifts;
    /** A text holding any required literal holds this (their longest common prefix or suffix), or null. */
    private final char[] common;
    private final byte[] commonShift;
    /** The pattern matches exactly when the text contains one of {@link #required}. */
    private final boolean exact;
    private final boolean ignoreCase;

    private TextPattern(Pattern regex, Literal literal, char[][] required, boolean exact, boolean ignoreCase) {
        this.regex = regex;
        this.literal = literal;
        this.required = required;
        this.exact = exact;
        this.ignoreCase = ignoreCase;
        this.shifts = required == null ? null : new byte[required.length][];
        if (required != null) for (int i = 0; i < required.length; i++) shifts[i] = shiftTable(required[i]);
        this.common = required == null || required.length < 2 ? null : commonPart(required);
        this.commonShift = common == null ? null : shiftTable(common);
    }

    /** The longer of the literals' common prefix and common suffix, when it is worth a search of its own. */
    private static char[] commonPart(char[][] lits) {
        int pre = Integer.MAX_VALUE, suf = Integer.MAX_VALUE;
        char[] first = lits[0];
        for (char[] l : lits) {
            int p = 0;
            while (p < Math.min(first.length, l.length) && first[p] == l[p]) p++;
            int q = 0;
            while (q < Math.min(first.length, l.length) && first[first.length - 1 - q] == l[l.length - 1 - q]) q++;
            pre = Math.min(pre, p);
            suf = Math.min(suf, q);
        }
        if (Math.max(pre, suf) < 3) return null;
        return pre >= suf ? java.util.Arrays.copyOf(first, pre) : java.util.Arrays.copyOfRange(first, first.length - suf, first.length);
    }

    /** Analyses {@code regex} (compiled by RE2/J without flags); a pattern it cannot read gets no prefilter. */
    static TextPattern of(Pattern regex) {
        String src = regex.pattern();
        if (regex.flags() != 0) return new TextPattern(regex, null, null, false, false);
        Literal lit = Literal.of(src);
        if (lit != null) return new TextPattern(regex, lit, null, false, false);
        Analysis a = new Analysis(src);
        Info root;
        try {
            root = a.parse();
        } catch (Unreadable e) {
            return new TextPattern(regex, null, null, false, false);
        }
        Set<String> req = root.requirement();
        if (req == null) return new TextPattern(regex, null, null, false, a.ignoreCase);
        char[][] lits = new char[req.size()][];
        int k = 0;
        for (String s : req) lits[k++] = s.toCharArray();
        boolean exact = root.pure && a.pureCase && root.exact != null && !root.exact.contains("");
        return new TextPattern(regex, null, lits, exact, a.ignoreCase);
    }

    /** {@link #NO} or {@link #YES} when the text decides without RE2/J, else {@link #ASK}. */
    int quick(CharSequence s) {
        if (literal != null) return literal.find(s) ? YES : NO;
        char[][] req = required;
        if (req == null) return ASK;
        if (common != null && !contains(s, common, commonShift, ignoreCase)) return NO;
        for (int i = 0; i < req.length; i++) {
            if (contains(s, req[i], shifts[i], ignoreCase)) return exact ? YES : ASK;
        }
        return NO;
    }

    /** Literals every match contains one of (for tests), or null. */
    List<String> requiredLiterals() {
        if (required == null) return null;
        List<String> out = new ArrayList<>();
        for (char[] r : required) out.add(new String(r));
        return out;
    }

    /** True when the prefilter alone decides every text. */
    boolean decidesAlone() { return literal != null || exact; }

    /**
     * RE2/J's case-insensitive orbit of a char reduced to one representative for ASCII letters: the
     * only non-ASCII chars that fold to ASCII are KELVIN SIGN (k) and LATIN SMALL LETTER LONG S (s).
     */
    static char fold(char c) {
        if (c < 128) return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
        if (c == '\u212A') return 'k';
        if (c == '\u017F') return 's';
        return c;
    }

    private static byte[] shiftTable(char[] lit) {
        int m = lit.length;
        byte[] t = new byte[256];
        byte max = (byte) Math.min(m, 127);
        java.util.Arrays.fill(t, max);
        for (int k = 0; k < m - 1; k++) {
            int sh = m - 1 - k;
            int b = lit[k] & 0xFF;
            if (sh < t[b]) t[b] = (byte) sh;
        }
        return t;
    }

    /** Horspool search; shifts are lower bounds (chars sharing a low byte share the smallest shift). */
    private static boolean contains(CharSequence s, char[] lit, byte[] shift, boolean ic) {
        int m = lit.length, n = s.length();
        if (m == 0) return true;
        int last = m - 1;
        char tail = lit[last];
        int i = last;
        while (i < n) {
            char c = s.charAt(i);
            if (ic) c = fold(c);
            if (c == tail) {
                int k = last - 1, j = i - 1;
                while (k >= 0) {
                    char d = s.charAt(j);
                    if (ic) d = fold(d);
                    if (d != lit[k]) break;
                    k--;
                    j--;
                }
                if (k < 0) return true;
            }
            i += shift[c & 0xFF];
        }
        return false;
    }

    // ------------------------------------------------------------------ syntax analysis

    /** A construct the analysis does not read: the pattern gets no prefilter (RE2/J decides). */
    private static final class Unreadable extends Exception {
        Unreadable() { super(null, null, false, false); }
    }

    /**
     * What one node of the pattern can match: {@code exact} is a finite superset of the strings it
     * matches (null: unknown or too many); {@code any}: every match contains one of these (null: no
     * constraint); {@code pure}: {@code exact} is exactly its language and it asserts nothing about
     * position.
     */
    private record Info(Set<String> exact, Set<String> any, boolean pure) {
        static final Info EMPTY = new Info(Set.of(""), null, true);
        static final Info ASSERTION = new Info(Set.of(""), null, false);
        static final Info CLASS = new Info(null, null, false);

        /** The best "contains one of" set a match of this node must satisfy, or null. */
        Set<String> requirement() {
            Set<String> fromExact = exact == null || exact.contains("") ? null : exact;
            return better(fromExact, any);
        }
    }

    private static Set<String> better(Set<String> a, Set<String> b) {
        if (a == null) return b;
        if (b == null) return a;
        int la = minLen(a), lb = minLen(b);
        if (la != lb) return la > lb ? a : b;
        return a.size() <= b.size() ? a : b;
    }

    private static int minLen(Set<String> s) {
        int m = Integer.MAX_VALUE;
        for (String x : s) m = Math.min(m, x.length());
        return m;
    }

    /** Recursive descent over RE2 syntax, keeping only what literals a match must contain. */
    private static final class Analysis {
        final String p;
        int i;
        boolean ignoreCase;
        /** False when case-insensitivity is switched on part-way (then the analysis folds everything, soundly but inexactly). */
        boolean pureCase = true;

        Analysis(String p) {
            this.p = p;
            // case-insensitivity for the whole pattern only when it leads; anywhere else it makes the analysis fold everything
            for (int k = 0; k + 2 < p.length(); k++) {
                if (p.charAt(k) == '\\') { k++; continue; }
                if (p.charAt(k) == '(' && p.charAt(k + 1) == '?') {
                    int e = k + 2;
                    while (e < p.length() && "imsU-".indexOf(p.charAt(e)) >= 0) e++;
                    if (p.substring(k + 2, e).indexOf('i') >= 0) {
                        ignoreCase = true;
                        if (k != 0 || !p.startsWith("(?i)")) pureCase = false;
                    }
                }
            }
        }

        Info parse() throws Unreadable {
            Info r = alternation();
            if (i != p.length()) throw new Unreadable();
            return r;
        }

        private Info alternation() throws Unreadable {
            List<Info> alts = new ArrayList<>();
            alts.add(concatenation());
            while (i < p.length() && p.charAt(i) == '|') {
                i++;
                alts.add(concatenation());
            }
            if (alts.size() == 1) return alts.get(0);
            Set<String> exact = new LinkedHashSet<>();
            Set<String> any = new LinkedHashSet<>();
            boolean pure = true;
            for (Info a : alts) {
                pure &= a.pure;
                if (exact != null) {
                    if (a.exact == null) exact = null;
                    else exact.addAll(a.exact);
                }
                if (any != null) {
                    Set<String> r = a.requirement();
                    if (r == null) any = null;
                    else any.addAll(r);
                }
            }
            if (exact != null && exact.size() > MAX_SET) exact = null;
            if (any != null && any.size() > MAX_SET) any = null;
            return new Info(exact, any, pure && exact != null);
        }

        private Info concatenation() throws Unreadable {
            Set<String> run = Set.of("");   // exact strings of the current run of finite items
            boolean lost = false;           // some item was not finite: no exact set for the whole
            boolean pure = true;
            Set<String> best = null;
            while (i < p.length() && p.charAt(i) != '|' && p.charAt(i) != ')') {
                Info item = repeated();
                pure &= item.pure;
                if (item.exact != null) {
                    Set<String> product = product(run, item.exact);
                    if (product != null) {
                        run = product;
                        continue;
                    }
                    best = better(best, requirementOf(run));
                    run = item.exact;
                    lost = true;
                    continue;
                }
                best = better(best, requirementOf(run));
                best = better(best, item.any);
                run = Set.of("");
                lost = true;
            }
            best = better(best, requirementOf(run));
            if (lost) return new Info(null, best, false);
            return new Info(run, null, pure);
        }

        private static Set<String> requirementOf(Set<String> run) { return run.contains("") ? null : run; }

        private static Set<String> product(Set<String> a, Set<String> b) {
            if ((long) a.size() * b.size() > MAX_SET) return null;
            Set<String> out = new LinkedHashSet<>();
            for (String x : a) {
                for (String y : b) {
                    if (x.length() + y.length() > MAX_LEN) return null;
                    out.add(x + y);
                }
            }
            return out;
        }

        /** An atom and the repetition operators after it. */
        private Info repeated() throws Unreadable {
            Info a = atom();
            while (i < p.length()) {
                char c = p.charAt(i);
                int min, max; // max -1: unbounded
                if (c == '*') { min = 0; max = -1; i++; }
                else if (c == '+') { min = 1; max = -1; i++; }
                else if (c == '?') { min = 0; max = 1; i++; }
                else if (c == '{') {
                    int[] r = repeat();
                    if (r == null) break; // a literal '{' is read by atom() next time round
                    min = r[0];
                    max = r[1];
                } else break;
                if (i < p.length() && p.charAt(i) == '?') i++; // non-greedy: same matches exist
                a = repeat(a, min, max);
            }
            return a;
        }

        private static Info repeat(Info a, int min, int max) {
            if (min == 1 && max == 1) return a;
            if (min == 0 && max == 0) return Info.EMPTY;
            if (min == 0 && max == 1) {
                if (a.exact == null) return Info.CLASS;
                Set<String> e = new LinkedHashSet<>(a.exact);
                e.add("");
                return e.size() > MAX_SET ? Info.CLASS : new Info(e, null, a.pure);
            }
            if (min == 0) return Info.CLASS;
            return new Info(null, a.requirement(), false); // at least one copy: its requirement holds
        }

        /** {@code {n}}, {@code {n,}}, {@code {n,m}} at i (consumed), or null when '{' is literal. */
        private int[] repeat() throws Unreadable {
            int j = i + 1;
            int s = j;
            while (j < p.length() && Character.isDigit(p.charAt(j))) j++;
            if (j == s || j >= p.length()) return null;
            int min = Integer.parseInt(p.substring(s, Math.min(j, s + 6)));
            int max = min;
            if (p.charAt(j) == ',') {
                j++;
                int t = j;
                while (j < p.length() && Character.isDigit(p.charAt(j))) j++;
                max = j == t ? -1 : Integer.parseInt(p.substring(t, Math.min(j, t + 6)));
            }
            if (j >= p.length() || p.charAt(j) != '}') return null;
            i = j + 1;
            return new int[] {min, max};
        }

        private Info atom() throws Unreadable {
            char c = p.charAt(i);
            switch (c) {
                case '(' -> { return group(); }
                case '[' -> { skipClass(); return Info.CLASS; }
                case '.' -> { i++; return Info.CLASS; }
                case '^', '$' -> { i++; return Info.ASSERTION; }
                case '\\' -> { return escape(); }
                case '*', '+', '?' -> throw new Unreadable();
                case '{' -> {
                    // RE2 reads a '{' that starts no repetition as itself; be strict and read only that case
                    int save = i;
                    if (repeat() != null) throw new Unreadable();
                    i = save + 1;
                    return literal('{');
                }
                default -> {
                    i++;
                    return literal(c);
                }
            }
        }

        private Info literal(char c) {
            if (Character.isSurrogate(c) || c == '\uFFFD') return Info.CLASS; // RE2/J reads code points: leave these to it
            if (ignoreCase) {
                if (c >= 128) return Info.CLASS;
                c = fold(c);
            }
            return new Info(Set.of(String.valueOf(c)), null, true);
        }

        private Info group() throws Unreadable {
            i++; // (
            if (i < p.length() && p.charAt(i) == '?') {
                i++;
                if (i < p.length() && (p.charAt(i) == 'P' || p.charAt(i) == '<')) {
                    int close = p.indexOf('>', i);
                    if (close < 0) throw new Unreadable();
                    i = close + 1;
                } else {
                    while (i < p.length() && "imsU-".indexOf(p.charAt(i)) >= 0) i++;
                    if (i >= p.length()) throw new Unreadable();
                    if (p.charAt(i) == ')') { // flags for the rest of the enclosing group: no text of its own
                        i++;
                        return Info.EMPTY;
                    }
                    if (p.charAt(i) != ':') throw new Unreadable();
                    i++;
                }
            }
            Info inner = alternation();
            if (i >= p.length() || p.charAt(i) != ')') throw new Unreadable();
            i++;
            return inner;
        }

        private void skipClass() throws Unreadable {
            int j = i + 1;
            if (j < p.length() && p.charAt(j) == '^') j++;
            if (j < p.length() && p.charAt(j) == ']') j++; // a leading ']' is a member
            while (j < p.length()) {
                char c = p.charAt(j);
                if (c == '\\') { j += 2; continue; }
                if (c == '[' && j + 1 < p.length() && p.charAt(j + 1) == ':') {
                    int close = p.indexOf(":]", j + 2);
                    if (close < 0) throw new Unreadable();
                    j = close + 2;
                    continue;
                }
                if (c == ']') {
                    i = j + 1;
                    return;
                }
                j++;
            }
            throw new Unreadable();
        }

        private Info escape() throws Unreadable {
            if (i + 1 >= p.length()) throw new Unreadable();
            char d = p.charAt(i + 1);
            i += 2;
            switch (d) {
                case 'd', 'D', 's', 'S', 'w', 'W', 'C' -> { return Info.CLASS; }
                case 'p', 'P' -> {
                    if (i < p.length() && p.charAt(i) == '{') {
                        int close = p.indexOf('}', i);
                        if (close < 0) throw new Unreadable();
                        i = close + 1;
                    } else {
                        i++;
                    }
                    return Info.CLASS;
                }
                case 'b', 'B', 'A', 'z' -> { return Info.ASSERTION; }
                case 'a' -> { return literal('\u0007'); }
                case 'f' -> { return literal('\f'); }
                case 't' -> { return literal('\t'); }
                case 'n' -> { return literal('\n'); }
                case 'r' -> { return literal('\r'); }
                case 'v' -> { return literal('\u000B'); }
                case 'Q' -> {
                    int end = p.indexOf("\\E", i);
                    String q = end < 0 ? p.substring(i) : p.substring(i, end);
                    i = end < 0 ? p.length() : end + 2;
                    Set<String> run = Set.of("");
                    boolean lost = false;
                    for (int k = 0; k < q.length(); k++) {
                        Info l = literal(q.charAt(k));
                        Set<String> next = l.exact == null ? null : product(run, l.exact);
                        if (next == null) { lost = true; break; }
                        run = next;
                    }
                    if (lost) throw new Unreadable(); // long or unusual quoted text: leave it to RE2/J
                    return new Info(run, null, true);
                }
                default -> {
                    if (d < 128 && !Character.isLetterOrDigit(d)) return literal(d); // escaped punctuation
                    throw new Unreadable(); // \x, octal and anything rarer: leave the pattern to RE2/J
                }
            }
        }
    }
}
