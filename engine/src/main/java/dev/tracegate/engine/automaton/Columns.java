package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;

/** Where a subformula starts in {@link Formulas#print} of the whole formula, for error messages. */
final class Columns {
    private Columns() {}

    /** 1-based column of {@code target} (found by identity) in the printed {@code root}, or 0 if absent. */
    static int of(Formula root, Formula target) {
        int at = offset(root, target, 0);
        return at < 0 ? 0 : at + 1;
    }

    // Mirrors Formulas.print: unary "op" + (" " unless !) + "(" if the operand is binary; binary "(l op r)".
    private static int offset(Formula f, Formula target, int base) {
        if (f == target) return base;
        if (f instanceof Formula.Unary u) {
            int inner = base + u.op().symbol.length() + (u.op() == Formula.UnOp.NOT ? 0 : 1)
                    + (u.arg() instanceof Formula.Binary ? 1 : 0);
            return offset(u.arg(), target, inner);
        }
        if (f instanceof Formula.Binary b) {
            int left = offset(b.left(), target, base + 1);
            if (left >= 0) return left;
            int right = base + 1 + Formulas.print(b.left()).length() + b.op().symbol.length() + 2;
            return offset(b.right(), target, right);
        }
        return -1;
    }
}
