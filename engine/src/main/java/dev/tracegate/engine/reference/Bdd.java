package dev.tracegate.engine.reference;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Reduced ordered binary decision diagrams over integer variables (smaller index nearer the root),
 * hash-consed so that two equivalent Boolean functions are the same node: this is what makes the
 * residuals of progression a finite, comparable set. Not thread-safe.
 */
final class Bdd {
    static final int FALSE = 0;
    static final int TRUE = 1;
    private static final int TERMINAL_VAR = Integer.MAX_VALUE;

    private int[] var = new int[1024];
    private int[] lo = new int[1024];
    private int[] hi = new int[1024];
    private int size;
    private final Map<Long, Integer> unique = new HashMap<>();
    private final Map<Long, Integer> andCache = new HashMap<>();
    private final Map<Integer, Integer> notCache = new HashMap<>();

    Bdd() {
        var[FALSE] = TERMINAL_VAR;
        var[TRUE] = TERMINAL_VAR;
        size = 2;
    }

    int var(int node) { return var[node]; }

    int lo(int node) { return lo[node]; }

    int hi(int node) { return hi[node]; }

    boolean isConstant(int node) { return node == FALSE || node == TRUE; }

    int constant(boolean b) { return b ? TRUE : FALSE; }

    /** The function that is true exactly when variable {@code v} is. */
    int variable(int v) { return mk(v, FALSE, TRUE); }

    int mk(int v, int l, int h) {
        if (l == h) return l;
        if (v < 0 || v == TERMINAL_VAR) throw new IllegalArgumentException("variable " + v);
        if (v >= (1 << 21) || l >= (1 << 21) || h >= (1 << 21)) {
            throw new IllegalStateException("decision diagram too large for the reference evaluator");
        }
        long key = ((long) v << 42) | ((long) l << 21) | h;
        Integer found = unique.get(key);
        if (found != null) return found;
        if (size == var.length) {
            var = Arrays.copyOf(var, size * 2);
            lo = Arrays.copyOf(lo, size * 2);
            hi = Arrays.copyOf(hi, size * 2);
        }
        var[size] = v;
        lo[size] = l;
        hi[size] = h;
        unique.put(key, size);
        return size++;
    }

    int not(int a) {
        if (a == TRUE) return FALSE;
        if (a == FALSE) return TRUE;
        Integer c = notCache.get(a);
        if (c != null) return c;
        int r = mk(var[a], not(lo[a]), not(hi[a]));
        notCache.put(a, r);
        return r;
    }

    int and(int a, int b) {
        if (a == FALSE || b == FALSE) return FALSE;
        if (a == TRUE) return b;
        if (b == TRUE || a == b) return a;
        if (a > b) { int t = a; a = b; b = t; }
        long key = ((long) a << 32) | b;
        Integer c = andCache.get(key);
        if (c != null) return c;
        int v = Math.min(var[a], var[b]);
        int al = var[a] == v ? lo[a] : a;
        int ah = var[a] == v ? hi[a] : a;
        int bl = var[b] == v ? lo[b] : b;
        int bh = var[b] == v ? hi[b] : b;
        int r = mk(v, and(al, bl), and(ah, bh));
        andCache.put(key, r);
        return r;
    }

    int or(int a, int b) { return not(and(not(a), not(b))); }

    int implies(int a, int b) { return or(not(a), b); }

    int iff(int a, int b) { return or(and(a, b), and(not(a), not(b))); }

    /** If {@code c} then {@code t} else {@code e}. */
    int ite(int c, int t, int e) { return or(and(c, t), and(not(c), e)); }
}
