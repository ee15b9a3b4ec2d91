package dev.tracegate.matchers.predicate;

import java.util.Arrays;

/**
 * An immutable, bounded set of values kept as {@link TextHash} hashes (erased subjects, granted
 * consents, values tool results introduced, values the user named, permissions), optionally with
 * the original texts for substring search. Updates return a new set; lookups do not allocate.
 * When more than {@code capacity} values are added, the oldest are dropped first.
 */
public final class ValueSet {
    /** Default bound on the number of values of one set. */
    public static final int DEFAULT_CAPACITY = 4096;
    /** The empty set. */
    public static final ValueSet EMPTY = new ValueSet(new long[0], new long[0], new String[0], DEFAULT_CAPACITY);

    private final long[] sorted;
    private final long[] order;
    private final String[] texts;
    private final int capacity;
    /** The kept texts' {@link MentionIndex}, built when first asked for (a racy but safe cache: the index is immutable). */
    private MentionIndex mentions;

    private ValueSet(long[] sorted, long[] order, String[] texts, int capacity) {
        this.sorted = sorted;
        this.order = order;
        this.texts = texts;
        this.capacity = capacity;
    }

    /** An empty set bounded to {@code capacity} values. */
    public static ValueSet empty(int capacity) {
        if (capacity < 1) throw new IllegalArgumentException("capacity must be at least 1");
        return capacity == DEFAULT_CAPACITY ? EMPTY : new ValueSet(new long[0], new long[0], new String[0], capacity);
    }

    /** A set of the given texts. */
    public static ValueSet of(String... values) {
        ValueSet s = EMPTY;
        for (String v : values) s = s.withText(v);
        return s;
    }

    public int size() { return sorted.length; }

    public boolean isEmpty() { return sorted.length == 0; }

    /** True when a value with this hash is in the set. */
    public boolean contains(long hash) { return hash != TextHash.EMPTY && Arrays.binarySearch(sorted, hash) >= 0; }

    /** True when {@code value} (normalised as {@link TextHash} does) is in the set. */
    public boolean contains(CharSequence value) { return contains(TextHash.of(value)); }

    /** Kept texts (only those added with {@link #withText}), oldest first; do not modify. */
    String[] texts() { return texts; }

    /** The index that finds the kept texts inside longer texts (built at the first call, then kept with this set). */
    MentionIndex mentions() {
        MentionIndex m = mentions;
        if (m == null) mentions = m = texts.length == 0 ? MentionIndex.EMPTY : new MentionIndex(Arrays.asList(texts));
        return m;
    }

    /** Number of kept texts. */
    public int textCount() { return texts.length; }

    /** The i-th kept text. */
    public String text(int i) { return texts[i]; }

    /** This set plus {@code value}, keeping its text. */
    public ValueSet withText(String value) {
        long h = TextHash.of(value);
        if (h == TextHash.EMPTY || contains(h)) return this;
        ValueSet s = withHashes(new long[] {h}, 1);
        String[] t = Arrays.copyOf(texts, texts.length + 1);
        t[texts.length] = value.trim();
        if (t.length > capacity) t = Arrays.copyOfRange(t, t.length - capacity, t.length);
        return new ValueSet(s.sorted, s.order, t, capacity);
    }

    /** This set plus the first {@code n} hashes of {@code hashes} (EMPTY ones ignored). */
    public ValueSet withHashes(long[] hashes, int n) {
        int first = 0; // values already present (the steady case: a tool result seen before) allocate nothing
        while (first < n && (hashes[first] == TextHash.EMPTY || contains(hashes[first]))) first++;
        if (first == n) return this;
        long[] add = new long[n];
        int k = 0;
        outer:
        for (int i = first; i < n; i++) {
            long h = hashes[i];
            if (h == TextHash.EMPTY || contains(h)) continue;
            for (int j = 0; j < k; j++) if (add[j] == h) continue outer;
            add[k++] = h;
        }
        if (k == 0) return this;
        long[] newOrder = new long[order.length + k];
        System.arraycopy(order, 0, newOrder, 0, order.length);
        System.arraycopy(add, 0, newOrder, order.length, k);
        if (newOrder.length > capacity) newOrder = Arrays.copyOfRange(newOrder, newOrder.length - capacity, newOrder.length);
        long[] newSorted = newOrder.clone();
        Arrays.sort(newSorted);
        return new ValueSet(newSorted, newOrder, texts, capacity);
    }

    /** This set without the value of hash {@code h} (its text, if kept, is dropped too). */
    public ValueSet without(long h) {
        if (!contains(h)) return this;
        long[] o = new long[order.length - 1];
        int k = 0;
        for (long x : order) if (x != h) o[k++] = x;
        long[] s = o.clone();
        Arrays.sort(s);
        String[] t = texts;
        int drop = -1;
        for (int i = 0; i < texts.length; i++) if (TextHash.of(texts[i]) == h) drop = i;
        if (drop >= 0) {
            t = new String[texts.length - 1];
            System.arraycopy(texts, 0, t, 0, drop);
            System.arraycopy(texts, drop + 1, t, drop, texts.length - drop - 1);
        }
        return new ValueSet(s, o, t, capacity);
    }

    /** The hash added first of those kept (the next to be dropped), or {@link TextHash#EMPTY} when empty. */
    public long oldest() { return order.length == 0 ? TextHash.EMPTY : order[0]; }

    /** Hashes in insertion order (for serialisation); a copy. */
    public long[] hashes() { return order.clone(); }

    /** Rebuilds a set from {@link #hashes()} and kept texts. */
    public static ValueSet restore(long[] hashes, String[] texts, int capacity) {
        long[] s = hashes.clone();
        Arrays.sort(s);
        return new ValueSet(s, hashes.clone(), texts.clone(), capacity);
    }

    @Override public boolean equals(Object o) {
        return o instanceof ValueSet v && Arrays.equals(v.sorted, sorted) && Arrays.equals(v.texts, texts);
    }

    @Override public int hashCode() { return Arrays.hashCode(sorted); }

    @Override public String toString() {
        return texts.length > 0 ? "ValueSet" + Arrays.toString(texts) : "ValueSet(" + sorted.length + " values)";
    }
}
