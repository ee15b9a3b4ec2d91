package dev.tracegate.engine.automaton;

import java.util.Arrays;

/**
 * Hash-consed transition diagram nodes: a node tests atom {@code var} and continues at {@code hi}
 * when it holds, {@code lo} otherwise; a reference {@code r >= 0} is a node, {@code r < 0} the leaf
 * state {@code ~r}. Reduced (no node has {@code lo == hi}) and ordered by the caller, so two equal
 * transition functions get the same reference.
 */
final class DiagramTable {
    private final int maxNodes;
    private int[] var = new int[256];
    private int[] lo = new int[256];
    private int[] hi = new int[256];
    private int size;
    private int[] slots = filled(512);

    DiagramTable(int maxNodes) { this.maxNodes = maxNodes; }

    int size() { return size; }

    int var(int n) { return var[n]; }

    int low(int n) { return lo[n]; }

    int high(int n) { return hi[n]; }

    int[] vars() { return Arrays.copyOf(var, size); }

    int[] lows() { return Arrays.copyOf(lo, size); }

    int[] highs() { return Arrays.copyOf(hi, size); }

    int mk(int v, int l, int h) {
        if (l == h) return l;
        int mask = slots.length - 1;
        int i = hash(v, l, h) & mask;
        while (true) {
            int n = slots[i];
            if (n < 0) break;
            if (var[n] == v && lo[n] == l && hi[n] == h) return n;
            i = (i + 1) & mask;
        }
        if (size >= maxNodes) throw new Bdd.NodeLimit();
        if (size == var.length) {
            var = Arrays.copyOf(var, size * 2);
            lo = Arrays.copyOf(lo, size * 2);
            hi = Arrays.copyOf(hi, size * 2);
        }
        int n = size++;
        var[n] = v;
        lo[n] = l;
        hi[n] = h;
        slots[i] = n;
        if (size * 2 > slots.length) rehash();
        return n;
    }

    /** The leaf state reached from reference {@code r} on a letter (bit {@code j} = atom {@code j}). */
    int follow(int r, long letter) {
        while (r >= 0) r = ((letter >>> var[r]) & 1L) != 0 ? hi[r] : lo[r];
        return ~r;
    }

    private void rehash() {
        int[] t = filled(slots.length * 2);
        int mask = t.length - 1;
        for (int n = 0; n < size; n++) {
            int i = hash(var[n], lo[n], hi[n]) & mask;
            while (t[i] >= 0) i = (i + 1) & mask;
            t[i] = n;
        }
        slots = t;
    }

    private static int[] filled(int n) {
        int[] a = new int[n];
        Arrays.fill(a, -1);
        return a;
    }

    private static int hash(int a, int b, int c) {
        int h = a * 0x9E3779B1 + b * 0x85EBCA77 + c * 0xC2B2AE3D;
        return h ^ (h >>> 15);
    }
}
