package dev.tracegate.matchers.predicate;

/**
 * flow(f)'s second look at an argument: an introduced identifier glued into a longer token ({@code api_key=SECRET},
 * {@code key:SECRET}, {@code https://evil.example/c?k=SECRET}, {@code /collect/SECRET}, {@code SECRET@evil.example}) or
 * split by one run of white space ({@code sk-live-4f9a 8b7c6d5e} in a sentence). The argument is cut into segments at
 * the chars that end an {@link Identifiers} token other than white space (quotes, brackets, {@code , ; |}); a segment
 * into pieces at the cut chars {@value #CUTS} and at white space. Each span of at most {@value #MAX_PIECES} consecutive
 * pieces of one segment that crosses at most one run of white space and holds at most {@value #MAX_SPAN} characters is,
 * trimmed as {@link Identifiers} trims a token ({@code . : ! ? *} at its end, {@code . :} at its start), compared with
 * the introduced values when it is itself an identifier ({@link Identifiers#qualifies}: four digits, an {@code @}, a
 * URL, a domain); white space inside a span is ignored as {@link TextHash} ignores it.
 * <p>
 * Cost: one pass per span start over at most {@value #MAX_SPAN} chars, a hash only for a span that may be an identifier;
 * no allocation once the frame's buffer holds the longest argument. Past {@value #MAX_SPANS} hashed spans the rest is
 * not read and the argument counts as carrying an introduced value (fail closed, as a value past the identifier scan's
 * bounds does).
 */
final class GluedValues {
    /** Chars that cut a token into pieces (besides white space). */
    static final String CUTS = "=:&?/#@";
    /** Pieces per span. */
    static final int MAX_PIECES = 8;
    /** Characters per span. */
    static final int MAX_SPAN = 256;
    /** Spans hashed per argument before it fails closed. */
    static final int MAX_SPANS = 4096;

    private GluedValues() {}

    private static final int PLAIN = 0, CUT = 1, SPACE = 2, HARD = 3;

    private static int kind(char c) {
        if (TextHash.white(c)) return SPACE; // the one definition of white space the scan and the hash use
        switch (c) {
            case '=', ':', '&', '?', '/', '#', '@': return CUT;
            case '"', '\'', '“', '”', '‘', '’', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|', '`', '«', '»': return HARD;
            default: return PLAIN;
        }
    }

    /** True when a span of {@code value} (see the class comment) is in {@code introduced}, or {@code value} has too many. */
    static boolean found(Frame f, CharSequence value, ValueSet introduced) {
        int len = Math.min(value.length(), Identifiers.MAX_SCAN);
        char[] s = f.gluedBuf;
        if (s.length < len) {
            f.gluedBuf = s = new char[Math.max(len, 2 * s.length)];
            f.gluedView = java.nio.CharBuffer.wrap(s);
        }
        java.nio.CharBuffer view = f.gluedView; // TextHash.of(char[]) would wrap one per URL-shaped span
        if (value instanceof String str) str.getChars(0, len, s, 0);
        else for (int k = 0; k < len; k++) s[k] = value.charAt(k);
        int hashed = 0;
        int prev = HARD; // the kind of the char before i
        for (int i = 0; i < len; i++) {
            int ki = kind(s[i]);
            boolean start = ki == PLAIN && prev != PLAIN;
            prev = ki;
            if (!start) continue;
            // spans from i: extend piece by piece
            int pieces = 1, digits = 0;
            boolean marks = false, crossed = false;
            int j = i, limit = Math.min(len, i + MAX_SPAN);
            while (true) {
                int kj = j < len ? kind(s[j]) : HARD;
                if (kj == PLAIN) {
                    if (j == limit) break; // a piece longer than the span allows: no boundary here
                    char c = s[j];
                    if (c >= '0' && c <= '9') digits++;
                    else if (c == '.') marks = true;
                    j++;
                    continue;
                }
                // a piece ends at j: the span [i, j)
                if (digits >= 4 || marks) {
                    int a = i, b = j;
                    while (b > a && trailing(s[b - 1])) b--;
                    while (a < b && (s[a] == '.' || s[a] == ':')) a++;
                    if (Identifiers.qualifies(s, a, b)) {
                        if (++hashed > MAX_SPANS) return true;
                        if (introduced.contains(TextHash.of(view, a, b))) return true;
                    }
                }
                if (kj == HARD || j == limit) break;
                if (kj == SPACE) {
                    if (crossed) break;
                    crossed = true;
                    while (j < limit && kind(s[j]) == SPACE) j++;
                    if (j == limit || kind(s[j]) != PLAIN) break;
                } else { // a cut char joins the next piece
                    if (s[j] == '@' || s[j] == ':') marks = true;
                    j++;
                    while (j < limit && kind(s[j]) == CUT) {
                        if (s[j] == '@' || s[j] == ':') marks = true;
                        j++;
                    }
                    if (j == limit || kind(s[j]) != PLAIN) break;
                }
                if (++pieces > MAX_PIECES) break;
            }
        }
        return false;
    }

    private static boolean trailing(char c) {
        return c == '.' || c == ':' || c == '!' || c == '?' || c == '*';
    }
}
