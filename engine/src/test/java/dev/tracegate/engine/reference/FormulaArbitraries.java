package dev.tracegate.engine.reference;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formula.BinOp;
import dev.tracegate.engine.ltl.Formula.UnOp;
import dev.tracegate.engine.ltl.Formulas;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.List;

/**
 * jqwik generators of formulas and traces for the engine's property tests (parser round trip,
 * progression vs semantics, compiler vs reference). Atoms are {@code a, b, c, …} in that bit order;
 * past operators only ever get past-only operands, the convention the compiler relies on.
 */
public final class FormulaArbitraries {
    private FormulaArbitraries() {}

    private static final String NAMES = "abcdefghijklmnopqrstuvwxyz";
    private static final UnOp[] FUTURE_UNARY = {UnOp.NEXT, UnOp.WEAK_NEXT, UnOp.EVENTUALLY, UnOp.ALWAYS};
    private static final BinOp[] FUTURE_BINARY = {BinOp.UNTIL, BinOp.WEAK_UNTIL, BinOp.RELEASE};
    private static final UnOp[] PAST_UNARY = {UnOp.YESTERDAY, UnOp.ONCE, UnOp.HISTORICALLY};
    private static final BinOp[] BOOLEAN_BINARY = {BinOp.AND, BinOp.OR, BinOp.IMPLIES, BinOp.IFF};

    /** The bare atoms {@code a, b, …}: atom {@code j} is letter bit {@code j}. At most 26. */
    public static List<Atom> atoms(int count) {
        if (count < 1 || count > NAMES.length()) throw new IllegalArgumentException("1 to 26 atoms, not " + count);
        List<Atom> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) out.add(Atom.of(String.valueOf(NAMES.charAt(i))));
        return List.copyOf(out);
    }

    /**
     * Formulas over the first {@code atoms} atoms of {@link #atoms(int)}, of tree depth at most
     * {@code depth}, with every Boolean and future operator, and the past ones when {@code past}.
     */
    public static Arbitrary<Formula> formulas(int atoms, int depth, boolean past) {
        return formulas(leaves(atoms), depth, true, past);
    }

    /** Past-only formulas (Boolean and past operators) over the first {@code atoms} atoms. */
    public static Arbitrary<Formula> pastFormulas(int atoms, int depth) {
        return formulas(leaves(atoms), depth, false, true);
    }

    /** Future-only formulas (Boolean and future operators) over the first {@code atoms} atoms. */
    public static Arbitrary<Formula> futureFormulas(int atoms, int depth) {
        return formulas(leaves(atoms), depth, true, false);
    }

    /**
     * Formulas over any leaves (for example atoms with arguments and comparisons), of tree depth at
     * most {@code depth}; past operators get past-only operands.
     */
    public static Arbitrary<Formula> formulas(Arbitrary<Formula> leaves, int depth, boolean future, boolean past) {
        Arbitrary<Formula> full = leaves;
        Arbitrary<Formula> pastOnly = leaves;
        for (int d = 1; d <= depth; d++) {
            if (!future && past) {
                full = pastLevel(leaves, full);
                continue;
            }
            Arbitrary<Formula> next = level(leaves, full, past ? pastOnly : null, future);
            if (past) pastOnly = pastLevel(leaves, pastOnly);
            full = next;
        }
        return full;
    }

    /**
     * One more level on top of {@code sub}; past operators, unless {@code pastSub} is null, take operands from it. Each
     * level names {@code sub} only twice: jqwik hashes generator trees, which would cost exponential
     * time if every operator had its own branch.
     */
    private static Arbitrary<Formula> level(Arbitrary<Formula> leaves, Arbitrary<Formula> sub, Arbitrary<Formula> pastSub,
                                            boolean future) {
        // Temporal operators are weighted up: Boolean structure alone makes automata of one or two states.
        List<Tuple.Tuple2<Integer, Object>> ops = new ArrayList<>();
        ops.add(Tuple.of(2, UnOp.NOT));
        for (BinOp op : BOOLEAN_BINARY) ops.add(Tuple.of(op == BinOp.AND || op == BinOp.OR ? 2 : 1, op));
        if (future) {
            for (UnOp op : FUTURE_UNARY) ops.add(Tuple.of(2, op));
            for (BinOp op : FUTURE_BINARY) ops.add(Tuple.of(2, op));
        }
        Arbitrary<Formula> compound = Combinators.combine(frequency(ops), sub, sub).as(FormulaArbitraries::build);
        if (pastSub == null) {
            return Arbitraries.frequencyOf(Tuple.of(1, leaves), Tuple.of(5, compound));
        }
        List<Tuple.Tuple2<Integer, Object>> pastOps = new ArrayList<>();
        for (UnOp op : PAST_UNARY) pastOps.add(Tuple.of(1, op));
        pastOps.add(Tuple.of(1, BinOp.SINCE));
        Arbitrary<Formula> pastCompound = Combinators.combine(frequency(pastOps), pastSub, pastSub).as(FormulaArbitraries::build);
        return Arbitraries.frequencyOf(Tuple.of(1, leaves), Tuple.of(8, compound), Tuple.of(2, pastCompound));
    }

    /** One more level of a past-only formula: Boolean and past operators over {@code sub}. */
    private static Arbitrary<Formula> pastLevel(Arbitrary<Formula> leaves, Arbitrary<Formula> sub) {
        List<Tuple.Tuple2<Integer, Object>> ops = new ArrayList<>();
        ops.add(Tuple.of(2, UnOp.NOT));
        ops.add(Tuple.of(2, BinOp.AND));
        ops.add(Tuple.of(2, BinOp.OR));
        ops.add(Tuple.of(1, BinOp.IMPLIES));
        ops.add(Tuple.of(1, BinOp.IFF));
        for (UnOp op : PAST_UNARY) ops.add(Tuple.of(2, op));
        ops.add(Tuple.of(2, BinOp.SINCE));
        Arbitrary<Formula> compound = Combinators.combine(frequency(ops), sub, sub).as(FormulaArbitraries::build);
        return Arbitraries.frequencyOf(Tuple.of(3, leaves), Tuple.of(7, compound));
    }

    private static Arbitrary<Object> frequency(List<Tuple.Tuple2<Integer, Object>> ops) {
        @SuppressWarnings({"unchecked", "rawtypes"})
        Tuple.Tuple2<Integer, Object>[] array = ops.toArray(new Tuple.Tuple2[0]);
        return Arbitraries.frequency(array);
    }

    /** A unary operator ignores the second operand. */
    private static Formula build(Object op, Formula l, Formula r) {
        return op instanceof UnOp u ? Formulas.unary(u, l) : Formulas.binary((BinOp) op, l, r);
    }

    /** Atoms of {@link #atoms(int)}, with {@code true} and {@code false} now and then. */
    public static Arbitrary<Formula> leaves(int atoms) {
        Arbitrary<Formula> atom = Arbitraries.of(atoms(atoms)).map(a -> a);
        Arbitrary<Formula> constant = Arbitraries.of(Formula.Const.TRUE, Formula.Const.FALSE);
        return Arbitraries.frequencyOf(Tuple.of(19, atom), Tuple.of(1, constant));
    }

    /** Traces of length 0 to {@code maxLength} whose letters range over {@code atoms} atoms. */
    public static Arbitrary<long[]> traces(int atoms, int maxLength) {
        long max = atoms >= 63 ? Long.MAX_VALUE : (1L << atoms) - 1;
        return Arbitraries.longs().between(0, max).array(long[].class).ofMaxSize(maxLength);
    }

    /** A formula over {@link #atoms(int)} and a trace over the same atoms. */
    public static Arbitrary<Sample> samples(int atoms, int depth, boolean past, int maxLength) {
        List<Atom> alphabet = atoms(atoms);
        return Combinators.combine(formulas(atoms, depth, past), traces(atoms, maxLength))
                .as((f, t) -> new Sample(f, alphabet, t));
    }

    /**
     * The trace re-encoded for another atom order: bit {@code j} of each result letter is the bit of
     * {@code to.get(j)} in {@code from}. Use it to feed a compiler whose alphabet is
     * {@link Formulas#atoms(Formula)} with a trace generated over {@link #atoms(int)}.
     */
    public static long[] project(long[] trace, List<Atom> from, List<Atom> to) {
        int[] source = new int[to.size()];
        for (int j = 0; j < to.size(); j++) {
            source[j] = from.indexOf(to.get(j));
            if (source[j] < 0) throw new IllegalArgumentException("atom " + to.get(j) + " is not in " + from);
        }
        long[] out = new long[trace.length];
        for (int i = 0; i < trace.length; i++) {
            long l = 0;
            for (int j = 0; j < source.length; j++) l |= ((trace[i] >>> source[j]) & 1L) << j;
            out[i] = l;
        }
        return out;
    }

    /** The trace as the sets of atoms that hold at each position: {@code [{a, c}, {}, {b}]}. */
    public static String show(long[] trace, List<Atom> atoms) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < trace.length; i++) {
            if (i > 0) b.append(", ");
            b.append('{');
            boolean first = true;
            for (int j = 0; j < atoms.size(); j++) {
                if (((trace[i] >>> j) & 1L) == 0) continue;
                if (!first) b.append(", ");
                b.append(atoms.get(j).key());
                first = false;
            }
            b.append('}');
        }
        return b.append(']').toString();
    }

    /** A formula, the atom order of the trace's letters, and a trace; prints readably when a property fails. */
    public record Sample(Formula formula, List<Atom> atoms, long[] trace) {
        /** The first {@code length} letters. */
        public long[] prefix(int length) { return java.util.Arrays.copyOf(trace, length); }

        @Override public String toString() {
            return Formulas.print(formula) + " on " + show(trace, atoms);
        }
    }
}
