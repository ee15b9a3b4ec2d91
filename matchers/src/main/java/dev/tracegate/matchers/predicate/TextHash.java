package dev.tracegate.matchers.predicate;

/**
 * 64-bit hashes of values as context sets keep them: case-folded, ignoring white space and the
 * marks {@code - ( )} that people put inside phone numbers and IBANs, so {@code +1 (415) 555-0100}
 * and {@code +14155550100} are the same value. Computed over a char range without allocating.
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
            if (c <= ' ' ? c == ' ' || c == '\t' || c == '\n' || c == '\r' : c == '-' || c == '(' || c == ')') return -1;
            return c >= 'A' && c <= 'Z' ? c + 32 : c;
        }
        return c == '\u00A0' ? -1 : Character.toLowerCase(c);
    }

    /** Hash of the whole sequence. */
    public static long of(CharSequence s) { return s == null ? EMPTY : of(s, 0, s.length()); }

    /** Hash of {@code s[from, to)}. */
    public static long of(CharSequence s, int from, int to) {
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
        long h = SEED;
        boolean any = false;
        for (int i = from; i < to; i++) {
            int folded = folded(s[i]);
            if (folded < 0) continue;
            h = (h ^ folded) * PRIME;
            any = true;
        }
        return any ? finish(h) : EMPTY;
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

    static boolean ignored(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\u00A0' || c == '-' || c == '(' || c == ')';
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
