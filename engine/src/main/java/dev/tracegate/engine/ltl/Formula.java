package dev.tracegate.engine.ltl;

/**
 * A formula of the temporal layer (ALTLf over opaque atoms): an immutable syntax tree.
 *
 * <p>Semantics on a finite trace {@code σ0 … σn-1} (positions {@code 0 ≤ i < n}), the trace
 * satisfying a formula when it holds at position 0; the empty trace satisfies every formula:
 * <ul>
 *   <li>{@code X φ} (strong next): {@code i+1 < n} and φ at {@code i+1};
 *       {@code WX φ} (weak next): {@code i+1 ≥ n} or φ at {@code i+1};</li>
 *   <li>{@code φ U ψ}: some {@code j ≥ i} has ψ, and φ holds on {@code [i, j)};
 *       {@code φ W ψ}: {@code φ U ψ} or φ on all of {@code [i, n)};
 *       {@code φ R ψ}: {@code ¬(¬φ U ¬ψ)}; {@code F φ = true U φ}; {@code G φ = ¬F¬φ};</li>
 *   <li>{@code Y φ}: {@code i > 0} and φ at {@code i-1}; {@code O φ}: φ at some {@code j ≤ i};
 *       {@code H φ}: φ at every {@code j ≤ i}; {@code φ S ψ}: some {@code j ≤ i} has ψ and φ holds
 *       on {@code (j, i]}.</li>
 * </ul>
 */
public sealed interface Formula permits Formula.Const, Atom, Formula.Unary, Formula.Binary {

    /** Unary operators, with their concrete syntax. */
    enum UnOp {
        NOT("!"), NEXT("X"), WEAK_NEXT("WX"), EVENTUALLY("F"), ALWAYS("G"),
        YESTERDAY("Y"), ONCE("O"), HISTORICALLY("H");

        public final String symbol;

        UnOp(String symbol) { this.symbol = symbol; }

        /** True for Y, O, H. */
        public boolean isPast() { return this == YESTERDAY || this == ONCE || this == HISTORICALLY; }

        /** True for X, WX, F, G. */
        public boolean isFuture() { return this == NEXT || this == WEAK_NEXT || this == EVENTUALLY || this == ALWAYS; }
    }

    /** Binary operators, with their concrete syntax. */
    enum BinOp {
        AND("&"), OR("|"), IMPLIES("->"), IFF("<->"),
        UNTIL("U"), WEAK_UNTIL("W"), RELEASE("R"), SINCE("S");

        public final String symbol;

        BinOp(String symbol) { this.symbol = symbol; }

        public boolean isPast() { return this == SINCE; }

        public boolean isFuture() { return this == UNTIL || this == WEAK_UNTIL || this == RELEASE; }

        public boolean isTemporal() { return isPast() || isFuture(); }
    }

    /** {@code true} or {@code false}. */
    record Const(boolean value) implements Formula {
        public static final Const TRUE = new Const(true);
        public static final Const FALSE = new Const(false);

        @Override public String toString() { return value ? "true" : "false"; }
    }

    /** A unary operator applied to a formula. */
    record Unary(UnOp op, Formula arg) implements Formula {
        public Unary {
            java.util.Objects.requireNonNull(op);
            java.util.Objects.requireNonNull(arg);
        }

        @Override public String toString() { return Formulas.print(this); }
    }

    /** A binary operator applied to two formulas. */
    record Binary(BinOp op, Formula left, Formula right) implements Formula {
        public Binary {
            java.util.Objects.requireNonNull(op);
            java.util.Objects.requireNonNull(left);
            java.util.Objects.requireNonNull(right);
        }

        @Override public String toString() { return Formulas.print(this); }
    }
}
