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
 * spelled with an escape is found in both spellings.
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
        while (i < len && !marker(s[i])) i++;
        if (i == len) return -1;
        System.arraycopy(s, 0, out, 0, i);
        int o = i;
        boolean any = false;
        while (i < len) {
            char c = s[i];
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
