package dev.tracegate.engine.reference;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;

import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The finite-trace semantics of {@link Formula}, evaluated straight from its definitions (quantifiers
 * over positions, not expansion laws) so that it can serve as the oracle for progression and for the
 * compiler. Any nesting of future and past operators is allowed.
 */
public final class Semantics {
    private final long[] trace;
    private final int n;
    private final Map<Formula, byte[]> memo = new IdentityHashMap<>();
    private final Map<Formula, Integer> atomBit = new IdentityHashMap<>();
    private final List<Atom> atoms;

    private Semantics(List<Atom> atoms, long[] trace) {
        this.atoms = atoms;
        this.trace = trace;
        this.n = trace.length;
    }

    /**
     * Whether the trace satisfies the formula: it is empty, or the formula holds at position 0.
     *
     * @param atoms letter bit {@code j} of {@code trace[i]} is the truth of {@code atoms.get(j)} at position {@code i}
     * @throws IllegalArgumentException when the formula has an atom that is not in {@code atoms}
     */
    public static boolean holds(Formula f, List<Atom> atoms, long[] trace) {
        if (trace.length == 0) return true;
        return new Semantics(atoms, trace).at(f, 0);
    }

    /** Whether the formula holds at position {@code i} of a non-empty trace ({@code 0 ≤ i < trace.length}). */
    public static boolean holdsAt(Formula f, List<Atom> atoms, long[] trace, int i) {
        if (i < 0 || i >= trace.length) throw new IndexOutOfBoundsException("position " + i + " of a trace of length " + trace.length);
        return new Semantics(atoms, trace).at(f, i);
    }

    // Memo per (subformula node, position): 0 unknown, 1 false, 2 true. Each node's value at each
    // position is computed once, so evaluation is polynomial: O(|f| n^2) at worst (U, R, S).
    private boolean at(Formula f, int i) {
        byte[] m = memo.computeIfAbsent(f, k -> new byte[n]);
        if (m[i] != 0) return m[i] == 2;
        boolean v = compute(f, i);
        m[i] = (byte) (v ? 2 : 1);
        return v;
    }

    private boolean compute(Formula f, int i) {
        if (f instanceof Formula.Const c) return c.value();
        if (f instanceof Atom a) return ((trace[i] >>> bit(a)) & 1L) != 0;
        if (f instanceof Formula.Unary u) {
            Formula g = u.arg();
            switch (u.op()) {
                case NOT: return !at(g, i);
                case NEXT: return i + 1 < n && at(g, i + 1);
                case WEAK_NEXT: return i + 1 >= n || at(g, i + 1);
                case EVENTUALLY:
                    for (int j = i; j < n; j++) if (at(g, j)) return true;
                    return false;
                case ALWAYS:
                    for (int j = i; j < n; j++) if (!at(g, j)) return false;
                    return true;
                case YESTERDAY: return i > 0 && at(g, i - 1);
                case ONCE:
                    for (int j = 0; j <= i; j++) if (at(g, j)) return true;
                    return false;
                case HISTORICALLY:
                    for (int j = 0; j <= i; j++) if (!at(g, j)) return false;
                    return true;
                default: throw new AssertionError(u.op());
            }
        }
        Formula.Binary b = (Formula.Binary) f;
        Formula l = b.left();
        Formula r = b.right();
        switch (b.op()) {
            case AND: return at(l, i) && at(r, i);
            case OR: return at(l, i) || at(r, i);
            case IMPLIES: return !at(l, i) || at(r, i);
            case IFF: return at(l, i) == at(r, i);
            case UNTIL: return until(l, r, i, false, false);
            case WEAK_UNTIL: {
                if (until(l, r, i, false, false)) return true;
                for (int j = i; j < n; j++) if (!at(l, j)) return false;
                return true;
            }
            // φ R ψ = ¬(¬φ U ¬ψ), taken literally.
            case RELEASE: return !until(l, r, i, true, true);
            case SINCE: {
                // Some j ≤ i has ψ and φ holds on (j, i]: scan j downwards; once φ fails at some k,
                // no j < k can be the witness.
                for (int j = i; j >= 0; j--) {
                    if (at(r, j)) return true;
                    if (!at(l, j)) return false;
                }
                return false;
            }
            default: throw new AssertionError(b.op());
        }
    }

    /**
     * Some {@code j ≥ i} has ψ and φ holds on {@code [i, j)}, with φ and ψ optionally negated: scan
     * j upwards; once φ fails at some k, no j > k can be the witness.
     */
    private boolean until(Formula phi, Formula psi, int i, boolean notPhi, boolean notPsi) {
        for (int j = i; j < n; j++) {
            if (at(psi, j) != notPsi) return true;
            if (at(phi, j) == notPhi) return false;
        }
        return false;
    }

    private int bit(Atom a) {
        Integer b = atomBit.get(a);
        if (b == null) {
            int j = atoms.indexOf(a);
            if (j < 0) throw new IllegalArgumentException("atom " + a + " is not in the alphabet " + atoms);
            if (j >= 64) throw new IllegalArgumentException("atom " + a + " is at position " + j + "; letters hold 64 atoms");
            b = j;
            atomBit.put(a, b);
        }
        return b;
    }
}
