package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;

import java.util.List;

/**
 * The test oracle: the semantics of Formula's Javadoc, evaluated literally by recursion over
 * positions of a finite trace (quadratic, no automata, nothing shared with the compiler).
 */
final class TraceSemantics {
    private final List<Atom> atoms;

    TraceSemantics(Formula f) { this.atoms = Formulas.atoms(f); }

    /** Whether the trace (letter bit j = atom j) satisfies f; the empty trace satisfies everything. */
    boolean satisfies(Formula f, long[] trace) { return trace.length == 0 || at(f, trace, 0); }

    boolean at(Formula f, long[] t, int i) {
        int n = t.length;
        if (f instanceof Formula.Const c) return c.value();
        if (f instanceof Atom a) return ((t[i] >>> atoms.indexOf(a)) & 1L) != 0;
        if (f instanceof Formula.Unary u) {
            Formula g = u.arg();
            switch (u.op()) {
                case NOT: return !at(g, t, i);
                case NEXT: return i + 1 < n && at(g, t, i + 1);
                case WEAK_NEXT: return i + 1 >= n || at(g, t, i + 1);
                case EVENTUALLY: for (int j = i; j < n; j++) if (at(g, t, j)) return true; return false;
                case ALWAYS: for (int j = i; j < n; j++) if (!at(g, t, j)) return false; return true;
                case YESTERDAY: return i > 0 && at(g, t, i - 1);
                case ONCE: for (int j = 0; j <= i; j++) if (at(g, t, j)) return true; return false;
                case HISTORICALLY: for (int j = 0; j <= i; j++) if (!at(g, t, j)) return false; return true;
                default: throw new IllegalStateException();
            }
        }
        Formula.Binary b = (Formula.Binary) f;
        Formula l = b.left();
        Formula r = b.right();
        switch (b.op()) {
            case AND: return at(l, t, i) && at(r, t, i);
            case OR: return at(l, t, i) || at(r, t, i);
            case IMPLIES: return !at(l, t, i) || at(r, t, i);
            case IFF: return at(l, t, i) == at(r, t, i);
            case UNTIL: return until(l, r, t, i);
            case WEAK_UNTIL: {
                if (until(l, r, t, i)) return true;
                for (int j = i; j < n; j++) if (!at(l, t, j)) return false;
                return true;
            }
            case RELEASE: return !until(Formulas.not(l), Formulas.not(r), t, i);
            case SINCE: {
                for (int j = i; j >= 0; j--) {
                    if (at(r, t, j)) return true;
                    if (!at(l, t, j)) return false;
                }
                return false;
            }
            default: throw new IllegalStateException();
        }
    }

    private boolean until(Formula l, Formula r, long[] t, int i) {
        for (int j = i; j < t.length; j++) {
            if (at(r, t, j)) return true;
            if (!at(l, t, j)) return false;
        }
        return false;
    }
}
