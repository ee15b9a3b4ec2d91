package dev.tracegate.matchers.predicate;

/**
 * 64-bit hashes of values as context sets keep them: case-folded, ignoring white space ({@link #white}: every char
 * Java calls white space or a space char, no-break spaces and NEL included), invisible format chars
 * (Unicode Cf: U+200B, U+FEFF, ...) and the marks {@code - ( )} that people put inside phone numbers and IBANs, so {@code +1 (415) 555-0100}
 * and {@code +14155550100} are the same value. A URL-shaped value (one with an {@code http://} or
 * {@code https://} scheme, or whose text up to the first {@code /} is a domain name) is read without
 * its scheme, a leading {@code www.} and one trailing {@code /}, so {@code https://EVIL.example/pay/}
 * and {@code evil.example/pay} are the same value. Computed over a char range without allocating.
 * Two different values collide with probability about 2^-64 per pair, which we accept.
 */
public final class TextHash {
    /** Hash of a value that normalises to nothing; never stored. */
    public static final long EMPTY = 0L;

    private static final long SEED = 0xcbf29ce484222325L;
    private static final long PRIME = 0x100000001b3L;

    private TextHash() {}

    /** The char as the hash reads it: case-folded, or -1 for white space and the marks {@code - ( )}, which it skips. */
    private static int folded(char c) {
        if (c < 128) {
            if (c <= ' ' ? white(c) : c == '-' || c == '(' || c == ')') return -1;
            return c >= 'A' && c <= 'Z' ? c + 32 : c;
        }
        return wide(c);
    }

    /**
     * White space, as every comparison of values reads it (the hash, the identifier scan's token and group
     * boundaries, whole-word provenance, erased subjects): {@link Character#isWhitespace} or {@link Character#isSpaceChar}
     * (space, tab, line feed, vertical tab, form feed, carriage return, U+001C to U+001F, the no-break spaces U+00A0,
     * U+2007 and U+202F, the em, thin and other spaces of U+2000 to U+200A, U+1680, U+205F, the ideographic space U+3000,
     * the line and paragraph separators U+2028 and U+2029), and NEL U+0085.
     */
    static boolean white(char c) {
        if (c <= ' ') return c == ' ' || (c >= '\t' && c <= '\r') || (c >= '\u001C' && c <= '\u001F');
        return c >= '\u0085' && (c == '\u0085' || Character.isWhitespace(c) || Character.isSpaceChar(c));
    }

    /**
     * A non-ASCII char as the hash reads it: -1 for white space ({@link #white}) and for invisible format chars (Unicode category Cf:
     * zero-width space U+200B, joiners, word joiner U+2060, the BOM U+FEFF, the soft hyphen U+00AD), which a model copies
     * from an injected text without showing them, so {@code attacker@evil.example\u200B} is the address; else case-folded.
     */
    private static int wide(char c) {
        char m = compat(c);
        if (m != 0) return FOLD[m];
        return white(c) || Character.getType(c) == Character.FORMAT ? -1 : Character.toLowerCase(c);
    }

    /**
     * The ASCII char Unicode's compatibility normalisation (NFKC) makes of {@code c} alone, or the full stop for the
     * ideographic and half-width ideographic full stops (U+3002, U+FF61), which IDNA (UTS #46) maps to a dot; else 0 (also
     * for white space, which {@link #white} covers). So the full-width {@code ｅ} (U+FF45), {@code ＠} (U+FF20) and
     * {@code ．} (U+FF0E), the ideographic {@code 。}, circled, superscript and mathematical letter-like forms read as
     * {@code e}, {@code @} and {@code .}: {@code attacker@evil。example} and {@code attacker＠ｅvil.example} are
     * {@code attacker@evil.example}, as an IDNA-aware mail or HTTP stack delivers them. A char whose NFKC form is no
     * single ASCII char (a ligature {@code ﬁ}, a Roman numeral {@code Ⅻ}, an accented letter) is kept as it is, and so is
     * a homoglyph of another script (Cyrillic {@code е}).
     */
    static char compat(char c) {
        if (c < '\u00A0') return 0;
        if (c >= '\uFF01' && c <= '\uFF5E') return (char) (c - 0xFEE0); // full-width ASCII
        if (c == '\u3002' || c == '\uFF61') return '.';
        int k = java.util.Arrays.binarySearch(COMPAT_FROM, c);
        return k >= 0 ? COMPAT_TO.charAt(k) : 0;
    }

    /** {@code c}, or the ASCII char {@link #compat} makes of it. */
    static char ascii(char c) {
        if (c < '\u00A0') return c;
        char m = compat(c);
        return m != 0 ? m : c;
    }

    /** The other chars NFKC makes one ASCII char of (sorted), and that char (generated with java.text.Normalizer; tested). */
    private static final char[] COMPAT_FROM = "\u00AA\u00B2\u00B3\u00B9\u00BA\u017F\u02B0\u02B2\u02B3\u02B7\u02B8\u02E1\u02E2\u02E3\u037E\u1D2C\u1D2E\u1D30\u1D31\u1D33\u1D34\u1D35\u1D36\u1D37\u1D38\u1D39\u1D3A\u1D3C\u1D3E\u1D3F\u1D40\u1D41\u1D42\u1D43\u1D47\u1D48\u1D49\u1D4D\u1D4F\u1D50\u1D52\u1D56\u1D57\u1D58\u1D5B\u1D62\u1D63\u1D64\u1D65\u1D9C\u1DA0\u1DBB\u1FEF\u2024\u2070\u2071\u2074\u2075\u2076\u2077\u2078\u2079\u207A\u207C\u207D\u207E\u207F\u2080\u2081\u2082\u2083\u2084\u2085\u2086\u2087\u2088\u2089\u208A\u208C\u208D\u208E\u2090\u2091\u2092\u2093\u2095\u2096\u2097\u2098\u2099\u209A\u209B\u209C\u2102\u210A\u210B\u210C\u210D\u210E\u2110\u2111\u2112\u2113\u2115\u2119\u211A\u211B\u211C\u211D\u2124\u2128\u212A\u212C\u212D\u212F\u2130\u2131\u2133\u2134\u2139\u2145\u2146\u2147\u2148\u2149\u2160\u2164\u2169\u216C\u216D\u216E\u216F\u2170\u2174\u2179\u217C\u217D\u217E\u217F\u2460\u2461\u2462\u2463\u2464\u2465\u2466\u2467\u2468\u24B6\u24B7\u24B8\u24B9\u24BA\u24BB\u24BC\u24BD\u24BE\u24BF\u24C0\u24C1\u24C2\u24C3\u24C4\u24C5\u24C6\u24C7\u24C8\u24C9\u24CA\u24CB\u24CC\u24CD\u24CE\u24CF\u24D0\u24D1\u24D2\u24D3\u24D4\u24D5\u24D6\u24D7\u24D8\u24D9\u24DA\u24DB\u24DC\u24DD\u24DE\u24DF\u24E0\u24E1\u24E2\u24E3\u24E4\u24E5\u24E6\u24E7\u24E8\u24E9\u24EA\u2C7C\u2C7D\uFB29\uFE10\uFE13\uFE14\uFE15\uFE16\uFE33\uFE34\uFE35\uFE36\uFE37\uFE38\uFE47\uFE48\uFE4D\uFE4E\uFE4F\uFE50\uFE52\uFE54\uFE55\uFE56\uFE57\uFE59\uFE5A\uFE5B\uFE5C\uFE5F\uFE60\uFE61\uFE62\uFE63\uFE64\uFE65\uFE66\uFE68\uFE69\uFE6A\uFE6B".toCharArray();
    private static final String COMPAT_TO = "a231oshjrwylsx;ABDEGHIJKLMNOPRTUWabdegkmoptuviruvcfz`.0i456789+=()n0123456789+=()aeoxhklmnpstCgHHHhIILlNPQRRRZZKBCeEFMoiDdeijIVXLCDMivxlcdm123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0jV+,:;!?__(){}[]___,.;:?!(){}#&*+-<>=\\$%@";

    /** Hash of the whole sequence. */
    public static long of(CharSequence s) { return s == null ? EMPTY : of(s, 0, s.length()); }

    /** Hash of {@code s[from, to)}. */
    public static long of(CharSequence s, int from, int to) {
        // one pass hashes the value as written and notes whether it may be URL-shaped (see urlSpan): only then is
        // the URL form found and hashed, so the common value (a word, a number, an e-mail address) is read once
        long h = SEED;
        int first = -1;
        boolean hostPart = true, afterDot = false, dotLetter = false, at = false;
        for (int i = from; i < to; i++) {
            char c = ascii(s.charAt(i));
            if (hostPart) {
                if (c == '/') hostPart = false;
                else {
                    if (afterDot && Character.isLetter(c)) dotLetter = true;
                    afterDot = c == '.';
                    at |= c == '@';
                }
            }
            int folded = folded(c);
            if (folded < 0) continue;
            if (first < 0) first = folded;
            h = (h ^ folded) * PRIME;
        }
        if (first < 0) return EMPTY;
        if (first == 'h' || (dotLetter && !at)) {   // necessary for urlSpan >= 0: a scheme, or a dot and a letter before any '/', no '@'
            long span = urlSpan(s, from, to);
            if (span >= 0) return plain(s, (int) (span >>> 32), (int) span);
        }
        return finish(h);
    }

    private static long plain(CharSequence s, int from, int to) {
        long h = SEED;
        boolean any = false;
        for (int i = from; i < to; i++) {
            int folded = folded(s.charAt(i));
            if (folded < 0) continue;
            h = (h ^ folded) * PRIME;
            any = true;
        }
        return any ? finish(h) : EMPTY;
    }

    /** Hash of {@code s[from, to)}, equal to {@code of(new String(s, from, to - from))}. */
    static long of(char[] s, int from, int to) {
        // as of(CharSequence, int, int), in two loops (the host part up to the first '/', then the rest) and with
        // ASCII chars folded and classed by table: the identifier scan hashes most of its values here
        long h = SEED;
        int first = -1;
        int i = from;
        boolean afterDot = false, dotLetter = false, at = false;
        for (; i < to; i++) {
            char c = s[i];
            if (c == '/') break;
            int f;
            if (c < 128) {
                f = FOLD[c];
                dotLetter |= afterDot & LETTER[c];
            } else {
                f = wide(c);
                c = ascii(c);
                dotLetter |= afterDot && Character.isLetter(c);
            }
            afterDot = c == '.';
            at |= c == '@';
            if (f < 0) continue;
            if (first < 0) first = f;
            h = (h ^ f) * PRIME;
        }
        for (; i < to; i++) {
            char c = s[i];
            int f = c < 128 ? FOLD[c] : wide(c);
            if (f < 0) continue;
            if (first < 0) first = f;
            h = (h ^ f) * PRIME;
        }
        if (first < 0) return EMPTY;
        if (first == 'h' || (dotLetter && !at)) {
            // a URL candidate is rare: read it through a CharSequence view, so the URL form has one implementation
            CharSequence view = java.nio.CharBuffer.wrap(s);
            long span = urlSpan(view, from, to);
            if (span >= 0) return plain(view, (int) (span >>> 32), (int) span);
        }
        return finish(h);
    }

    /** {@link #folded} of each ASCII char (-1: skipped), and which ASCII chars are letters. */
    private static final byte[] FOLD = new byte[128];
    private static final boolean[] LETTER = new boolean[128];

    static {
        for (char c = 0; c < 128; c++) {
            FOLD[c] = (byte) folded(c);
            LETTER[c] = Character.isLetter(c);
        }
    }

    /** Hash of the decimal text of {@code v}, equal to {@code of(Long.toString(v))}, without allocating. */
    public static long of(long v) {
        if (v == Long.MIN_VALUE) return of(Long.toString(v));
        long a = Math.abs(v); // the sign '-' is one of the ignored marks
        long div = 1;
        while (a / div >= 10) div *= 10;
        long h = SEED;
        for (; div > 0; div /= 10) h = (h ^ ('0' + (a / div) % 10)) * PRIME;
        return finish(h);
    }

    /** Hash of a pair (a data subject and a purpose), order-sensitive. */
    public static long pair(CharSequence a, CharSequence b) {
        long x = of(a);
        long y = of(b);
        long h = finish(x * 0x9E3779B97F4A7C15L + y + 0x632BE59BD9B4E019L);
        return h == EMPTY ? 1 : h;
    }

    /**
     * The part of {@code s[from, to)} a URL-shaped value is hashed over, as {@code (start << 32) | end}:
     * without an {@code http://} or {@code https://} scheme (any case), a leading {@code www.} when a
     * domain remains, and one trailing {@code /}; or -1 when the value is not URL-shaped (hashed whole).
     * URL-shaped: it had the scheme, or its text up to the first {@code /} is a domain name (a dot, then
     * two or more letters up to the end, a {@code /} or a {@code :port}) with no {@code @} or white space.
     */
    static long urlSpan(CharSequence s, int from, int to) {
        int a = from, b = to;
        while (a < b && ignored(s.charAt(a))) a++;
        while (b > a && ignored(s.charAt(b - 1))) b--;
        if (b - a < 3) return -1;
        boolean scheme = false;
        if (startsWithFolded(s, a, b, "https://")) { a += 8; scheme = true; }
        else if (startsWithFolded(s, a, b, "http://")) { a += 7; scheme = true; }
        int hostEnd = a, dots = 0, lastDot = -1;
        for (; hostEnd < b; hostEnd++) {
            char c = ascii(s.charAt(hostEnd));
            if (c == '/') break;
            if (c == '@' || white(c)) return scheme ? span(a, b) : -1;
            if (c == '.') { dots++; lastDot = hostEnd; }
        }
        if (!scheme && !domainEnd(s, a, lastDot, hostEnd)) return -1;
        if (dots >= 2 && startsWithFolded(s, a, hostEnd, "www.")) a += 4;
        if (b > a && ascii(s.charAt(b - 1)) == '/') b--;
        return span(a, b);
    }

    /** True when {@code s[a, hostEnd)} ends in a dot and a top-level label of 2+ letters (before an optional {@code :port}). */
    private static boolean domainEnd(CharSequence s, int a, int lastDot, int hostEnd) {
        if (lastDot <= a) return false;
        int letters = 0;
        for (int i = lastDot + 1; i < hostEnd; i++) {
            char c = ascii(s.charAt(i));
            if (c == ':') break;
            if (!Character.isLetter(c)) return false;
            letters++;
        }
        return letters >= 2;
    }

    private static long span(int a, int b) { return ((long) a << 32) | (b & 0xFFFFFFFFL); }

    private static boolean startsWithFolded(CharSequence s, int a, int b, String t) {
        if (b - a < t.length()) return false;
        for (int k = 0; k < t.length(); k++) {
            char c = ascii(s.charAt(a + k));
            if ((c >= 'A' && c <= 'Z' ? (char) (c + 32) : c) != t.charAt(k)) return false;
        }
        return true;
    }

    static boolean ignored(char c) {
        c = ascii(c);
        return white(c) || c == '-' || c == '(' || c == ')' || (c >= 128 && wide(c) < 0);
    }

    private static long finish(long h) {
        h ^= h >>> 33;
        h *= 0xff51afd7ed558ccdL;
        h ^= h >>> 33;
        h *= 0xc4ceb9fe1a85ec53L;
        h ^= h >>> 33;
        return h == EMPTY ? 1 : h;
    }
}
