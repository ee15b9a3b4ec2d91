package dev.tracegate.matchers.predicate;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Finds whether a text contains any of a set of words, ignoring case as {@link String#regionMatches(boolean, int, String, int, int)}
 * does, in one pass over the text whatever the number of words (an Aho-Corasick automaton in primitive arrays). Built once
 * per change of the set (an erasure: rare); immutable, so any thread may search it; a search does not allocate.
 */
final class MentionIndex {
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
    /** Per char below 128: the root's successor, or 0 (the root itself): most text is ASCII and misses every word. */
    private final int[] rootAscii = new int[128];

    MentionIndex(List<String> words) {
        // the trie, while building: per state a growing list of (char, target)
        List<char[]> keyLists = new ArrayList<>();
        List<int[]> targetLists = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        List<Boolean> ends = new ArrayList<>();
        keyLists.add(new char[2]);
        targetLists.add(new int[2]);
        sizes.add(0);
        ends.add(false);
        for (String w : words) {
            if (w == null || w.isEmpty()) continue;
            int s = 0;
            for (int i = 0; i < w.length(); i++) {
                char c = fold(w.charAt(i));
                int next = find(keyLists.get(s), targetLists.get(s), sizes.get(s), c);
                if (next < 0) {
                    next = keyLists.size();
                    keyLists.add(new char[2]);
                    targetLists.add(new int[2]);
                    sizes.add(0);
                    ends.add(false);
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
            ends.set(s, true);
        }
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
        for (int s = 0; s < states; s++) match[s] = ends.get(s);
        // breadth first: a state's failure link is found from its parent's, which is shallower
        ArrayDeque<Integer> queue = new ArrayDeque<>();
        for (int i = first[0]; i < first[1]; i++) {
            fail[targets[i]] = 0;
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
                queue.add(t);
            }
        }
    }

    /** The char as the search compares it: {@code regionMatches(true, ...)} equates chars whose upper, then lower, case agree. */
    static char fold(char c) {
        if (c < 128) return c >= 'A' && c <= 'Z' ? (char) (c + 32) : c;
        return Character.toLowerCase(Character.toUpperCase(c));
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

    /** True when {@code text} contains one of the words, case ignored. */
    boolean foundIn(CharSequence text) {
        if (text == null || isEmpty()) return false;
        int s = 0;
        for (int i = 0, n = text.length(); i < n; i++) {
            char c = fold(text.charAt(i));
            int t;
            while ((t = step(s, c)) < 0 && s != 0) s = fail[s];
            s = t < 0 ? 0 : t;
            if (match[s]) return true;
        }
        return false;
    }
}
