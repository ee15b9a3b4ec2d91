package dev.tracegate.matchers.predicate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds whether a text names any of a set of words (erased data subjects) as a whole token, in one pass over the text
 * whatever the number of words (an Aho-Corasick automaton in primitive arrays). Built once per change of the set (an
 * erasure: rare); immutable, so any thread may search it; a search does not allocate (the caller lends the scratch).
 *
 * <p>Text and words compare as {@link TextHash} compares values: case-folded (as
 * {@link String#regionMatches(boolean, int, String, int, int)} ignores case), ignoring white space, invisible format
 * chars (Unicode Cf) and the marks {@code - ( )} ({@link #fold}). So after erasing {@code DE89370400440532013000},
 * {@code DE89 3704 0044 0532 0130 00} names it, and after erasing {@code C-77}, {@code c77} and {@code C 77} do.
 *
 * <p>A whole token: an occurrence of {@code C7} inside {@code C70}, or of {@code ada@example.com} inside
 * {@code xada@example.com} or {@code ada@example.com.au}, names another subject, not this one. An occurrence starts and
 * ends with a char the word spells (never with an ignored one), and counts when the text around it does not continue
 * it ({@link #bounded}): a word that begins (ends) with a letter or digit must not be preceded (followed) by a letter,
 * digit or combining mark, nor by one of {@code . _ +} that the word itself contains (any of them for an e-mail address,
 * whose local part and domain they join) with a letter or digit beyond it; a run of the ignored marks {@code - ( )} and
 * format chars between the two (no white space) does not separate them, since the word would compare equal with them
 * left out ({@code C-771} and {@code C7(7)1} spell {@code c771}). White space separates. Letters of scripts written
 * without spaces between words (Han, kana, Hangul, Thai, Lao, Khmer, Myanmar) never continue a token, since a name
 * there is followed by particles or other words directly ({@code 김민수가}, {@code 王伟的订单}).
 *
 * <p>When a word is an e-mail address, a text is also read with each address in it written as its mailbox
 * ({@link #mailboxes}: a sub-address tag and needless quotes left out), so {@code ada+promo@example.com} and
 * {@code "ada"@example.com} name {@code ada@example.com}.
 */
final class MentionIndex {
    /** {@link #fold} of each ASCII char (before {@link #EMPTY}: an index reads it when built). */
    private static final int[] FOLD_ASCII = new int[128];

    static {
        for (char c = 0; c < 128; c++) FOLD_ASCII[c] = foldSlow(c);
    }

    /** The index of no word. */
    static final MentionIndex EMPTY = new MentionIndex(List.of());

    /** Per state: its transitions as the range {@code [first[s], first[s + 1])} of {@code keys} (sorted) and {@code targets}. */
    private final int[] first;
    private final char[] keys;
    private final int[] targets;
    /** Per state: the state of its longest proper suffix that is a prefix of some word. */
    private final int[] fail;
    /** Per state: a word ends here or at one of its suffixes. */
    private final boolean[] match;
    /** Per state: the length of the word ending here (its depth in the trie). */
    private final int[] depth;
    /** Per state where a word ends: the marks that join it to what follows or precedes ({@link #joinsOf}); else -1. */
    private final byte[] joins;
    /** Per state: the state of its longest proper suffix where a word ends, or -1. */
    private final int[] shorter;
    /** Per char below 128: the root's successor, or 0 (the root itself): most text is ASCII and misses every word. */
    private final int[] rootAscii = new int[128];
    /** The scratch a search needs ({@link #scratch}): a power of two, at least the longest word's length as compared. */
    private final int ring;
    /** Some word is an e-mail address: a text is also read with its addresses' mailboxes ({@link #mailboxes}). */
    private final boolean mail;

    MentionIndex(List<String> words) {
        // the trie, while building: per state a growing list of (char, target)
        List<char[]> keyLists = new ArrayList<>();
        List<int[]> targetLists = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        List<Byte> ends = new ArrayList<>();   // per state: the word's joining marks, or -1 when no word ends there
        keyLists.add(new char[2]);
        targetLists.add(new int[2]);
        sizes.add(0);
        ends.add((byte) -1);
        int longest = 1;
        boolean anyMail = false;
        for (String word : words) {
            if (word == null) continue;
            String w = normal(word);
            if (w.isEmpty()) continue;
            anyMail |= w.indexOf('@') > 0;
            longest = Math.max(longest, w.length());
            int s = 0;
            for (int i = 0; i < w.length(); i++) {
                char c = w.charAt(i);
                int next = find(keyLists.get(s), targetLists.get(s), sizes.get(s), c);
                if (next < 0) {
                    next = keyLists.size();
                    keyLists.add(new char[2]);
                    targetLists.add(new int[2]);
                    sizes.add(0);
                    ends.add((byte) -1);
                    int n = sizes.get(s);
                    if (n == keyLists.get(s).length) {
                        keyLists.set(s, Arrays.copyOf(keyLists.get(s), n * 2));
                        targetLists.set(s, Arrays.copyOf(targetLists.get(s), n * 2));
                    }
                    keyLists.get(s)[n] = c;
                    targetLists.get(s)[n] = next;
                    sizes.set(s, n + 1);
                }
                s = next;
            }
            ends.set(s, (byte) joinsOf(w));   // the same word as compared has the same marks: folding keeps them
        }
        this.mail = anyMail;
        this.ring = Integer.highestOneBit(longest) == longest ? longest : Integer.highestOneBit(longest) << 1;
        int states = keyLists.size();
        this.first = new int[states + 1];
        for (int s = 0; s < states; s++) first[s + 1] = first[s] + sizes.get(s);
        this.keys = new char[first[states]];
        this.targets = new int[first[states]];
        for (int s = 0; s < states; s++) {
            int n = sizes.get(s);
            Integer[] order = new Integer[n];
            for (int i = 0; i < n; i++) order[i] = i;
            char[] ks = keyLists.get(s);
            Arrays.sort(order, (a, b) -> Character.compare(ks[a], ks[b]));
            for (int i = 0; i < n; i++) {
                keys[first[s] + i] = ks[order[i]];
                targets[first[s] + i] = targetLists.get(s)[order[i]];
            }
        }
        this.fail = new int[states];
        this.match = new boolean[states];
        this.depth = new int[states];
        this.joins = new byte[states];
        this.shorter = new int[states];
        for (int s = 0; s < states; s++) {
            joins[s] = ends.get(s);
            match[s] = joins[s] >= 0;
            shorter[s] = -1;
        }
        // breadth first: a state's failure link is found from its parent's, which is shallower
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int i = first[0]; i < first[1]; i++) {
            fail[targets[i]] = 0;
            depth[targets[i]] = 1;
            queue.add(targets[i]);
            if (keys[i] < 128) rootAscii[keys[i]] = targets[i];
        }
        while (!queue.isEmpty()) {
            int s = queue.poll();
            for (int i = first[s]; i < first[s + 1]; i++) {
                int t = targets[i];
                char c = keys[i];
                int f = fail[s];
                int to;
                while ((to = step(f, c)) < 0 && f != 0) f = fail[f];
                fail[t] = to >= 0 && to != t ? to : 0;
                match[t] |= match[fail[t]];
                depth[t] = depth[s] + 1;
                shorter[t] = joins[fail[t]] >= 0 ? fail[t] : shorter[fail[t]];
                queue.add(t);
            }
        }
    }

    /**
     * The char as the search compares it, or -1 for a char it leaves out: white space (a space, a line break, a tab, a
     * no-break space), invisible format chars (Unicode Cf: U+200B, U+00AD, ...) and the marks {@code - ( )}, as
     * {@link TextHash} leaves them out (and every other white space char besides); else case-folded as
     * {@code regionMatches(true, ...)} equates chars whose upper, then lower, case agree.
     */
    static int fold(char c) {
        return c < 128 ? FOLD_ASCII[c] : foldSlow(c);
    }

    private static int foldSlow(char c) {
        if (TextHash.white(c) || transparent(c)) return -1;
        char m = TextHash.compat(c); // as TextHash reads it: the ASCII char NFKC or IDNA makes of it
        if (m != 0) return fold(m);
        return Character.toLowerCase(Character.toUpperCase(c));
    }

    /**
     * True for the chars left out that do not separate tokens: {@code - ( )} and invisible format chars (a word with them
     * left out is the same word: {@code C-771} spells {@code c771}).
     */
    static boolean transparent(char c) {
        return c == '-' || c == '(' || c == ')' || (c >= 128 && Character.getType(c) == Character.FORMAT);
    }

    /** {@code word} as the search compares it: its chars {@link #fold}ed, those left out dropped (empty: it names nothing). */
    static String normal(String word) {
        StringBuilder b = new StringBuilder(word.length());
        for (int i = 0; i < word.length(); i++) {
            int f = fold(word.charAt(i));
            if (f >= 0) b.append((char) f);
        }
        return b.toString();
    }

    private static final int JOIN_DOT = 1, JOIN_UNDERSCORE = 4, JOIN_PLUS = 8;

    /**
     * The marks that join {@code word} (as compared: {@link #normal}) to adjacent text: those of {@code . _ +} it contains,
     * all three for an e-mail address ({@code -} always joins: {@link #bounded}).
     */
    static int joinsOf(String word) {
        if (word.indexOf('@') >= 0) return JOIN_DOT | JOIN_UNDERSCORE | JOIN_PLUS;
        int m = 0;
        for (int i = 0; i < word.length(); i++) m |= joinBit(word.charAt(i));
        return m;
    }

    private static int joinBit(int c) {
        return switch (c) {
            case '.' -> JOIN_DOT;
            case '_' -> JOIN_UNDERSCORE;
            case '+' -> JOIN_PLUS;
            default -> 0;
        };
    }

    /**
     * True when code point {@code c} continues a token: a letter, digit or combining mark, except letters of scripts
     * written without spaces between words.
     */
    static boolean tokenChar(int c) {
        if (c < 128) return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        int type = Character.getType(c);
        if (type == Character.NON_SPACING_MARK || type == Character.COMBINING_SPACING_MARK || type == Character.ENCLOSING_MARK) return true;
        if (!Character.isLetterOrDigit(c)) return false;
        if (Character.isIdeographic(c)) return false;
        return switch (Character.UnicodeScript.of(c)) {
            case HAN, HIRAGANA, KATAKANA, HANGUL, THAI, LAO, KHMER, MYANMAR -> false;
            default -> true;
        };
    }

    /**
     * True when the occurrence {@code [start, end)} of a word whose joining marks are {@code joins} is a whole token of
     * {@code text}: not continued before or after (see the class comment). Reads the chars around it up to the first
     * that is not {@link #transparent}, and one or two beyond.
     */
    static boolean bounded(CharSequence text, int start, int end, int joins) {
        if (start > 0 && tokenChar(Character.codePointAt(text, start))) {
            int p = start;
            while (p > 0 && transparent(text.charAt(p - 1))) p--;
            if (p > 0) {
                int c = Character.codePointBefore(text, p);
                if (tokenChar(c)) return false;
                if ((joinBit(c) & joins) != 0 && p > 1 && tokenChar(Character.codePointBefore(text, p - 1))) return false;
            }
        }
        int n = text.length();
        if (end < n && tokenChar(Character.codePointBefore(text, end))) {
            int q = end;
            while (q < n && transparent(text.charAt(q))) q++;
            if (q < n) {
                int c = Character.codePointAt(text, q);
                if (tokenChar(c)) return false;
                if ((joinBit(c) & joins) != 0 && q + 1 < n && tokenChar(Character.codePointAt(text, q + 1))) return false;
            }
        }
        return true;
    }

    private static int find(char[] ks, int[] ts, int n, char c) {
        for (int i = 0; i < n; i++) if (ks[i] == c) return ts[i];
        return -1;
    }

    /** The goto transition of state {@code s} on {@code c}, or -1. */
    private int step(int s, char c) {
        if (s == 0 && c < 128) {
            int t = rootAscii[c];
            return t == 0 ? -1 : t;
        }
        int lo = first[s], hi = first[s + 1] - 1;
        while (lo <= hi) {
            int mid = (lo + hi) >>> 1;
            char k = keys[mid];
            if (k < c) lo = mid + 1;
            else if (k > c) hi = mid - 1;
            else return targets[mid];
        }
        return -1;
    }

    /** True when no word was given. */
    boolean isEmpty() { return first.length == 2 && first[1] == 0; }

    /** The length of the scratch {@link #foundIn(CharSequence, int[])} needs: a power of two. */
    int scratch() { return ring; }

    /** {@link #foundIn(CharSequence, int[])} with scratch of its own (allocates: for tests and one-off checks). */
    boolean foundIn(CharSequence text) {
        return foundIn(text, new int[ring]);
    }

    /**
     * True when {@code text} names one of the words as a whole token (see the class comment). {@code scratch} (at least
     * {@link #scratch()} long; its contents do not matter) keeps where the last chars compared are in {@code text}, so
     * that an occurrence's start is known when its end is found. Linear in the text: one step of the automaton per char
     * compared, and per word found at a place (rare) its boundary check.
     */
    boolean foundIn(CharSequence text, int[] scratch) {
        if (text == null || isEmpty()) return false;
        if (scan(text, scratch)) return true;
        // an e-mail address written with a sub-address tag or a quoted local part: the same mailbox (trial47 06)
        CharSequence boxes = mail ? mailboxes(text) : null;
        return boxes != null && scan(boxes, scratch);
    }

    /** Whether a char may be in a local part as {@link #mailboxes} reads it: an ASCII letter or digit, {@code . _ % + -}. */
    private static boolean localChar(char c) {
        return c < 128 && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c == '.' || c == '_' || c == '%' || c == '+' || c == '-');
    }

    /**
     * {@code text} with each e-mail address written as its mailbox, or null when no address in it is written otherwise.
     * Before each {@code @}: a quoted local part whose quotes are needless ({@code "ada"}: between the two {@code "},
     * one or more chars a local part may hold unquoted, {@link #localChar}) loses its quotes, the same address by RFC
     * 5321; and a local part with a {@code +} (RFC 5233 sub-addressing, {@code ada+promo}, also {@code ada+}) loses the
     * first {@code +} and what follows it up to the {@code @}: the mailbox that Gmail, Outlook, Fastmail, iCloud and most
     * mail servers deliver such an address to. So {@code ada+promo@example.com} and {@code "ada"@example.com} read
     * {@code ada@example.com}. Not read so: other quoted forms ({@code "ada lovelace"@...}, escapes), a tag after another
     * delimiter ({@code ada-promo@}, which some servers use; it is another local part here) and a full-width {@code ＋}.
     * Allocates only for a text that has such an address; linear in the text.
     */
    static CharSequence mailboxes(CharSequence text) {
        StringBuilder b = null;
        int copied = 0;
        int n = text.length();
        for (int at = 1; at < n; at++) {
            if (text.charAt(at) != '@') continue;
            int start, end;   // the local part's chars, quotes left out
            boolean quoted = false;
            if (text.charAt(at - 1) == '"') {
                end = at - 1;
                start = end;
                while (start > 0 && localChar(text.charAt(start - 1))) start--;
                if (start == end || start == 0 || text.charAt(start - 1) != '"') continue;   // not a needless quote
                quoted = true;
            } else {
                end = at;
                start = end;
                while (start > 0 && localChar(text.charAt(start - 1))) start--;
                if (start == end) continue;
            }
            int plus = -1;
            for (int i = start; i < end; i++) {
                if (text.charAt(i) == '+') {
                    plus = i;
                    break;
                }
            }
            if (!quoted && plus < 0) continue;
            if (quoted && start - 1 < copied || !quoted && start < copied) continue;   // overlaps one already rewritten
            if (b == null) b = new StringBuilder(n);
            b.append(text, copied, quoted ? start - 1 : start);
            b.append(text, start, plus >= 0 ? plus : end);
            copied = at;
        }
        if (b == null) return null;
        b.append(text, copied, n);
        return b;
    }

    private boolean scan(CharSequence text, int[] scratch) {
        int mask = ring - 1;
        int s = 0, k = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            int f = fold(text.charAt(i));
            if (f < 0) continue;   // left out: white space, - ( ), a format char
            char c = (char) f;
            scratch[k & mask] = i;
            int t;
            while ((t = step(s, c)) < 0 && s != 0) s = fail[s];
            s = t < 0 ? 0 : t;
            if (match[s]) {   // a word ends at i: rare, so its boundaries are checked only then
                for (int w = joins[s] >= 0 ? s : shorter[s]; w >= 0; w = shorter[w]) {
                    if (bounded(text, scratch[(k + 1 - depth[w]) & mask], i + 1, joins[w])) return true;
                }
            }
            k++;
        }
        return false;
    }
}
