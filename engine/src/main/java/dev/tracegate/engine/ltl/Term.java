package dev.tracegate.engine.ltl;

import java.util.List;

/**
 * An argument of an atom, kept uninterpreted by the engine (the matchers module gives atoms meaning):
 * a name ({@code refund}, {@code ctx.approved}), a number, a quoted string, a call
 * {@code f(a, b)} or a list {@code [a, b]}.
 */
public sealed interface Term permits Term.Name, Term.Num, Term.Str, Term.Call, Term.ListOf {

    /** An identifier, possibly dotted: {@code refund}, {@code ctx.approved}. */
    record Name(String value) implements Term {
        @Override public String toString() { return value; }
    }

    /** A number as written ({@code 5000}, {@code 2.5}, {@code -1}). */
    record Num(String text) implements Term {
        public double value() { return Double.parseDouble(text); }

        @Override public String toString() { return text; }
    }

    /** A double-quoted string, unescaped. */
    record Str(String value) implements Term {
        @Override public String toString() { return Formulas.quote(value); }
    }

    /** A nested call {@code name(args…)}. */
    record Call(String name, List<Term> args) implements Term {
        public Call { args = List.copyOf(args); }

        @Override public String toString() { return name + Formulas.printArgs(args); }
    }

    /** A list {@code [a, b, …]}. */
    record ListOf(List<Term> items) implements Term {
        public ListOf { items = List.copyOf(items); }

        @Override public String toString() {
            StringBuilder b = new StringBuilder("[");
            for (int i = 0; i < items.size(); i++) {
                if (i > 0) b.append(", ");
                b.append(items.get(i));
            }
            return b.append(']').toString();
        }
    }
}
