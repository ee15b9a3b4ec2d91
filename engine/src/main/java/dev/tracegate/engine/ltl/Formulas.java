package dev.tracegate.engine.ltl;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/** Printing and structural queries on formulas. */
public final class Formulas {
    private Formulas() {}

    /**
     * The formula's distinct atoms in order of first occurrence, left to right. This order defines
     * the bit of each atom in a letter: atom {@code i} is bit {@code i}. Compiler, reference
     * evaluator and tests all use it.
     */
    public static List<Atom> atoms(Formula f) {
        Set<Atom> out = new LinkedHashSet<>();
        collect(f, out);
        return List.copyOf(out);
    }

    private static void collect(Formula f, Set<Atom> out) {
        if (f instanceof Atom a) out.add(a);
        else if (f instanceof Formula.Unary u) collect(u.arg(), out);
        else if (f instanceof Formula.Binary b) {
            collect(b.left(), out);
            collect(b.right(), out);
        }
    }

    /** The leftmost atom of {@code f} (the one an error about {@code f} can point at), or null when it has none. */
    public static Atom firstAtom(Formula f) {
        if (f instanceof Atom a) return a;
        if (f instanceof Formula.Unary u) return firstAtom(u.arg());
        if (f instanceof Formula.Binary b) {
            Atom l = firstAtom(b.left());
            return l != null ? l : firstAtom(b.right());
        }
        return null;
    }

    /** True when the formula uses Y, O, H or S. */
    public static boolean hasPast(Formula f) {
        if (f instanceof Formula.Unary u) return u.op().isPast() || hasPast(u.arg());
        if (f instanceof Formula.Binary b) return b.op().isPast() || hasPast(b.left()) || hasPast(b.right());
        return false;
    }

    /** True when the formula uses X, WX, F, G, U, W or R. */
    public static boolean hasFuture(Formula f) {
        if (f instanceof Formula.Unary u) return u.op().isFuture() || hasFuture(u.arg());
        if (f instanceof Formula.Binary b) return b.op().isFuture() || hasFuture(b.left()) || hasFuture(b.right());
        return false;
    }

    /** Number of nodes. */
    public static int size(Formula f) {
        if (f instanceof Formula.Unary u) return 1 + size(u.arg());
        if (f instanceof Formula.Binary b) return 1 + size(b.left()) + size(b.right());
        return 1;
    }

    /** Fully parenthesised concrete syntax that the parser reads back to an equal tree. */
    public static String print(Formula f) {
        StringBuilder b = new StringBuilder();
        print(f, b);
        return b.toString();
    }

    private static void print(Formula f, StringBuilder b) {
        if (f instanceof Formula.Const c) b.append(c.value() ? "true" : "false");
        else if (f instanceof Atom a) b.append(a.key());
        else if (f instanceof Formula.Unary u) {
            b.append(u.op().symbol);
            b.append(u.op() == Formula.UnOp.NOT ? "" : " ");
            // a binary prints in its own parentheses: X (a W b), not X ((a W b)) (trial21); a comparison gets them here, since
            // prefix operators bind first: !(arg(refund, amount) > 100), not !arg(refund, amount) > 100 (trial25 02)
            boolean comparison = u.arg() instanceof Atom a && a.comparison() != null;
            if (comparison) b.append('(');
            print(u.arg(), b);
            if (comparison) b.append(')');
        } else if (f instanceof Formula.Binary bin) {
            b.append('(');
            print(bin.left(), b);
            b.append(' ').append(bin.op().symbol).append(' ');
            print(bin.right(), b);
            b.append(')');
        }
    }

    static String printArgs(List<Term> args) {
        List<String> parts = new ArrayList<>(args.size());
        for (Term t : args) parts.add(t.toString());
        return "(" + String.join(", ", parts) + ")";
    }

    /** Double-quoted with backslash escapes for {@code "} and {@code \}. */
    public static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '"' || c == '\\') b.append('\\');
            if (c == '\n') { b.append("\\n"); continue; }
            b.append(c);
        }
        return b.append('"').toString();
    }

    // Convenience constructors, used by tests and by code that builds formulas.
    public static Formula not(Formula f) { return new Formula.Unary(Formula.UnOp.NOT, f); }
    public static Formula and(Formula a, Formula b) { return new Formula.Binary(Formula.BinOp.AND, a, b); }
    public static Formula or(Formula a, Formula b) { return new Formula.Binary(Formula.BinOp.OR, a, b); }
    public static Formula unary(Formula.UnOp op, Formula f) { return new Formula.Unary(op, f); }
    public static Formula binary(Formula.BinOp op, Formula a, Formula b) { return new Formula.Binary(op, a, b); }
}
