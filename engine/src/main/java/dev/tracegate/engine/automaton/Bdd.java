package dev.tracegate.engine.automaton;

import java.util.Arrays;

/**
 * Reduced ordered binary decision diagrams over numbered variables, tested in increasing order: the
 * compiler keeps one over the atoms of a formula (guards on the current letter) and one over its
 * next-literals (obligations on the rest of the trace). Nodes are hash-consed, so two equal functions
 * have the same id. Not thread-safe: one per compilation.
 */
final class Bdd {
    static final int FALSE = 0;
    static final int TRUE = 1;
    /** Variable of the terminals: after every atom. */
    static final int TERMINAL_VAR = Integer.MAX_VALUE;

    private static final int OP_AND = 1;
    private static final int OP_OR = 2;
    private static final int OP_NOT = 3;

    private final int maxNodes;
    private int[] var = new int[128];
    private int[] lo = new int[128];
    private int[] hi = new int[128];
    private int size = 2;
    private int[] unique = new int[256]; // open addressing, 0 = empty slot (node 0 is never stored)
    /**
     * The operation cache (op, a, b, result per slot): it starts at {@value #FIRST_CACHE} slots and grows with the unique
     * table up to {@value #MOST_CACHE}, starting empty again (it is only a memo). A compilation allocated and zeroed 1 MB
     * of cache per diagram whatever its size: two per formula, 24 MB for a 10-contract library while the agent starts,
     * and 3 GB (most of the 7-10 s) for a library of 1,500 contracts.
     */
    private int[] cacheOp = new int[FIRST_CACHE];
    private int[] cacheA = new int[FIRST_CACHE];
    private int[] cacheB = new int[FIRST_CACHE];
    private int[] cacheR = new int[FIRST_CACHE];
    private static final int FIRST_CACHE = 1 << 8;
    private static final int MOST_CACHE = 1 << 16;

    /**
     * Thrown when a compilation outgrows its bound: too many states ({@code states}), or too much
     * intermediate work (diagram nodes, pieces, expansion steps) for that bound. The compiler reports it as a state limit.
     */
    static final class NodeLimit extends RuntimeException {
        final boolean states;

        NodeLimit() { this(false); }

        NodeLimit(boolean states) {
            super(null, null, false, false);
            this.states = states;
        }
    }

    Bdd(int maxNodes) {
        this.maxNodes = maxNodes;
        var[0] = TERMINAL_VAR;
        var[1] = TERMINAL_VAR;
    }

    int var(int n) { return var[n]; }

    int low(int n) { return lo[n]; }

    int high(int n) { return hi[n]; }

    int nodeCount() { return size; }

    int ithVar(int v) { return mk(v, FALSE, TRUE); }

    int constant(boolean b) { return b ? TRUE : FALSE; }

    /** The cofactor of {@code n} for variable {@code v} set to {@code value}; {@code v} must not lie below n's top. */
    int cofactor(int n, int v, boolean value) {
        if (var[n] != v) return n;
        return value ? hi[n] : lo[n];
    }

    int mk(int v, int l, int h) {
        if (l == h) return l;
        int mask = unique.length - 1;
        int i = hash(v, l, h) & mask;
        while (true) {
            int n = unique[i];
            if (n == 0) break;
            if (var[n] == v && lo[n] == l && hi[n] == h) return n;
            i = (i + 1) & mask;
        }
        if (size >= maxNodes) throw new NodeLimit();
        if (size == var.length) {
            var = Arrays.copyOf(var, size * 2);
            lo = Arrays.copyOf(lo, size * 2);
            hi = Arrays.copyOf(hi, size * 2);
        }
        int n = size++;
        var[n] = v;
        lo[n] = l;
        hi[n] = h;
        unique[i] = n;
        if (size * 2 > unique.length) rehash();
        return n;
    }

    private void rehash() {
        int[] t = new int[unique.length * 2];
        int mask = t.length - 1;
        for (int n = 2; n < size; n++) {
            int i = hash(var[n], lo[n], hi[n]) & mask;
            while (t[i] != 0) i = (i + 1) & mask;
            t[i] = n;
        }
        unique = t;
        if (cacheOp.length < MOST_CACHE && cacheOp.length < t.length) {
            int slots = Math.min(MOST_CACHE, t.length);
            cacheOp = new int[slots];
            cacheA = new int[slots];
            cacheB = new int[slots];
            cacheR = new int[slots];
        }
    }

    private static int hash(int a, int b, int c) {
        int h = a * 0x9E3779B1 + b * 0x85EBCA77 + c * 0xC2B2AE3D;
        return h ^ (h >>> 15);
    }

    int not(int a) {
        if (a == TRUE) return FALSE;
        if (a == FALSE) return TRUE;
        int slot = slot(OP_NOT, a, 0);
        if (cacheOp[slot] == OP_NOT && cacheA[slot] == a) return cacheR[slot];
        int r = mk(var[a], not(lo[a]), not(hi[a]));
        store(slot, OP_NOT, a, 0, r);
        return r;
    }

    int and(int a, int b) {
        if (a == FALSE || b == FALSE) return FALSE;
        if (a == TRUE) return b;
        if (b == TRUE || a == b) return a;
        if (a > b) { int t = a; a = b; b = t; }
        int slot = slot(OP_AND, a, b);
        if (cacheOp[slot] == OP_AND && cacheA[slot] == a && cacheB[slot] == b) return cacheR[slot];
        int v = Math.min(var[a], var[b]);
        int r = mk(v, and(cofactor(a, v, false), cofactor(b, v, false)), and(cofactor(a, v, true), cofactor(b, v, true)));
        store(slot, OP_AND, a, b, r);
        return r;
    }

    int or(int a, int b) {
        if (a == TRUE || b == TRUE) return TRUE;
        if (a == FALSE) return b;
        if (b == FALSE || a == b) return a;
        if (a > b) { int t = a; a = b; b = t; }
        int slot = slot(OP_OR, a, b);
        if (cacheOp[slot] == OP_OR && cacheA[slot] == a && cacheB[slot] == b) return cacheR[slot];
        int v = Math.min(var[a], var[b]);
        int r = mk(v, or(cofactor(a, v, false), cofactor(b, v, false)), or(cofactor(a, v, true), cofactor(b, v, true)));
        store(slot, OP_OR, a, b, r);
        return r;
    }

    int iff(int a, int b) { return or(and(a, b), and(not(a), not(b))); }

    /** Value of {@code n} on a letter (bit {@code j} = variable {@code j}). */
    boolean eval(int n, long letter) {
        while (n > TRUE) n = ((letter >>> var[n]) & 1L) != 0 ? hi[n] : lo[n];
        return n == TRUE;
    }

    private int slot(int op, int a, int b) {
        int h = op * 0x27D4EB2F + a * 0x9E3779B1 + b * 0x85EBCA77;
        return (h ^ (h >>> 16)) & (cacheOp.length - 1);
    }

    private void store(int slot, int op, int a, int b, int r) {
        cacheOp[slot] = op;
        cacheA[slot] = a;
        cacheB[slot] = b;
        cacheR[slot] = r;
    }
}
