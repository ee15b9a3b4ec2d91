package dev.tracegate.matchers.predicate;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the values in a text that could later flow into a tool call: e-mail addresses, URLs and
 * domain names, tokens with four or more digits (account, order and card numbers), IBANs and phone
 * numbers written in space-separated groups, and quoted strings. Bounded: only the first
 * {@value #MAX_SCAN} characters are read, quoted strings longer than {@value #MAX_QUOTED} are
 * skipped, and at most as many values as the caller's array holds are kept. Linear in the text and
 * allocation-free.
 */
public final class Identifiers {
    /** Characters of a text that are scanned. */
    public static final int MAX_SCAN = 65_536;
    /** Longest quoted string kept as a value. */
    public static final int MAX_QUOTED = 256;
    /** Values kept per text by the grounding. */
    public static final int MAX_PER_TEXT = 64;

    private Identifiers() {}

    /**
     * Appends the {@link TextHash} of each value found in {@code s} to {@code out} from index
     * {@code n} until {@code out} is full; returns the new count.
     */
    public static int scan(CharSequence s, long[] out, int n) {
        if (s == null) return n;
        int len = Math.min(s.length(), MAX_SCAN);
        // the values already in out, in an open-addressing set, so a repeated value costs one probe
        Seen seen = SEEN.get();
        seen.reset(out.length);
        for (int k = 0; k < n; k++) if (out[k] != TextHash.EMPTY) seen.insert(out[k]);
        int i = 0;
        while (i < len && n < out.length) {
            char c = s.charAt(i);
            int cls = c < 128 ? ASCII[c] : nonAscii(c);
            if ((cls & QUOTE) != 0) {
                char close = closingQuote(c);
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && s.charAt(j) != close) j++;
                if (j < limit && j - i - 1 >= 3) {
                    long h = TextHash.of(s, i + 1, j);
                    n = add(out, n, h, seen);
                }
                i++;
                continue;
            }
            if ((cls & TOKEN) != 0) {
                // one pass over the token collects what qualifies() and groupedEnd() need to reject it cheaply
                int j = i, digits = 0, marks = 0;
                while (j < len) {
                    char d = s.charAt(j);
                    int k = d < 128 ? ASCII[d] : nonAscii(d);
                    if ((k & TOKEN) == 0) break;
                    digits += k & DIGIT;
                    marks |= k;
                    j++;
                }
                boolean mayQualify = digits >= 4 || (marks & (AT | DOT | COLON)) != 0;
                boolean mayGroup = digits > 0 || (j < len && (s.charAt(j) == '(' || s.charAt(j) == ')'));
                if (!mayQualify && !mayGroup) {
                    i = j;
                    continue;
                }
                int a = i, b = j;
                while (b > a && trailingMark(s.charAt(b - 1))) b--;
                while (a < b && (s.charAt(a) == '.' || s.charAt(a) == ':')) a++;
                if (mayQualify && qualifies(s, a, b)) {
                    long h = TextHash.of(s, a, b);
                    n = add(out, n, h, seen);
                }
                if (mayGroup && n < out.length) {
                    int g = groupedEnd(s, a, len);
                    if (g > b) {
                        long h = TextHash.of(s, a, g);
                        n = add(out, n, h, seen);
                        j = Math.max(j, g);
                    }
                }
                i = j;
                continue;
            }
            i++;
        }
        return n;
    }

    /**
     * The hashes the grounding records for a text a tool returned or a user wrote: the hash of the
     * whole text when it has at most {@value #MAX_QUOTED} characters, then each value {@link #scan}
     * finds (at most {@value #MAX_PER_TEXT}), in that order; a new array of exactly that length
     * (it may hold {@link TextHash#EMPTY}, which sets ignore). {@code Event} remembers it per text.
     */
    public static long[] values(String text) {
        if (text == null) return NO_VALUES;
        long[] hs = SEEN.get().values;
        int n = 0;
        if (text.length() <= MAX_QUOTED) hs[n++] = TextHash.of(text);
        n = scan(text, hs, n);
        return n == 0 ? NO_VALUES : java.util.Arrays.copyOf(hs, n);
    }

    private static final long[] NO_VALUES = new long[0];

    // Char classes of ASCII chars: a token char, an opening quote, and marks a value needs.
    private static final int DIGIT = 1, TOKEN = 2, QUOTE = 4, AT = 8, DOT = 16, COLON = 32;
    private static final byte[] ASCII = new byte[128];

    static {
        for (char c = 0; c < 128; c++) {
            int k = 0;
            if (tokenChar(c)) k |= TOKEN;
            if (closingQuote(c) != 0) k |= QUOTE;
            if (c >= '0' && c <= '9') k |= DIGIT;
            if (c == '@') k |= AT;
            if (c == '.') k |= DOT;
            if (c == ':') k |= COLON;
            ASCII[c] = (byte) k;
        }
    }

    private static int nonAscii(char c) {
        // no non-ASCII char is a digit, '@', '.' or ':' for qualifies(); some open quotes
        return (tokenChar(c) ? TOKEN : 0) | (closingQuote(c) != 0 ? QUOTE : 0);
    }

    /** The values found in {@code s}, as text (for tests and reports; allocates). */
    public static List<String> find(String s) {
        List<String> out = new ArrayList<>();
        // the same walk as scan(), collecting text instead of hashes
        int len = Math.min(s.length(), MAX_SCAN);
        int i = 0;
        while (i < len && out.size() < MAX_PER_TEXT) {
            char c = s.charAt(i);
            char close = closingQuote(c);
            if (close != 0) {
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && s.charAt(j) != close) j++;
                if (j < limit && j - i - 1 >= 3) out.add(s.substring(i + 1, j));
                i++;
                continue;
            }
            if (tokenChar(c)) {
                int j = i;
                while (j < len && tokenChar(s.charAt(j))) j++;
                int a = i, b = j;
                while (b > a && trailingMark(s.charAt(b - 1))) b--;
                while (a < b && (s.charAt(a) == '.' || s.charAt(a) == ':')) a++;
                if (qualifies(s, a, b)) out.add(s.substring(a, b));
                int g = groupedEnd(s, a, len);
                if (g > b) {
                    out.add(s.substring(a, g));
                    j = Math.max(j, g);
                }
                i = j;
                continue;
            }
            i++;
        }
        return out;
    }

    private static int add(long[] out, int n, long h, Seen seen) {
        if (h == TextHash.EMPTY || !seen.insert(h)) return n;
        out[n] = h;
        return n + 1;
    }

    /**
     * The hashes one scan has kept (per thread): linear probing, and a slot counts only when its stamp
     * is the current scan's, so starting a scan clears nothing.
     */
    private static final class Seen {
        /** Scratch for {@link #values}: the whole text's hash and one per value kept. */
        final long[] values = new long[MAX_PER_TEXT + 1];
        long[] keys = new long[256];
        int[] stamps = new int[256];
        int stamp;
        int mask;

        void reset(int capacity) {
            int size = Integer.highestOneBit(Math.max(16, capacity) * 2) * 2; // more than twice the values kept
            if (keys.length < size) {
                keys = new long[size];
                stamps = new int[size];
            }
            mask = keys.length - 1;
            if (++stamp == 0) { // after 2^32 scans: forget every old stamp
                java.util.Arrays.fill(stamps, 0);
                stamp = 1;
            }
        }

        /** Adds {@code h}; false when this scan kept it already. */
        boolean insert(long h) {
            int i = (int) (h ^ (h >>> 32)) & mask;
            while (stamps[i] == stamp) {
                if (keys[i] == h) return false;
                i = (i + 1) & mask;
            }
            keys[i] = h;
            stamps[i] = stamp;
            return true;
        }
    }

    private static final ThreadLocal<Seen> SEEN = ThreadLocal.withInitial(Seen::new);

    private static char closingQuote(char c) {
        return switch (c) {
            case '"' -> '"';
            case '“' -> '”';
            case '«' -> '»';
            case '`' -> '`';
            default -> 0;
        };
    }

    private static boolean tokenChar(char c) {
        if (Character.isWhitespace(c) || c == '\u00A0') return false;
        return switch (c) {
            case '"', '\'', '“', '”', '‘', '’', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|', '`', '«', '»' -> false;
            default -> true;
        };
    }

    private static boolean trailingMark(char c) {
        return c == '.' || c == ':' || c == '!' || c == '?' || c == '*';
    }

    static boolean qualifies(CharSequence s, int a, int b) {
        int len = b - a;
        if (len < 3) return false;
        int digits = 0, at = -1, lastDot = -1;
        for (int i = a; i < b; i++) {
            char c = s.charAt(i);
            if (c >= '0' && c <= '9') digits++;
            else if (c == '@') at = i;
            else if (c == '.') lastDot = i;
        }
        if (at > a && at < b - 1) return true;
        if (indexOf(s, a, b, "://") >= 0) return true;
        if (len > 4 && regionStartsWith(s, a, b, "www.")) return true;
        if (digits >= 4) return true;
        if (lastDot > a && b - lastDot - 1 >= 2 && b - lastDot - 1 <= 24) {
            for (int i = lastDot + 1; i < b; i++) if (!Character.isLetter(s.charAt(i))) return false;
            return Character.isLetterOrDigit(s.charAt(a));
        }
        return false;
    }

    /**
     * End of a run of short space-separated groups starting at {@code a} (phone numbers, IBANs in
     * groups of four) holding at least seven digits in at least two groups, or {@code a} when none.
     */
    static int groupedEnd(CharSequence s, int a, int len) {
        int i = a;
        int groups = 0, digits = 0, end = a;
        boolean ibanLike = false;
        while (i < len) {
            int g = i;
            while (g < len && groupChar(s.charAt(g))) g++;
            int glen = g - i;
            if (glen == 0 || glen > (groups == 0 ? 6 : 8)) break;
            int d = 0, upper = 0;
            for (int k = i; k < g; k++) {
                char c = s.charAt(k);
                if (c >= '0' && c <= '9') d++;
                else if (c >= 'A' && c <= 'Z') upper++;
            }
            if (groups == 0) {
                ibanLike = glen == 4 && upper == 2 && d == 2 && s.charAt(i) >= 'A' && s.charAt(i + 1) >= 'A';
                if (d == 0) break; // a number starts with a digit group (or +, ( before digits)
            } else if (d == 0 && !(ibanLike && upper == glen)) {
                break; // a word after the number is not part of it
            }
            digits += d;
            groups++;
            end = g;
            if (g < len - 1 && s.charAt(g) == ' ' && groupChar(s.charAt(g + 1))) i = g + 1;
            else break;
        }
        return groups >= 2 && digits >= 7 ? end : a;
    }

    private static boolean groupChar(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '+' || c == '-'
                || c == '(' || c == ')';
    }

    private static int indexOf(CharSequence s, int a, int b, String t) {
        outer:
        for (int i = a; i + t.length() <= b; i++) {
            for (int k = 0; k < t.length(); k++) if (s.charAt(i + k) != t.charAt(k)) continue outer;
            return i;
        }
        return -1;
    }

    private static boolean regionStartsWith(CharSequence s, int a, int b, String t) {
        if (b - a < t.length()) return false;
        for (int k = 0; k < t.length(); k++) if (Character.toLowerCase(s.charAt(a + k)) != t.charAt(k)) return false;
        return true;
    }
}
