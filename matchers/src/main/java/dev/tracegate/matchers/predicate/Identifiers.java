package dev.tracegate.matchers.predicate;

import java.util.ArrayList;
import java.util.List;

/**
 * Finds the values in a text that could later flow into a tool call: e-mail addresses, URLs and
 * domain names (also with a path, {@code evil.example/pay}), tokens with four or more digits (account, order and card numbers), IBANs and phone
 * numbers written in space-separated groups, and quoted strings. An address written as a {@code mailto:} URI is read
 * as the address ({@code mailto:a@evil.example?subject=x} is {@code a@evil.example}). Bounded: only the first
 * {@value #MAX_SCAN} characters are read, quoted strings longer than {@value #MAX_QUOTED} are
 * skipped, and at most as many values as the caller's array holds are kept; {@link #scanAll} and {@link #values} say
 * when a text held more than that (its rest was not checked), so the grounding can fail closed. Linear in the text and
 * allocation-free.
 */
public final class Identifiers {
    /** Characters of a text that are scanned. */
    public static final int MAX_SCAN = 65_536;
    /** Longest quoted string kept as a value. */
    public static final int MAX_QUOTED = 256;
    /** Values kept per text by the grounding. */
    public static final int MAX_PER_TEXT = 64;
    /**
     * The value {@link #values} adds to a text it could not read to the end (longer than {@value #MAX_SCAN} characters, or
     * more than {@value #MAX_PER_TEXT} distinct values): a set of introduced values holding it has missed some, so the
     * grounding counts every value the user did not write as introduced. A fixed 64-bit constant, which a value's hash
     * equals with probability 2^-64, as two values collide ({@link TextHash}).
     */
    public static final long UNSCANNED = 0x7E57_C0DE_DEAD_BEEFL;

    private Identifiers() {}

    /**
     * Appends the {@link TextHash} of each value found in {@code s} to {@code out} from index
     * {@code n} until {@code out} is full; returns the new count.
     */
    public static int scan(CharSequence s, long[] out, int n) {
        return scan(s, out, n, out.length, SEEN.get());
    }

    /**
     * {@link #scan}, or -1 when {@code s} holds more than that: it is longer than {@value #MAX_SCAN} characters, or holds
     * more distinct values than {@code out} has room for. The caller then has not checked all of it and must fail closed.
     */
    public static int scanAll(CharSequence s, long[] out, int n) {
        Seen seen = SEEN.get();
        int r = scan(s, out, n, out.length, seen);
        return s != null && (seen.overflow || s.length() > MAX_SCAN) ? -1 : r;
    }

    /** {@link #scan} into {@code out[n, cap)}; sets {@code seen.overflow} when a value found no room. */
    private static int scan(CharSequence s, long[] out, int n, int cap, Seen seen) {
        seen.overflow = false;
        if (s == null) return n;
        int len = Math.min(s.length(), MAX_SCAN);
        // the values already in out, in an open-addressing set, so a repeated value costs one probe
        seen.reset(cap);
        seen.cap = cap;
        for (int k = 0; k < n; k++) if (out[k] != TextHash.EMPTY) seen.insert(out[k]);
        // the walk reads a copy (one bulk copy beats a String.charAt per char read)
        char[] cs = seen.chars(len);
        if (s instanceof String str) str.getChars(0, len, cs, 0);
        else for (int k = 0; k < len; k++) cs[k] = s.charAt(k);
        // one pass: compatibility chars (full-width, the ideographic full stop...) to the ASCII char NFKC or IDNA makes
        // of them (TextHash.compat, as the hash reads them), and whether an escape may start
        boolean marks = false;
        for (int k = 0; k < len; k++) {
            char c = cs[k];
            if (c >= '\u00A0') {
                char m = TextHash.compat(c);
                if (m != 0) cs[k] = c = m;
            }
            // an escape, or a spelled-out '@' or '.' ([at], (dot), " dot "): Escapes.spelledMark looks back at mapped chars
            if (!marks) marks = Escapes.marker(c) || Escapes.spelledMark(cs, k);
        }
        n = scan(cs, len, out, n, seen);
        // the text with its HTML, JSON and percent escapes and its spelled-out addresses decoded (Escapes), when it has
        // any: its values too
        if (seen.overflow || !marks) return n;
        char[] dec = seen.decoded(len);
        int dl = Escapes.decode(cs, len, dec);
        if (dl < 0) return n;
        seen.forgetRaw(); // the chars the last scan remembered are in the other array
        return scan(dec, dl, out, n, seen);
    }

    /**
     * The walk: at each position a quoted string may open, a token (a run of token chars) is read, or
     * the char is passed over. Only tokens with a digit, '@', '.' or ':', tokens before '(' or ')', and
     * quotes yield values; so the walk skips ahead over ASCII chars that are none of those (a word of
     * prose and the spaces after it) to the token holding or ending at the next char that is.
     */
    private static int scan(char[] s, int len, long[] out, int n, Seen seen) {
        int i = 0;
        while (i < len && !seen.overflow) {
            // skip plain chars, keeping where the walk would begin the token holding p: after the last non-token char
            int p = i, start = i, cls = 0;
            while (p < len) {
                char c = s[p];
                cls = c < 128 ? ASCII[c] : nonAscii(c);
                if ((cls & PLAIN) == 0) break;
                start = (cls & TOKEN) == 0 ? p + 1 : start;
                p++;
            }
            if (p == len) break; // the rest yields nothing (a plain token at the end neither)
            i = start;
            if (i < p || (cls & TOKEN) != 0) {
                // a token from i; its chars before p are plain. One pass over the rest collects what
                // qualifies() and groupedEnd() need to reject it cheaply
                int j = p, digits = 0, marks = 0;
                while ((cls & TOKEN) != 0) {
                    digits += cls & DIGIT;
                    marks |= cls;
                    if (++j == len) break;
                    char d = s[j];
                    cls = d < 128 ? ASCII[d] : nonAscii(d);
                }
                boolean mayQualify = digits >= 4 || (marks & (AT | DOT | COLON)) != 0;
                // a second group needs the first to reach the token's end and go on over white space, '(' or ')'
                // (groupedEnd stops at any other char), and a group of digits before white space
                char next = j < len ? s[j] : 0;
                boolean mayGroup = next == '(' || next == ')' || (digits > 0 && TextHash.white(next));
                if (!mayQualify && !mayGroup) {
                    i = j;
                    continue;
                }
                int a = i, b = j;
                while (b > a && trailingMark(s[b - 1])) b--;
                while (a < b && (s[a] == '.' || s[a] == ':')) a++;
                int m = mailto(s, a, b);
                if (m != a) {
                    a = m;
                    b = queryStart(s, a, b);
                    mayQualify = qualifies(s, a, b);
                } else {
                    // qualifies() counts the same digits ([a, b) lost only marks): with four, it holds
                    mayQualify = mayQualify && (digits >= 4 || qualifies(s, a, b));
                }
                if (mayQualify) n = addValue(s, a, b, out, n, seen);
                if (mayQualify && !seen.overflow) n = addParts(s, a, b, out, n, seen, (marks & AT) != 0);
                if (mayGroup && !seen.overflow) {
                    int g = groupedEnd(s, a, len);
                    if (g > b) {
                        n = addValue(s, a, g, out, n, seen);
                        j = Math.max(j, g);
                    }
                }
                i = j;
                continue;
            }
            if ((cls & QUOTE) != 0) {
                char close = closingQuote(s[i]);
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && s[j] != close) j++;
                if (j < limit && j - i - 1 >= 3) {
                    int r = seen.repeats(s, i + 1, j, true);
                    if (r == NEW) {
                        n = addHash(s, i + 1, j, out, n, seen);
                    } else if (r == REPEAT_WALKED && !opensQuote(s, i + 1, j)) {
                        // the walk from i + 1 to the closing quote depends on these chars alone (no quote opens inside,
                        // and every token and group stops at the closing quote), so it finds the values it found
                        // after the first quote of the same text, which this scan holds: go on from the closing quote
                        i = j;
                        continue;
                    }
                }
            }
            i++;
        }
        return n;
    }

    /**
     * The hashes the grounding records for a text a tool returned or a user wrote: the hash of the
     * whole text when it has at most {@value #MAX_QUOTED} characters, then each value {@link #scan}
     * finds (at most {@value #MAX_PER_TEXT}), in that order, then {@link #UNSCANNED} when the text held more than
     * {@link #scan} reads; a new array of exactly that length
     * (it may hold {@link TextHash#EMPTY}, which sets ignore). {@code Event} remembers it per text.
     */
    public static long[] values(String text) {
        if (text == null) return NO_VALUES;
        Seen seen = SEEN.get();
        long[] hs = seen.values;
        int n = 0;
        if (text.length() <= MAX_QUOTED) hs[n++] = TextHash.of(text);
        n = scan(text, hs, n, MAX_PER_TEXT + 1, seen);
        if (seen.overflow || text.length() > MAX_SCAN) hs[n++] = UNSCANNED; // the rest was not read: say so
        return n == 0 ? NO_VALUES : java.util.Arrays.copyOf(hs, n);
    }

    private static final long[] NO_VALUES = new long[0];

    // Char classes of ASCII chars: a token char, an opening quote, marks a value needs, and plain chars
    // (none of those marks, no quote, no bracket after which a token may be grouped: nothing to find there).
    private static final int DIGIT = 1, TOKEN = 2, QUOTE = 4, AT = 8, DOT = 16, COLON = 32, PLAIN = 64;
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
            if ((k & (DIGIT | QUOTE | AT | DOT | COLON)) == 0 && c != '(' && c != ')') k |= PLAIN;
            ASCII[c] = (byte) k;
        }
    }

    private static int nonAscii(char c) {
        // no non-ASCII char is a digit, '@', '.' or ':' for qualifies(); some open quotes
        return (tokenChar(c) ? TOKEN : 0) | (closingQuote(c) != 0 ? QUOTE : 0);
    }

    /** The values found in {@code s}, as text (for tests and reports; allocates). */
    public static List<String> find(String s) {
        return find(s, false);
    }

    /**
     * The distinct values found in {@code s} (one per {@link TextHash}), as text, in the order found; or null when
     * {@code s} holds more than is read ({@value #MAX_SCAN} characters, {@value #MAX_PER_TEXT} distinct values), so a caller
     * that must check every value fails closed. Allocates: for provenance's composed targets.
     */
    public static List<String> distinct(String s) {
        return s.length() > MAX_SCAN ? null : find(s, true);
    }

    private static List<String> find(String s, boolean distinct) {
        List<String> out = new ArrayList<>();
        java.util.Set<Long> seen = distinct ? new java.util.HashSet<>() : null;
        int len = Math.min(s.length(), MAX_SCAN);
        char[] written = s.toCharArray();
        char[] cs = written.clone();
        for (int k = 0; k < len; k++) cs[k] = TextHash.ascii(cs[k]); // read as scan() reads them, shown as written
        if (!find(cs, written, len, out, seen, distinct)) return null;
        // and, as scan() does, in the text with its escapes decoded: the values that are new there
        char[] dec = new char[len];
        int dl = Escapes.decode(cs, len, dec);
        if (dl < 0) return out;
        if (distinct) return find(dec, dec, dl, out, seen, true) ? out : null;
        List<String> more = new ArrayList<>();
        find(dec, dec, dl, more, null, false);
        for (String v : more) if (out.size() < MAX_PER_TEXT && !out.contains(v)) out.add(v);
        return out;
    }

    /**
     * The walk of scan() over {@code cs[0, len)}, collecting the text of {@code shown} (the same chars before
     * {@link TextHash#compat} mapped them) instead of hashes; false when {@code seen} overflowed.
     */
    private static boolean find(char[] cs, char[] shown, int len, List<String> out, java.util.Set<Long> seen, boolean distinct) {
        int i = 0;
        while (i < len && (distinct || out.size() < MAX_PER_TEXT)) {
            char c = cs[i];
            char close = closingQuote(c);
            if (close != 0) {
                int j = i + 1;
                int limit = Math.min(len, i + 1 + MAX_QUOTED);
                while (j < limit && cs[j] != close) j++;
                if (j < limit && j - i - 1 >= 3 && !add(out, seen, shown, i + 1, j)) return false;
                i++;
                continue;
            }
            if (tokenChar(c)) {
                int j = i;
                while (j < len && tokenChar(cs[j])) j++;
                int a = i, b = j;
                while (b > a && trailingMark(cs[b - 1])) b--;
                while (a < b && (cs[a] == '.' || cs[a] == ':')) a++;
                int m = mailto(cs, a, b);
                if (m != a) {
                    a = m;
                    b = queryStart(cs, a, b);
                }
                if (qualifies(cs, a, b)) {
                    if (!add(out, seen, shown, a, b)) return false;
                    // the addresses glued to a label or to each other, as scan() adds them (addParts)
                    for (int x = partsEnd(cs, a, b) > 0 ? a : b, y; x < b; x = y + 1) {
                        y = x;
                        while (y < b && !partBreak(cs[y])) y++;
                        if (y - x < b - a && hasAt(cs, x, y) && qualifies(cs, x, y) && !add(out, seen, shown, x, y)) return false;
                    }
                    // the addresses glued to text of another script, as scan() adds them (addScriptSpans)
                    for (int k = hasAt(cs, a, b) && indexOf(cs, a, b, "://") < 0 ? a : b; k < b; k++) {
                        long span = cs[k] == '@' ? scriptSpan(cs, a, b, k) : -1;
                        if (span >= 0 && !add(out, seen, shown, (int) (span >>> 32), (int) span)) return false;
                    }
                    // the values glued to a key (KEY=value, key:value, a=1&b=2), as scan() adds them (addParts)
                    for (int x = valuesEnd(cs, a, b) > 0 ? a : b, y; x < b; x = y + 1) {
                        y = x;
                        while (y < b && !valueBreak(cs[y])) y++;
                        int pa = x, pb = y;
                        while (pb > pa && trailingMark(cs[pb - 1])) pb--;
                        while (pa < pb && cs[pa] == '.') pa++;
                        if (pb - pa < b - a && !hasAt(cs, pa, pb) && qualifies(cs, pa, pb) && !add(out, seen, shown, pa, pb)) return false;
                    }
                }
                int g = groupedEnd(cs, a, len);
                if (g > b) {
                    if (!add(out, seen, shown, a, g)) return false;
                    j = Math.max(j, g);
                }
                i = j;
                continue;
            }
            i++;
        }
        return true;
    }

    /** Adds {@code s[a, b)} to {@code out} (once per hash when {@code seen} is given); false when that is one too many. */
    private static boolean add(List<String> out, java.util.Set<Long> seen, char[] s, int a, int b) {
        if (seen != null) {
            long h = TextHash.of(s, a, b);
            if (h == TextHash.EMPTY || seen.contains(h)) return true;
            if (seen.size() == MAX_PER_TEXT) return false;
            seen.add(h);
        }
        out.add(new String(s, a, b - a));
        return true;
    }

    /**
     * Where the address of a {@code mailto:} URI ({@code mailto:} in any case, then an address) in {@code s[a, b)}
     * starts, or {@code a} when the token is no such URI.
     */
    static int mailto(char[] s, int a, int b) {
        if (b - a < 10 || s[a + 6] != ':' || !regionStartsWith(s, a, b, "mailto:")) return a;
        for (int k = a + 7; k < b; k++) if (s[k] == '@') return a + 7;
        return a;
    }

    /** End of a {@code mailto:} URI's address: its query ({@code ?subject=...}) cut. */
    static int queryStart(char[] s, int a, int b) {
        for (int k = a; k < b; k++) if (s[k] == '?') return k;
        return b;
    }

    /** Adds the hash of {@code s[a, b)} unless this scan has kept it (or it is empty); {@code n < out.length}. */
    private static int addValue(char[] s, int a, int b, long[] out, int n, Seen seen) {
        // the same chars as a value this scan hashed already have its hash, kept or not: skip hashing them again
        // (a JSON result repeats its keys and many values; comparing chars beats the hash's serial multiplies)
        return seen.repeats(s, a, b, false) == NEW ? addHash(s, a, b, out, n, seen) : n;
    }

    /** True when a quote opens in {@code s[a, b)}. */
    private static boolean opensQuote(char[] s, int a, int b) {
        for (int k = a; k < b; k++) {
            char c = s[k];
            if (c == '"' || c == '`' || (c >= 128 && closingQuote(c) != 0)) return true;
        }
        return false;
    }

    /** {@link #addValue} once {@code s[a, b)} is known to be no repeat. */
    private static int addHash(char[] s, int a, int b, long[] out, int n, Seen seen) {
        long h = TextHash.of(s, a, b);
        if (h == TextHash.EMPTY || !seen.insert(h)) return n;
        if (n == seen.cap) { // a new value without room: the caller learns the text was not read to its end
            seen.overflow = true;
            return n;
        }
        out[n] = h;
        return n + 1;
    }

    /**
     * The hashes one scan has kept (per thread): linear probing, and a slot counts only when its stamp
     * is the current scan's, so starting a scan clears nothing.
     */
    private static final class Seen {
        /** Scratch for {@link #values}: the whole text's hash and one per value kept. */
        final long[] values = new long[MAX_PER_TEXT + 2];
        /** Room in the caller's array ({@code out[n, cap)}), and whether a new value found none in the last scan. */
        int cap;
        boolean overflow;
        /** The scanned text's chars (grows to the longest text scanned). */
        char[] text = new char[256];
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
                java.util.Arrays.fill(rawStamps, 0);
                stamp = 1;
            }
        }

        /** Where this scan last hashed a value of each (length, first char, last char) bucket: direct-mapped. */
        final int[] rawStart = new int[RAW_SLOTS];
        final int[] rawLen = new int[RAW_SLOTS];
        final int[] rawStamps = new int[RAW_SLOTS];
        /** The bucket's chars were read as a quoted string, so the walk has passed over them after a quote. */
        final boolean[] rawQuoted = new boolean[RAW_SLOTS];

        /**
         * {@link #REPEAT} when {@code s[a, b)} has the chars of the value this scan last hashed in its
         * bucket ({@link #REPEAT_WALKED} when those were read as a quoted string, which {@code quoted} says
         * of this one); else {@link #NEW}, and remembers it there. A bucket holds one value, so a miss only
         * costs a hash that was due anyway.
         */
        int repeats(char[] s, int a, int b, boolean quoted) {
            int len = b - a;
            int k = (((len * 31 + s[a]) * 31 + s[b - 1]) * 0x9E3779B1) >>> (32 - RAW_BITS);
            if (rawStamps[k] == stamp && rawLen[k] == len && sameChars(s, rawStart[k], a, len)) {
                if (rawQuoted[k]) return REPEAT_WALKED;
                rawQuoted[k] = quoted; // the walk passes over this one's chars before it meets them again
                return REPEAT;
            }
            rawStamps[k] = stamp;
            rawStart[k] = a;
            rawLen[k] = len;
            rawQuoted[k] = quoted;
            return NEW;
        }

        private static boolean sameChars(char[] s, int x, int y, int len) {
            if (x == y) return true;
            for (int k = 0; k < len; k++) if (s[x + k] != s[y + k]) return false;
            return true;
        }

        char[] chars(int len) {
            if (text.length < len) text = new char[Math.max(len, 2 * text.length)];
            return text;
        }

        /** The scanned text with its escapes decoded (grows to the longest text decoded). */
        char[] decodedText = new char[0];

        char[] decoded(int len) {
            if (decodedText.length < len) decodedText = new char[Math.max(len, 2 * decodedText.length)];
            return decodedText;
        }

        /** Forgets where this scan hashed values ({@link #repeats}), keeping the hashes it kept. */
        void forgetRaw() {
            java.util.Arrays.fill(rawStamps, 0);
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

    private static final int RAW_BITS = 7, RAW_SLOTS = 1 << RAW_BITS;
    /** {@link Seen#repeats} answers. */
    private static final int NEW = 0, REPEAT = 1, REPEAT_WALKED = 2;

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

    /**
     * The e-mail addresses inside a token that holds an '@' and no {@code ://}, when it is cut at {@code : ： / =}
     * ({@code to:bob@corp.example}, {@code 邮箱：bob@corp.example}, {@code bob@corp.example/ann@corp.example}): each part
     * with an '@' that qualifies is a value too, beside the whole token. The same on every side (user messages, tool
     * outputs, targets), so a user's address glued to a label is theirs and an injected one glued to a label is
     * introduced. Then, in any token without {@code ://}, each part without an '@' cut at {@code = : ： &} that
     * qualifies itself ({@code API_KEY=sk-live-4f9a8b7c6d5e}: {@code sk-live-4f9a8b7c6d5e}; {@code mode=fast}: none), so a
     * value an output glued to its key is introduced and flow(f) finds it posted alone. No allocation.
     */
    private static int addParts(char[] s, int a, int b, long[] out, int n, Seen seen, boolean at) {
        if (at && partsEnd(s, a, b) > 0) {
            for (int x = a, y; x < b && !seen.overflow; x = y + 1) {
                y = x;
                while (y < b && !partBreak(s[y])) y++;
                if (y - x < b - a && hasAt(s, x, y) && qualifies(s, x, y)) n = addValue(s, x, y, out, n, seen);
            }
        }
        if (at && indexOf(s, a, b, "://") < 0) n = addScriptSpans(s, a, b, out, n, seen);
        // session 17: a value glued to its key (API_KEY=sk-live-..., token:..., a=1&b=2), as a .env file or a log line shows
        // it: each part without an '@', cut at = : & and trimmed as a token is, that is an identifier itself. Not in a URL:
        // a target's URL keeps its query whole (an output's order number in a tracking link is no injected target)
        if (valuesEnd(s, a, b) < 0) return n;
        for (int x = a, y; x < b && !seen.overflow; x = y + 1) {
            y = x;
            while (y < b && !valueBreak(s[y])) y++;
            int pa = x, pb = y;
            while (pb > pa && trailingMark(s[pb - 1])) pb--;
            while (pa < pb && s[pa] == '.') pa++;
            if (pb - pa < b - a && !hasAt(s, pa, pb) && qualifies(s, pa, pb)) n = addValue(s, pa, pb, out, n, seen);
        }
        return n;
    }

    /**
     * The ASCII address around the '@' at {@code s[at]} of the token {@code s[a, b)}, when the token glues it to letters
     * or marks of another script than Latin ({@code 请发给bob@corp.example谢谢}, {@code почтаbob@corp.example}): its local
     * part is the run of ASCII letters, digits and {@code . _ % + -} before the '@', its domain the run of ASCII letters,
     * digits, dots and hyphens after it (trailing dots and hyphens left out), and at least one of the chars next to it
     * inside the token (after it: past a run of {@code ! ?}) is of another script (not ASCII, not Latin: Unicode's script
     * of the char), the other one too or a cut char ({@code : / = ：}) or the token's end; not in a URL ({@code ://}). As {@code (start << 32) | end}, or -1.
     * An address whose local
     * part or domain is not ASCII (an internationalised one) is not cut out: where it ends in unspaced text of its own
     * script cannot be told. No allocation.
     */
    static long scriptSpan(char[] s, int a, int b, int at) {
        int x = at;
        while (x > a && localChar(s[x - 1])) x--;
        int raw = at + 1;
        while (raw < b && domainChar(s[raw])) raw++;
        int y = raw;
        while (y > at + 1 && (s[y - 1] == '.' || s[y - 1] == '-')) y--;
        if (x == at || y == at + 1) return -1;
        int r = raw; // a '!' or '?' (full-width ones are mapped) between the address and the text after it is passed over
        while (r < b && (s[r] == '!' || s[r] == '?')) r++;
        boolean left = x > a && otherScript(s[x - 1]), right = r < b && otherScript(s[r]);
        if (!left && !right) return -1;
        if (x > a && !left && !partBreak(s[x - 1])) return -1;
        if (raw < b && !right && (r > raw || !partBreak(s[raw]))) return -1;
        return qualifies(s, x, y) ? ((long) x << 32) | y : -1;
    }

    private static boolean localChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '%'
                || c == '+' || c == '-';
    }

    private static boolean domainChar(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    }

    /** A char that is not ASCII and not of the Latin script (CJK, Cyrillic, Greek, Arabic..., their punctuation, emoji). */
    static boolean otherScript(char c) {
        return c >= 128 && Character.UnicodeScript.of(c) != Character.UnicodeScript.LATIN;
    }

    /** Adds each {@link #scriptSpan} of the token {@code s[a, b)}. */
    private static int addScriptSpans(char[] s, int a, int b, long[] out, int n, Seen seen) {
        for (int k = a; k < b && !seen.overflow; k++) {
            if (s[k] != '@') continue;
            long span = scriptSpan(s, a, b, k);
            if (span >= 0) n = addValue(s, (int) (span >>> 32), (int) span, out, n, seen);
        }
        return n;
    }

    /** 1 when {@code s[a, b)} holds a value break ({@code = : & ：}) and no {@code ://}, else -1. */
    private static int valuesEnd(char[] s, int a, int b) {
        int i = a;
        while (i < b && !valueBreak(s[i])) i++;
        if (i == b || indexOf(s, a, b, "://") >= 0) return -1;
        return 1;
    }

    private static boolean valueBreak(char c) {
        return c == ':' || c == '=' || c == '&' || c == '\uFF1A';
    }

    /**
     * True when {@code v} is an e-mail address in display-name form, {@code Bob Smith <bob@corp.example>}: a display name
     * of letters, spaces and {@code . , ' " -} (possibly empty), then the address between {@code <} and {@code >} (an '@'
     * inside, no space), and nothing after but blanks. Such a target is checked by its address alone: the name is no
     * identifier, so a look-up result's whole line copied as the target is the user's when the user wrote the address.
     * No allocation.
     */
    public static boolean displayName(CharSequence v) {
        int n = v.length();
        while (n > 0 && Character.isWhitespace(v.charAt(n - 1))) n--;
        if (n < 5 || n > MAX_QUOTED || v.charAt(n - 1) != '>') return false;
        int lt = -1;
        for (int i = 0; i < n - 1; i++) {
            char c = v.charAt(i);
            if (c == '<') { lt = i; break; }
            if (!Character.isLetter(c) && c != ' ' && c != '.' && c != ',' && c != '\'' && c != '"' && c != '-') return false;
        }
        if (lt < 0) return false;
        boolean at = false;
        for (int i = lt + 1; i < n - 1; i++) {
            char c = v.charAt(i);
            if (c == '@') at = true;
            else if (c == '<' || c == '>' || Character.isWhitespace(c)) return false;
        }
        return at;
    }

    /** The address of a {@link #displayName} value (allocates; for provenance). */
    public static String displayAddress(String v) {
        return v.substring(v.indexOf('<') + 1, v.lastIndexOf('>'));
    }

    /** 1 when {@code s[a, b)} holds a part break and no {@code ://}, else -1. */
    private static int partsEnd(char[] s, int a, int b) {
        if (indexOf(s, a, b, "://") >= 0) return -1;
        for (int i = a; i < b; i++) if (partBreak(s[i])) return 1;
        return -1;
    }

    private static boolean partBreak(char c) {
        return c == ':' || c == '/' || c == '=' || c == '\uFF1A';
    }

    private static boolean hasAt(char[] s, int a, int b) {
        for (int i = a; i < b; i++) if (s[i] == '@') return true;
        return false;
    }

    private static boolean tokenChar(char c) {
        if (TextHash.white(c)) return false;
        return switch (c) {
            case '"', '\'', '“', '”', '‘', '’', '<', '>', '(', ')', '[', ']', '{', '}', ',', ';', '|', '`', '«', '»' -> false;
            default -> true;
        };
    }

    private static boolean trailingMark(char c) {
        return c == '.' || c == ':' || c == '!' || c == '?' || c == '*';
    }

    static boolean qualifies(char[] s, int a, int b) {
        int len = b - a;
        if (len < 3) return false;
        int digits = 0, at = -1, lastDot = -1, hostDot = -1, slash = b; // a host/path's domain ends at the first '/'
        for (int i = a; i < b; i++) {
            char c = s[i];
            if (c >= '0' && c <= '9') digits++;
            else if (c == '@') at = i;
            else if (c == '.') {
                lastDot = i;
                if (slash == b) hostDot = i;
            } else if (c == '/' && slash == b) slash = i;
        }
        if (at > a && at < b - 1) return true;
        if (indexOf(s, a, b, "://") >= 0) return true;
        if (len > 4 && regionStartsWith(s, a, b, "www.")) return true;
        if (digits >= 4) return true;
        if (!Character.isLetterOrDigit(s[a])) return false;
        return domainEnd(s, a, lastDot, b) || (slash < b && domainEnd(s, a, hostDot, slash));
    }

    /** True when {@code s[dot + 1, end)} is a top-level label: 2 to 24 letters after a dot past {@code a}. */
    private static boolean domainEnd(char[] s, int a, int dot, int end) {
        if (dot <= a || end - dot - 1 < 2 || end - dot - 1 > 24) return false;
        for (int i = dot + 1; i < end; i++) if (!Character.isLetter(s[i])) return false;
        return true;
    }

    /**
     * End of a run of short groups starting at {@code a} (phone numbers, IBANs in groups of four)
     * holding at least seven digits in at least two groups, or {@code a} when none. Groups are separated
     * by one space char (a space, a no-break space, U+2007, U+202F, an em space, ...: Unicode Zs); after a first group
     * like an IBAN's ({@code DE89}, {@code de89}) by any run of white space ({@link TextHash#white}: tabs and line breaks
     * too), as invoices, PDFs and wrapped plain-text mail show IBANs. An IBAN's run goes on over a line break only after
     * a group of four, and ends where its check digits fit ({@link #ibanEnd}), so the text after a wrapped IBAN is not
     * read as part of it.
     */
    static int groupedEnd(char[] s, int a, int len) {
        int i = a;
        int groups = 0, digits = 0, end = a;
        boolean ibanLike = false, ibanStart = false;
        int wrapped = -1; // end of the IBAN's last group before the first line break its run goes on over
        while (i < len) {
            int g = i;
            while (g < len && groupChar(s[g])) g++;
            int glen = g - i;
            if (glen == 0 || glen > (groups == 0 ? 6 : 8)) break;
            int d = 0, upper = 0;
            for (int k = i; k < g; k++) {
                char c = s[k];
                if (c >= '0' && c <= '9') d++;
                else if (c >= 'A' && c <= 'Z') upper++;
            }
            if (groups == 0) {
                ibanLike = glen == 4 && upper == 2 && d == 2 && s[i] >= 'A' && s[i + 1] >= 'A';
                ibanStart = glen == 4 && d == 2 && asciiLetter(s[i]) && asciiLetter(s[i + 1]);
                if (d == 0) break; // a number starts with a digit group (or +, ( before digits)
            } else if (d == 0 && !(ibanLike && upper == glen)) {
                break; // a word after the number is not part of it
            }
            digits += d;
            groups++;
            end = g;
            int k = g;
            if (ibanStart) {
                boolean lineBreak = false;
                while (k < len && TextHash.white(s[k])) lineBreak |= lineBreak(s[k++]);
                if (lineBreak && wrapped < 0) {
                    if (glen != 4) break; // an IBAN is wrapped between groups of four
                    wrapped = g;
                }
            } else if (k < len && groupSpace(s[k])) {
                k++;
            }
            if (k > g && k < len && groupChar(s[k])) i = k;
            else break;
        }
        if (wrapped >= 0 && end > wrapped) {
            end = ibanEnd(s, a, wrapped, end);
            digits = 0;
            for (int k = a; k < end; k++) if (s[k] >= '0' && s[k] <= '9') digits++;
        }
        return groups >= 2 && digits >= 7 ? end : a;
    }

    /** True for a char that ends a line: LF, VT, FF, CR, NEL, U+2028, U+2029. */
    static boolean lineBreak(char c) {
        return (c >= '\n' && c <= '\r') || c == '\u0085' || c == '\u2028' || c == '\u2029';
    }

    /**
     * Where an IBAN run from {@code a} that goes on over a line break after {@code wrapped} ends: at the last group end
     * up to {@code end} where its letters and digits (15 to 34) are an IBAN whose check digits are right (ISO 13616: the
     * number with its first four chars moved to the end is 1 modulo 97), else at {@code wrapped}. Reads the run once.
     */
    static int ibanEnd(char[] s, int a, int wrapped, int end) {
        int best = wrapped, n = 0, head = 0, rest = 0;
        for (int k = a; k < end; k++) {
            char c = s[k];
            int v = c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'Z' ? c - 'A' + 10 : c >= 'a' && c <= 'z' ? c - 'a' + 10 : -1;
            if (v < 0) {
                if (!TextHash.white(c)) return best; // a mark an IBAN does not have
                continue;
            }
            n++;
            if (n <= 4) head = (head * (v < 10 ? 10 : 100) + v) % 97;
            else rest = (rest * (v < 10 ? 10 : 100) + v) % 97;
            boolean groupEnd = k + 1 == end || TextHash.white(s[k + 1]);
            // head is two letters and two digits: six decimal digits, and 10^6 is 27 modulo 97
            if (groupEnd && k + 1 > wrapped && n >= 15 && n <= 34 && (rest * 27 + head) % 97 == 1) best = k + 1;
        }
        return best;
    }

    /** A space char between a number's groups: a space, or another of Unicode's space separators (Zs: no-break spaces too). */
    private static boolean groupSpace(char c) {
        return c == ' ' || (c >= 128 && Character.getType(c) == Character.SPACE_SEPARATOR);
    }

    private static boolean asciiLetter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

    private static boolean groupChar(char c) {
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '+' || c == '-'
                || c == '(' || c == ')';
    }

    private static int indexOf(char[] s, int a, int b, String t) {
        outer:
        for (int i = a; i + t.length() <= b; i++) {
            for (int k = 0; k < t.length(); k++) if (s[i + k] != t.charAt(k)) continue outer;
            return i;
        }
        return -1;
    }

    private static boolean regionStartsWith(char[] s, int a, int b, String t) {
        if (b - a < t.length()) return false;
        for (int k = 0; k < t.length(); k++) if (Character.toLowerCase(s[a + k]) != t.charAt(k)) return false;
        return true;
    }
}
