package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.Dfa;

import java.util.ArrayList;
import java.util.List;

/**
 * The monitor's hot-path form of a contract set's automata, built once when the set is compiled and
 * shared read-only by all threads.
 *
 * <p>Packed state: a session's automaton states are kept packed in a few longs. Formula {@code f}
 * owns a field of {@code k_f + b_f} bits in one long (fields never straddle two longs and never use
 * bit 63): its low {@code k_f} bits are left zero in the state and receive the formula's letter
 * during a step, its high {@code b_f} bits hold the state. OR-ing the packed state with the packed
 * letters therefore puts {@code (s << k_f) | letter}, the formula's row and column in its transition
 * table, in that field: one shift and mask per formula finds the transition.
 *
 * <p>Letters: for each byte of the valuation that holds atoms some formula reads, and each packed
 * long those atoms feed, a table of 256 longs maps the byte's value to the letter bits it sets (an
 * atom read by several formulas sets a bit in each). OR-ing the entries of all such bytes yields
 * every formula's letter at once: one load per byte instead of one shift and mask per atom and
 * formula.
 *
 * <p>Transitions: entry {@code flat[base_f + ((s << k_f) | letter)]} is the successor of state
 * {@code s}, with bit 31 ({@link #FRESH}) set when the successor is permanently violated and
 * {@code s} is not. Permanent violation is absorbing, so a step freshly makes some contract IDLE or
 * FAIL only if some formula's entry carries the flag. Automata stored as decision diagrams (more than
 * {@link Dfa#TABLE_MAX_ATOMS} atoms) and tables wider than {@link #MAX_FIELD_BITS} get no letter bits and base -1: the monitor steps them with
 * {@link Dfa#step} and packs the result like the others.
 */
final class FlatTransitions {
    /** Flag bit of a transition entry: the step makes the formula permanently violated. */
    static final int FRESH = 1 << 31;
    /** Mask of the successor state in a transition entry. */
    static final int STATE = ~FRESH;
    /** Widest group of fields whose transitions are tabulated jointly. */
    static final int MAX_GROUP_BITS = 11;
    /** Widest field of one tabulated formula; wider ones (huge automata) are stepped by {@link Dfa#step}. */
    static final int MAX_FIELD_BITS = 24;
    /** Bound on the joint tables' total size, in entries (4 bytes each), per packed long of table formulas. */
    static final int GROUP_BUDGET = 1 << 13;

    /**
     * Per formula: bits 32-37 field offset, 38-43 field width, 44-49 state offset (field offset +
     * letter width), 50-63 packed long.
     */
    final long[] layout;
    /**
     * Per group of formulas stepped by one lookup: bits 0-31 base of its table in {@link #flat}, or
     * {@code -1 - f} for a decision-diagram formula {@code f} (a group of its own), 32-37 offset of
     * the group's bits, 38-43 their width, 50-63 packed long.
     */
    final long[] groups;
    /** Number of longs of a packed state (at least 1). */
    final int packedWords;
    /** Joint transition tables of all groups. */
    final int[] flat;
    /** Per gather entry {@code e}: the valuation word ({@code source[e] >>> 6}) and shift of its byte ({@code source[e] & 63}). */
    final int[] source;
    /** Per gather entry {@code e}: the packed long it feeds. */
    final int[] target;
    /**
     * Per gather entry {@code e}: {@code bytes[e << 8 | v]} are the letter bits set by byte value {@code v}
     * (zeros for the padding entries of {@link #padSource}).
     */
    final long[] bytes;
    /**
     * Whether the packed state is one long and every group is tabulated, so that {@link #stepWord}
     * steps the whole set (no decision-diagram automaton).
     */
    final boolean oneWord;
    /**
     * For {@link #stepWord}: {@link #source} padded to at least four entries; a padding entry reads
     * bits 0-7 of valuation word 0 through a table of zeros at the end of {@link #bytes}.
     */
    final int[] padSource;
    /**
     * For {@link #stepWord}, per group {@code g} (padded to at least four groups): {@code lookup[3g]}
     * base of its table in {@link #flat}, {@code lookup[3g + 1]} offset of its bits in the packed
     * long, {@code lookup[3g + 2]} their mask. A padding group has mask 0 and looks up the last
     * entry of {@link #flat}, which is 0.
     */
    final int[] lookup;

    /**
     * Whether the packed state is several longs and every group is tabulated, so that
     * {@link #stepWords} steps the whole set (no decision-diagram automaton).
     */
    final boolean manyWords;
    /**
     * For {@link #stepWords}, per packed long {@code w}: the end (exclusive) of its gather entries
     * (those of long {@code w} start where those of {@code w - 1} end; entries are ordered by long).
     */
    final int[] gatherEnd;
    /** For {@link #stepWords}, per packed long {@code w}: the end (exclusive) in {@link #descriptors} of its groups. */
    final int[] groupEnd;
    /**
     * For {@link #stepWords}, per group (in order of packed long): bits 0-31 base of its table in
     * {@link #flat}, 32-37 offset of its bits in the packed long, 40-63 their mask; one load per group.
     */
    final long[] descriptors;

    FlatTransitions(List<Dfa> dfas, int[][] atomIndex, boolean[][] pv, int valuationWords) {
        int n = dfas.size();
        int[] k = new int[n];
        int[] width = new int[n];
        boolean[] tabulated = new boolean[n];
        for (int f = 0; f < n; f++) {
            Dfa d = dfas.get(f);
            int b = d.stateCount() <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(d.stateCount() - 1);
            tabulated[f] = d.isTable() && d.atoms().size() + b <= MAX_FIELD_BITS;
            k[f] = tabulated[f] ? d.atoms().size() : 0;
            width[f] = k[f] + b;
        }
        List<List<List<Integer>>> chunks = bins(tabulated, width, atomIndex);
        List<List<Integer>> bins = new ArrayList<>();
        java.util.Set<List<Integer>> opening = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (List<List<Integer>> chunk : chunks) {
            if (!chunk.isEmpty() && !bins.isEmpty()) opening.add(chunk.get(0));
            bins.addAll(chunk);
        }
        layout = new long[n];
        groups = new long[bins.size()];
        int total = 0;
        int word = 0;
        int bit = 0;
        for (int g = 0; g < bins.size(); g++) {
            List<Integer> bin = bins.get(g);
            int w = 0;
            for (int f : bin) w += width[f];
            if (bit + w > 63 || (opening.contains(bin) && bit > 0)) {
                word++;
                bit = 0;
            }
            if (word >= 1 << 14) throw new IllegalArgumentException("contract set too large to pack: " + n + " formulas");
            int lo = bit;
            for (int f : bin) {
                layout[f] = (long) bit << 32 | (long) width[f] << 38 | (long) (bit + k[f]) << 44 | (long) word << 50;
                bit += width[f];
            }
            int base;
            if (tabulated[bin.get(0)]) {
                base = total;
                total = Math.addExact(total, 1 << w);
            } else {
                base = -1 - bin.get(0);
            }
            groups[g] = (base & 0xFFFFFFFFL) | (long) lo << 32 | (long) w << 38 | (long) word << 50;
        }
        packedWords = word + 1;
        flat = new int[total + 1];   // the last entry, 0, is the padding groups' table (see lookup)
        for (int g = 0; g < bins.size(); g++) {
            int base = (int) groups[g];
            if (base < 0) continue;
            fill(flat, base, (int) (groups[g] >>> 32) & 63, bins.get(g), layout, width, k, dfas, pv);
        }
        // feeds[g * packedWords + w]: the letter bits of packed long w that global atom g sets.
        long[] feeds = new long[valuationWords * 64 * packedWords];
        for (int f = 0; f < n; f++) {
            for (int j = 0; j < k[f]; j++) feeds[atomIndex[f][j] * packedWords + word(layout[f])] |= 1L << (fieldShift(layout[f]) + j);
        }
        int most = valuationWords * 8 * packedWords;
        int[] src = new int[most];
        int[] dst = new int[most];
        long[] tables = new long[0];
        int entries = 0;
        // Entries in order of the packed long they feed (then of valuation byte), so that each long's
        // letters are a contiguous range for stepWords.
        for (int w = 0; w < packedWords; w++) {
            for (int b = 0; b < valuationWords * 8; b++) {
                long any = 0;
                for (int i = 0; i < 8; i++) any |= feeds[(b * 8 + i) * packedWords + w];
                if (any == 0) continue;
                src[entries] = (b >>> 3) << 6 | (b & 7) * 8;
                dst[entries] = w;
                tables = java.util.Arrays.copyOf(tables, (entries + 1) << 8);
                for (int v = 1; v < 256; v++) {
                    long bits = 0;
                    for (int i = 0; i < 8; i++) if ((v >>> i & 1) != 0) bits |= feeds[(b * 8 + i) * packedWords + w];
                    tables[entries << 8 | v] = bits;
                }
                entries++;
            }
        }
        source = java.util.Arrays.copyOf(src, entries);
        target = java.util.Arrays.copyOf(dst, entries);
        bytes = java.util.Arrays.copyOf(tables, Math.max(4, entries) << 8);
        padSource = java.util.Arrays.copyOf(source, Math.max(4, entries));
        boolean tablesOnly = true;
        lookup = new int[3 * Math.max(4, groups.length)];
        for (int g = 0; g < lookup.length / 3; g++) {
            if (g >= groups.length) {
                lookup[3 * g] = total;
                continue;
            }
            tablesOnly &= (int) groups[g] >= 0;
            lookup[3 * g] = (int) groups[g];
            lookup[3 * g + 1] = (int) (groups[g] >>> 32) & 63;
            lookup[3 * g + 2] = (1 << ((int) (groups[g] >>> 38) & 63)) - 1;
        }
        oneWord = packedWords == 1 && tablesOnly;
        manyWords = packedWords > 1 && tablesOnly;
        gatherEnd = new int[packedWords];
        for (int e = 0; e < entries; e++) gatherEnd[target[e]] = e + 1;
        for (int w = 1; w < packedWords; w++) gatherEnd[w] = Math.max(gatherEnd[w], gatherEnd[w - 1]);
        groupEnd = new int[packedWords];
        descriptors = new long[groups.length];
        for (int g = 0; g < groups.length; g++) {
            groupEnd[word(groups[g])] = g + 1;
            descriptors[g] = (groups[g] & 0xFFFFFFFFL) | (groups[g] >>> 32 & 63) << 32 | fieldMask(groups[g]) << 40;
        }
        for (int w = 1; w < packedWords; w++) groupEnd[w] = Math.max(groupEnd[w], groupEnd[w - 1]);
    }

    /** Marks a joint entry no packed state reads while the table is filled (a valid entry uses bits below 25 and {@link #FRESH}). */
    private static final int UNREAD = 1 << 30;

    /**
     * Fills the joint table of one group at {@code flat[base ...]}: the entry of {@code x} is the OR of each formula's
     * own entry for its field of {@code x} (successor state at its place, {@link #FRESH} when the step violates it), and
     * 0 when a field's state part names no state of its automaton (no packed state has it: never read). The fields of
     * a group lie side by side from {@code lo} in the bin's order, so the table is built formula by formula: the entries
     * for the fields placed so far are copied once per value of the next field and OR-ed with its entry, one OR per
     * entry instead of a decode per formula per entry (the table is built while the agent starts, in the interpreter).
     */
    private static void fill(int[] flat, int base, int lo, List<Integer> bin, long[] layout, int[] width, int[] k,
                             List<Dfa> dfas, boolean[][] pv) {
        int placed = 0;   // bits of the fields already in the table
        for (int f : bin) {
            int at = fieldShift(layout[f]) - lo;
            if (at != placed) throw new IllegalStateException("group fields not side by side: " + at + " after " + placed + " bits");
            int wf = width[f];
            int kf = k[f];
            Dfa d = dfas.get(f);
            boolean[] fresh = pv[f];
            int states = d.stateCount();
            int letters = (1 << kf) - 1;
            int size = 1 << placed;
            for (int v = (1 << wf) - 1; v >= 0; v--) {   // downwards: v = 0 writes over the entries read for every v
                int s = v >>> kf;
                int own;
                if (s >= states) {
                    own = UNREAD;
                } else {
                    int t = d.next(s, v & letters);
                    own = t << (at + kf);
                    if (fresh[t] && !fresh[s]) own |= FRESH;
                }
                int to = base + (v << placed);
                if (placed == 0) {
                    flat[to] = own;
                } else {
                    for (int x = 0; x < size; x++) flat[to + x] = flat[base + x] | own;
                }
            }
            placed += wf;
        }
        for (int x = 0, end = 1 << placed; x < end; x++) {
            if ((flat[base + x] & UNREAD) != 0) flat[base + x] = 0;
        }
    }

    static int fieldShift(long layout) { return (int) (layout >>> 32) & 63; }

    static long fieldMask(long layout) { return (1L << ((int) (layout >>> 38) & 63)) - 1; }

    static int stateShift(long layout) { return (int) (layout >>> 44) & 63; }

    static int word(long layout) { return (int) (layout >>> 50); }

    /**
     * Groups of formulas stepped by one lookup, in chunks that each start a packed long (the first
     * group of each chunk opens a new long). Table formulas whose fields fit one long together are
     * one chunk; otherwise they are cut, in order of their first global atom, into chunks of at most
     * 63 bits, so that the atoms feeding one long lie close together in the valuation (fewer gather
     * entries). Within a chunk, groups take at most {@code g} bits (first fit, widest first), for the
     * largest {@code g <= MAX_GROUP_BITS} whose joint tables stay within {@link #GROUP_BUDGET} per
     * chunk. Each diagram formula is a group of its own, in a last chunk.
     */
    private static List<List<List<Integer>>> bins(boolean[] tabulated, int[] width, int[][] atomIndex) {
        List<Integer> order = new ArrayList<>();
        int widest = 0;
        int total = 0;
        for (int f = 0; f < tabulated.length; f++) {
            if (tabulated[f]) {
                order.add(f);
                widest = Math.max(widest, width[f]);
                total += width[f];
            }
        }
        List<List<Integer>> chunks = new ArrayList<>();
        if (total <= 63) {
            chunks.add(order);
        } else {
            int[] first = new int[tabulated.length];
            for (int f = 0; f < first.length; f++) {
                first[f] = Integer.MAX_VALUE;
                for (int a : atomIndex[f]) first[f] = Math.min(first[f], a);
            }
            List<Integer> byAtom = new ArrayList<>(order);
            byAtom.sort((x, y) -> first[x] != first[y] ? Integer.compare(first[x], first[y]) : Integer.compare(x, y));
            List<Integer> chunk = new ArrayList<>();
            int used = 0;
            for (int f : byAtom) {
                if (used + width[f] > 63) {
                    chunks.add(chunk);
                    chunk = new ArrayList<>();
                    used = 0;
                }
                chunk.add(f);
                used += width[f];
            }
            chunks.add(chunk);
        }
        // A budget per packed long keeps groups as wide as for a set of one long (fewer lookups per
        // formula), so that the step's cost grows with the number of formulas, not faster; the tables
        // grow linearly with it (at most 32 KB per long).
        long budget = (long) GROUP_BUDGET * chunks.size();
        List<List<List<Integer>>> best = new ArrayList<>();
        for (int g = Math.max(widest, MAX_GROUP_BITS); g >= widest; g--) {
            List<List<List<Integer>>> all = new ArrayList<>();
            long size = 0;
            for (List<Integer> chunk : chunks) {
                List<Integer> wide = new ArrayList<>(chunk);
                wide.sort((x, y) -> width[y] - width[x]);
                List<List<Integer>> bins = new ArrayList<>();
                List<Integer> used = new ArrayList<>();
                for (int f : wide) {
                    int i = 0;
                    while (i < bins.size() && used.get(i) + width[f] > g) i++;
                    if (i == bins.size()) {
                        bins.add(new ArrayList<>());
                        used.add(0);
                    }
                    bins.get(i).add(f);
                    used.set(i, used.get(i) + width[f]);
                }
                for (int u : used) size += 1L << u;
                all.add(bins);
            }
            best = all;
            if (size <= budget) break;
        }
        List<List<List<Integer>>> out = new ArrayList<>(best);
        // Diagram formulas follow in the last chunk (they read no letter bits: locality does not matter).
        if (out.isEmpty()) out.add(new ArrayList<>());
        List<List<Integer>> last = new ArrayList<>(out.get(out.size() - 1));
        for (int f = 0; f < tabulated.length; f++) if (!tabulated[f]) last.add(List.of(f));
        out.set(out.size() - 1, last);
        return out;
    }

    /** Sets {@code packed} (length {@link #packedWords}) to the packed form of one state per formula. */
    void pack(int[] states, long[] packed) {
        java.util.Arrays.fill(packed, 0L);
        for (int f = 0; f < layout.length; f++) packed[word(layout[f])] |= (long) states[f] << stateShift(layout[f]);
    }

    /** Writes the state of every formula held in {@code packed} into {@code states}. */
    void unpack(long[] packed, int[] states) {
        for (int f = 0; f < layout.length; f++) {
            long l = layout[f];
            int shift = stateShift(l);
            int bits = fieldShift(l) + (int) (l >>> 38 & 63) - shift;
            states[f] = (int) (packed[word(l)] >>> shift & ((1L << bits) - 1));
        }
    }

    /**
     * One step of every automaton of a {@link #oneWord} set: the packed state after {@code valuation}
     * from {@code state}, with bit 63 (never part of a field) set when some formula becomes
     * permanently violated by this step.
     */
    long stepWord(long state, long[] valuation) {
        // Straight-line code for the first four gather entries and groups (padded: small sets need
        // no loop at all), then loops for the rest.
        final int[] src = padSource;
        final long[] b = bytes;
        final int s0 = src[0], s1 = src[1], s2 = src[2], s3 = src[3];
        long fields = state
                | b[(int) (valuation[s0 >>> 6] >>> s0) & 0xFF]
                | b[256 | (int) (valuation[s1 >>> 6] >>> s1) & 0xFF]
                | b[512 | (int) (valuation[s2 >>> 6] >>> s2) & 0xFF]
                | b[768 | (int) (valuation[s3 >>> 6] >>> s3) & 0xFF];
        for (int e = 4; e < src.length; e++) {
            final int s = src[e];
            fields |= b[e << 8 | (int) (valuation[s >>> 6] >>> s) & 0xFF];
        }
        final int[] k = lookup;
        final int[] t = flat;
        final int e0 = t[k[0] + ((int) (fields >>> k[1]) & k[2])];
        final int e1 = t[k[3] + ((int) (fields >>> k[4]) & k[5])];
        final int e2 = t[k[6] + ((int) (fields >>> k[7]) & k[8])];
        final int e3 = t[k[9] + ((int) (fields >>> k[10]) & k[11])];
        int fresh = e0 | e1 | e2 | e3;
        long out = (long) (e0 & STATE) << k[1] | (long) (e1 & STATE) << k[4]
                | (long) (e2 & STATE) << k[7] | (long) (e3 & STATE) << k[10];
        for (int i = 12; i < k.length; i += 3) {
            final int shift = k[i + 1];
            final int e = t[k[i] + ((int) (fields >>> shift) & k[i + 2])];
            fresh |= e;
            out |= (long) (e & STATE) << shift;
        }
        return out | (long) (fresh & FRESH) << 32;
    }

    /**
     * One step of every automaton of a {@link #manyWords} set, long by long with the code of
     * {@link #stepWord}: each long's fields are gathered and looked up in a register, and its result
     * is written once to {@code to} and to {@code next}. Returns the OR of the transition entries
     * (negative: some formula is freshly permanently violated).
     */
    int stepWords(long[] before, long[] valuation, long[] to, long[] next) {
        final int[] src = source;
        final long[] b = bytes;
        final long[] k = descriptors;
        final int[] t = flat;
        final int[] gatherEnd = this.gatherEnd;
        final int[] groupEnd = this.groupEnd;
        int fresh = 0;
        int e = 0;
        int g = 0;
        for (int w = 0; w < gatherEnd.length; w++) {
            long fields = before[w];
            for (final int end = gatherEnd[w]; e < end; e++) {
                final int s = src[e];
                fields |= b[e << 8 | (int) (valuation[s >>> 6] >>> s) & 0xFF];
            }
            long out = 0;
            for (final int end = groupEnd[w]; g < end; g++) {
                final long d = k[g];
                final int shift = (int) (d >>> 32);   // a long shift reads the low six bits only
                final int x = t[(int) d + ((int) (fields >>> shift) & (int) (d >>> 40))];
                fresh |= x;
                out |= (long) (x & STATE) << shift;
            }
            to[w] = out;
            next[w] = out;
        }
        return fresh;
    }

    /** The letter bits of packed long 0 for {@code valuation} (for contract sets of one packed long). */
    long gather(long[] valuation) {
        final int[] source = this.source;
        final long[] bytes = this.bytes;
        long p = 0;
        for (int e = 0; e < source.length; e++) {
            int s = source[e];
            p |= bytes[e << 8 | (int) (valuation[s >>> 6] >>> s) & 0xFF];
        }
        return p;
    }

    /** ORs the letter bits of {@code valuation} into {@code packed} (length {@link #packedWords}). */
    void gather(long[] valuation, long[] packed) {
        final int[] source = this.source;
        final int[] target = this.target;
        final long[] bytes = this.bytes;
        for (int e = 0; e < source.length; e++) {
            int s = source[e];
            packed[target[e]] |= bytes[e << 8 | (int) (valuation[s >>> 6] >>> s) & 0xFF];
        }
    }
}
