package dev.tracegate.matchers.predicate;

/**
 * The common encodings a tool output shows a value in, decoded so the identifier scan and whole-word provenance find the
 * value a model reads there (trial29 repro 08): HTML character references ({@code &lt;} {@code &gt;} {@code &amp;}
 * {@code &quot;} {@code &apos;} {@code &nbsp;} {@code &commat;} {@code &period;} {@code &colon;} {@code &sol;}
 * {@code &lowbar;} {@code &plus;} {@code &num;} {@code &percnt;} {@code &quest;} {@code &equals;}, decimal {@code &#64;}
 * and hexadecimal {@code &#x40;}, the {@code ;} optional after a number), JSON string escapes left in a text
 * (a backslash, {@code u} and four hex digits, as Gson writes {@code <} and {@code >}; a backslash before {@code / " \}
 * or {@code n t r}) and percent-escapes of the
 * characters a URI may as well write plain ({@code %40} for {@code @}, RFC 3986's unreserved letters, digits and
 * {@code - . _ ~}; others, such as {@code %20}, stay as written). One pass, linear in the text; the decoded text is never
 * longer than the text. Callers read the decoded text beside the text as written (never instead of it), so a value
 * spelled with an escape is found in both spellings. Since session 17 the same pass decodes spelled-out addresses
 * ({@code attacker [at] evil [dot] example}, {@code attacker at evil dot example}: {@link #spelled}).
 */
final class Escapes {
    private Escapes() {}

    /** Named references decoded: name, then the char. */
    private static final String[] NAMES = {"lt", "<", "gt", ">", "amp", "&", "quot", "\"", "apos", "'", "nbsp", "\u00A0",
        "commat", "@", "period", ".", "colon", ":", "sol", "/", "lowbar", "_", "plus", "+", "num", "#", "percnt", "%",
        "quest", "?", "equals", "="};

    /** True when {@code c} may start an escape: the only chars the pass over a text looks at twice. */
    static boolean marker(char c) { return c == '&' || c == '\\' || c == '%'; }

    /**
     * Decodes {@code s[0, len)} into {@code out} (at least {@code len} long); returns the decoded length, or -1 when the
     * text holds no escape (then {@code out} holds nothing of use).
     */
    static int decode(char[] s, int len, char[] out) {
        int i = 0;
        while (i < len && !marker(s[i]) && !spelledStart(s[i])) i++;
        if (i == len) return -1;
        System.arraycopy(s, 0, out, 0, i);
        int o = i;
        boolean any = false;
        while (i < len) {
            char c = s[i];
            if (spelledStart(c)) {
                long r = spelled(s, i, len, out, o);
                if (r >= 0) {
                    o = (int) (r >>> 32);
                    i = (int) r;
                    any = true;
                    continue;
                }
            }
            if (marker(c)) {
                long r = c == '&' ? reference(s, i, len) : c == '\\' ? json(s, i, len) : percent(s, i, len);
                if (r >= 0) {
                    int cp = (int) (r >>> 32);
                    i = (int) r;
                    if (cp >= Character.MIN_SUPPLEMENTARY_CODE_POINT) {
                        out[o++] = Character.highSurrogate(cp);
                        out[o++] = Character.lowSurrogate(cp);
                    } else {
                        out[o++] = (char) cp;
                    }
                    any = true;
                    continue;
                }
            }
            out[o++] = c;
            i++;
        }
        return any ? o : -1;
    }

    // ------------------------------------------------------------------ spelled-out addresses (session 17)

    /**
     * True when {@code s[k]}, with the chars before it, ends what a spelled-out '@' or '.' needs ({@code [at} {@code (at}
     * {@code {at}, {@code [.} {@code [@} (any of the three brackets), {@code dot} after a blank or a bracket): the scan
     * decodes a text only when one of its chars does. Looks back only, so it can run in the pass that maps the chars.
     */
    static boolean spelledMark(char[] s, int k) {
        char c = s[k];
        if (c == '.' || c == '@') return k > 0 && open(s[k - 1]);
        if ((c | 0x20) != 't' || k < 2) return false;
        int b = s[k - 1] | 0x20;
        if (b == 'a') return open(s[k - 2]);
        return b == 'o' && k >= 3 && (s[k - 2] | 0x20) == 'd' && (blank(s[k - 3]) || open(s[k - 3]));
    }

    private static boolean spelledStart(char c) { return blank(c) || open(c); }

    private static boolean open(char c) { return c == '[' || c == '(' || c == '{'; }

    /** A blank between spelled-out words: a tab or a space char (Unicode Zs: no-break spaces too), not a line break. */
    private static boolean blank(char c) {
        return c == ' ' || c == '\t' || (c >= 128 && Character.getType(c) == Character.SPACE_SEPARATOR);
    }

    /** A char an address may have before a spelled-out '@' or '.': an ASCII letter or digit, or {@code . _ % + -}. */
    private static boolean localChar(char c) {
        return alnum(c) || c == '.' || c == '_' || c == '%' || c == '+' || c == '-';
    }

    private static boolean alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'); }

    private static boolean labelChar(char c) { return alnum(c) || c == '-'; }

    private static boolean word(char[] s, int k, int len, String w) {
        if (k + w.length() > len) return false;
        for (int x = 0; x < w.length(); x++) if ((s[k + x] | 0x20) != w.charAt(x)) return false;
        return true;
    }

    /** Labels of a domain spelled out with {@code dot}, at most. */
    static final int MAX_LABELS = 16;

    /**
     * A spelled-out '@' or '.' from {@code s[i]} (a blank or an opening bracket, after an address char), decoded into
     * {@code out} from {@code o}: {@code (o' << 32) | i'}, or -1. Two forms:
     * <ul>
     * <li>a bracketed {@code [at]} {@code (at)} {@code {at}} {@code [@]} or {@code [dot]} {@code [.]} (any of the three
     * bracket pairs, any case), blanks around it dropped, before an ASCII letter or digit: {@code attacker [at] evil [dot]
     * example}, {@code attacker(at)evil(dot)example};</li>
     * <li>the bare words: blanks, {@code at}, blanks, then a domain whose every dot is spelled, {@code dot} between blanks
     * or a bracketed dot (2 to {@value #MAX_LABELS} labels of ASCII letters, digits and '-', at most 63 each, the last 2
     * to 24 letters): {@code attacker at evil dot example} and {@code attacker at evil [dot] example} are
     * {@code attacker@evil.example}. {@code attacker at evil.example} or a bare {@code dot} with no {@code at} before it is
     * left as written (prose: "look at the report", "polka dot").</li>
     * </ul>
     */
    private static long spelled(char[] s, int i, int len, char[] out, int o) {
        if (i == 0 || !localChar(s[i - 1])) return -1;
        int w = i;
        while (w < len && blank(s[w])) w++;
        if (w == len) return -1;
        char c = s[w];
        if (open(c)) {
            char close = c == '[' ? ']' : c == '(' ? ')' : '}';
            int k = w + 1;
            char d;
            if (k + 1 < len && (s[k] == '@' || s[k] == '.') && s[k + 1] == close) {
                d = s[k];
                k += 2;
            } else if (k + 2 < len && word(s, k, len, "at") && s[k + 2] == close) {
                d = '@';
                k += 3;
            } else if (k + 3 < len && word(s, k, len, "dot") && s[k + 3] == close) {
                d = '.';
                k += 4;
            } else {
                return -1;
            }
            while (k < len && blank(s[k])) k++;
            if (k == len || !alnum(s[k])) return -1;
            out[o] = d;
            return ((long) (o + 1) << 32) | k;
        }
        if (w == i || !word(s, w, len, "at") || w + 2 >= len || !blank(s[w + 2])) return -1;
        int k = w + 2;
        while (k < len && blank(s[k])) k++;
        int end = -1, labels = 0, p = k;
        while (labels < MAX_LABELS) {
            int a = p;
            boolean letters = true;
            while (p < len && p - a < 64 && labelChar(s[p])) {
                if (!((s[p] | 0x20) >= 'a' && (s[p] | 0x20) <= 'z')) letters = false;
                p++;
            }
            int n = p - a;
            if (n == 0 || n > 63) break;
            labels++;
            if (labels >= 2 && letters && n >= 2 && n <= 24) end = p;
            p = spelledDot(s, p, len);
            if (p < 0) break;
        }
        if (end < 0) return -1;
        out[o++] = '@';
        for (int x = k; x < end; ) {
            if (labelChar(s[x])) {
                out[o++] = s[x++];
                continue;
            }
            x = spelledDot(s, x, len);
            out[o++] = '.';
        }
        return ((long) o << 32) | end;
    }

    /**
     * The end of a spelled-out dot between two labels from {@code s[p]}: blanks, {@code dot}, blanks; or a bracketed
     * {@code [dot]} or {@code [.]} with blanks around it or none; else -1.
     */
    private static int spelledDot(char[] s, int p, int len) {
        int q = p;
        while (q < len && blank(s[q])) q++;
        if (q < len && open(s[q])) {
            char close = s[q] == '[' ? ']' : s[q] == '(' ? ')' : '}';
            if (q + 2 < len && s[q + 1] == '.' && s[q + 2] == close) q += 3;
            else if (q + 4 < len && word(s, q + 1, len, "dot") && s[q + 4] == close) q += 5;
            else return -1;
        } else {
            if (q == p || !word(s, q, len, "dot") || q + 3 >= len || !blank(s[q + 3])) return -1;
            q += 3;
        }
        while (q < len && blank(s[q])) q++;
        return q;
    }

    /** {@code s} decoded, or {@code s} itself when it holds no escape (allocates: whole-word provenance). */
    static String decode(String s) {
        char[] cs = s.toCharArray();
        char[] out = new char[cs.length];
        int n = decode(cs, cs.length, out);
        return n < 0 ? s : new String(out, 0, n);
    }

    /** A decoded escape: {@code (code point << 32) | index after it}. */
    private static long decoded(int cp, int end) { return ((long) cp << 32) | end; }

    /** The HTML character reference at {@code s[i] == '&'}, or -1. */
    private static long reference(char[] s, int i, int len) {
        int k = i + 1;
        if (k < len && s[k] == '#') {
            k++;
            boolean hex = k < len && (s[k] == 'x' || s[k] == 'X');
            if (hex) k++;
            int start = k, cp = 0;
            while (k < len && k - start < 7) {
                int d = Character.digit(s[k], hex ? 16 : 10);
                if (d < 0 || s[k] >= 128) break;
                cp = cp * (hex ? 16 : 10) + d;
                k++;
            }
            if (k == start || cp == 0 || cp > Character.MAX_CODE_POINT) return -1;
            if (k < len && s[k] == ';') k++;
            return decoded(cp, k);
        }
        int start = k;
        while (k < len && k - start < 7 && ((s[k] >= 'a' && s[k] <= 'z') || (s[k] >= 'A' && s[k] <= 'Z'))) k++;
        if (k == start || k >= len || s[k] != ';') return -1;
        for (int n = 0; n < NAMES.length; n += 2) {
            String name = NAMES[n];
            if (name.length() == k - start && same(s, start, name)) return decoded(NAMES[n + 1].charAt(0), k + 1);
        }
        return -1;
    }

    private static boolean same(char[] s, int start, String name) {
        for (int k = 0; k < name.length(); k++) if (s[start + k] != name.charAt(k)) return false;
        return true;
    }

    /** The JSON escape at {@code s[i] == '\\'}, or -1. */
    private static long json(char[] s, int i, int len) {
        if (i + 1 >= len) return -1;
        char c = s[i + 1];
        switch (c) {
            case '/': case '"': case '\\': return decoded(c, i + 2);
            case 'n': return decoded('\n', i + 2);
            case 't': return decoded('\t', i + 2);
            case 'r': return decoded('\r', i + 2);
            case 'u':
                if (i + 6 > len) return -1;
                int cp = 0;
                for (int k = i + 2; k < i + 6; k++) {
                    int d = s[k] < 128 ? Character.digit(s[k], 16) : -1;
                    if (d < 0) return -1;
                    cp = cp * 16 + d;
                }
                return decoded(cp, i + 6);
            default: return -1;
        }
    }

    /** The percent-escape at {@code s[i] == '%'} of {@code @} or an unreserved char, or -1. */
    private static long percent(char[] s, int i, int len) {
        if (i + 3 > len || s[i + 1] >= 128 || s[i + 2] >= 128) return -1;
        int hi = Character.digit(s[i + 1], 16), lo = Character.digit(s[i + 2], 16);
        if (hi < 0 || lo < 0) return -1;
        char c = (char) (hi * 16 + lo);
        boolean plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
                || c == '_' || c == '~' || c == '@';
        return plain ? decoded(c, i + 3) : -1;
    }
}
