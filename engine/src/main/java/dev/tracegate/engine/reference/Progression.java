package dev.tracegate.engine.reference;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.RvVerdict;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Formula progression for finite traces, the reference the compiler is tested against: after each
 * letter the residual says what the rest of the trace still has to satisfy, and the four-valued
 * verdict is decided by exploring every residual reachable from the current one.
 *
 * <p>A residual is a Boolean function, kept as a canonical decision diagram, of obligations
 * {@code X ψ} and {@code WX ψ} on the last position read (ψ a subformula), together with the values
 * at that position that the past operators carry forward: for {@code Y φ} the value of φ, for
 * {@code O}, {@code H} and {@code S} their own value. Reading a letter replaces each obligation by
 * the one-step expansion of ψ at the new position ({@code φ U ψ ≡ ψ ∨ (φ ∧ X(φ U ψ))},
 * {@code φ W ψ ≡ ψ ∨ (φ ∧ WX(φ W ψ))}, {@code φ R ψ ≡ ψ ∧ (φ ∨ WX(φ R ψ))}, {@code F φ ≡ φ ∨ X F φ},
 * {@code G φ ≡ φ ∧ WX G φ}); at the end of the trace {@code X ψ} is false and {@code WX ψ} true. The
 * trace before its first letter is the obligation {@code WX f}, so the empty trace is accepted.
 *
 * <p>The operands of Y, O, H and S must be past-only (no X, WX, F, G, U, W, R inside a past
 * operator); {@link #start} rejects other formulas. {@link Semantics} has no such restriction.
 * Residuals from different {@link #start} calls are unrelated and must not be mixed; residuals of
 * one {@link #start} share caches and must be stepped from one thread at a time.
 */
public final class Progression {
    /** Default bound on the residuals explored to decide a verdict. */
    public static final int DEFAULT_MAX_RESIDUALS = 200_000;

    private Progression() {}

    /** The obligation on a trace that has read no letter yet; letter bit j is atom j of {@link Formulas#atoms(Formula)}. */
    public static Residual start(Formula f) { return start(f, Formulas.atoms(f)); }

    /**
     * The obligation on a trace that has read no letter yet.
     *
     * @param atoms letter bit {@code j} is the truth of {@code atoms.get(j)}
     * @throws IllegalArgumentException when a past operator has a future operator inside, or an atom
     *                                  of the formula is not in {@code atoms}
     */
    public static Residual start(Formula f, List<Atom> atoms) {
        Context c = new Context(f, atoms);
        return c.initial();
    }

    /** The obligation left after reading one more letter. */
    public static Residual step(Residual r, long letter) { return r.context.step(r, letter); }

    /** Whether the trace read so far satisfies the formula (the trace ending here meets the obligation). */
    public static boolean acceptsAtEnd(Residual r) { return r.context.acceptsAtEnd(r.node); }

    /** Whether the trace satisfies the formula, by progression. */
    public static boolean accepts(Formula f, List<Atom> atoms, long[] trace) {
        Residual r = start(f, atoms);
        for (long letter : trace) r = step(r, letter);
        return acceptsAtEnd(r);
    }

    /** The four-valued verdict of the formula at the end of {@code prefix}. */
    public static RvVerdict verdict(Formula f, List<Atom> atoms, long[] prefix) {
        return verdict(f, atoms, prefix, DEFAULT_MAX_RESIDUALS);
    }

    /**
     * The four-valued verdict of the formula at the end of {@code prefix}, decided exactly from the
     * residuals reachable after it.
     *
     * @throws ResidualLimitException when more than {@code maxResiduals} residuals are reachable
     */
    public static RvVerdict verdict(Formula f, List<Atom> atoms, long[] prefix, int maxResiduals) {
        Residual r = start(f, atoms);
        for (long letter : prefix) r = step(r, letter);
        return new ResidualGraph(r, maxResiduals).verdict(0);
    }

    /**
     * The verdict at every prefix of the trace: element {@code i} is the verdict after the first
     * {@code i} letters, so the array has {@code trace.length + 1} elements.
     *
     * @throws ResidualLimitException when more than {@code maxResiduals} residuals are reachable from the start
     */
    public static RvVerdict[] verdicts(Formula f, List<Atom> atoms, long[] trace, int maxResiduals) {
        Residual r = start(f, atoms);
        ResidualGraph g = new ResidualGraph(r, maxResiduals);
        RvVerdict[] out = new RvVerdict[trace.length + 1];
        int s = 0;
        out[0] = g.verdict(s);
        for (int i = 0; i < trace.length; i++) {
            s = g.successor(s, trace[i]);
            out[i + 1] = g.verdict(s);
        }
        return out;
    }

    /** {@link #verdicts(Formula, List, long[], int)} with {@link #DEFAULT_MAX_RESIDUALS}. */
    public static RvVerdict[] verdicts(Formula f, List<Atom> atoms, long[] trace) {
        return verdicts(f, atoms, trace, DEFAULT_MAX_RESIDUALS);
    }

    /**
     * A shortest extension w such that {@code prefix·w} and {@code prefix} differ in whether they
     * satisfy the formula, or empty when none exists (the verdict at {@code prefix} is final). Tests
     * use it to check a non-final verdict against {@link Semantics}.
     */
    public static Optional<long[]> flippingExtension(Formula f, List<Atom> atoms, long[] prefix, int maxResiduals) {
        Residual r = start(f, atoms);
        for (long letter : prefix) r = step(r, letter);
        return new ResidualGraph(r, maxResiduals).flippingPath();
    }

    // ------------------------------------------------------------------------------------------

    /** What the rest of the trace must satisfy, with the past values it depends on. Immutable. */
    public static final class Residual {
        final Context context;
        final int node;
        final long[] past;

        Residual(Context context, int node, long[] past) {
            this.context = context;
            this.node = node;
            this.past = past;
        }

        /** The obligation as a formula over {@code X ψ} and {@code WX ψ} (evaluated at the last position read). */
        public Formula obligation() { return context.toFormula(node); }

        /** Whether no obligation is left open: the residual is {@code true} or {@code false}. */
        public boolean isDecided() { return context.bdd.isConstant(node); }

        @Override public boolean equals(Object o) {
            return o instanceof Residual r && r.context == context && r.node == node && Arrays.equals(r.past, past);
        }

        @Override public int hashCode() { return 31 * node + Arrays.hashCode(past); }

        @Override public String toString() {
            return Formulas.print(obligation()) + (past.length == 0 ? "" : " with past " + context.describePast(past));
        }
    }

    /** One formula's subformula table, decision diagrams and past slots. */
    static final class Context {
        private static final int CONST = 0, ATOM = 1, UNARY = 2, BINARY = 3;

        final Formula formula;
        final Bdd bdd = new Bdd();
        private final List<Formula> nodes = new ArrayList<>();
        private final Map<String, Integer> ids = new HashMap<>();
        private int[] kind = new int[16], left = new int[16], right = new int[16], bit = new int[16], slot = new int[16];
        private Formula.UnOp[] unOp = new Formula.UnOp[16];
        private Formula.BinOp[] binOp = new Formula.BinOp[16];
        private boolean[] future = new boolean[16];
        private long[][] slotsBelow = new long[16][];
        private final List<Integer> pastNodes = new ArrayList<>();
        private final List<Atom> atoms;
        private final int root;
        private int words;
        final long relevantBits;
        // The initial past values: no previous position (Y false, O false, H true, S false).
        private long[] initialPast;

        Context(Formula f, List<Atom> atoms) {
            this.formula = f;
            this.atoms = List.copyOf(atoms);
            this.root = intern(f);
            this.words = (pastNodes.size() + 63) >>> 6;
            long relevant = 0;
            for (int n = 0; n < nodes.size(); n++) if (kind[n] == ATOM) relevant |= 1L << bit[n];
            this.relevantBits = relevant;
            for (int n = 0; n < nodes.size(); n++) {
                long[] m = new long[words];
                collectSlots(n, m);
                slotsBelow[n] = m;
            }
            initialPast = new long[words];
            for (int p : pastNodes) {
                if (kind[p] == UNARY && unOp[p] == Formula.UnOp.HISTORICALLY) set(initialPast, slot[p], true);
            }
        }

        Residual initial() {
            int node = bdd.variable(var(root, true));
            return new Residual(this, node, mask(node, initialPast));
        }

        // Obligation variables: 2·n for X ψn (strong), 2·n+1 for WX ψn (weak).
        private static int var(int n, boolean weak) { return 2 * n + (weak ? 1 : 0); }

        private int intern(Formula f) {
            String key;
            int a = -1, b = -1;
            if (f instanceof Formula.Const c) key = c.value() ? "T" : "F";
            else if (f instanceof Atom at) key = "A" + at.key();
            else if (f instanceof Formula.Unary u) {
                a = intern(u.arg());
                key = "U" + u.op() + ":" + a;
            } else {
                Formula.Binary bin = (Formula.Binary) f;
                a = intern(bin.left());
                b = intern(bin.right());
                key = "B" + bin.op() + ":" + a + ":" + b;
            }
            Integer known = ids.get(key);
            if (known != null) return known;
            int n = nodes.size();
            grow(n + 1);
            nodes.add(f);
            ids.put(key, n);
            left[n] = a;
            right[n] = b;
            slot[n] = -1;
            if (f instanceof Formula.Const) kind[n] = CONST;
            else if (f instanceof Atom at) {
                kind[n] = ATOM;
                int j = atoms.indexOf(at);
                if (j < 0) throw new IllegalArgumentException("atom " + at + " is not in the alphabet " + atoms);
                if (j >= 64) throw new IllegalArgumentException("atom " + at + " is at position " + j + "; letters hold 64 atoms");
                bit[n] = j;
            } else if (f instanceof Formula.Unary u) {
                kind[n] = UNARY;
                unOp[n] = u.op();
                future[n] = u.op().isFuture() || future[a];
                if (u.op().isPast()) pastNode(n, f, future[a]);
            } else {
                Formula.Binary bin = (Formula.Binary) f;
                kind[n] = BINARY;
                binOp[n] = bin.op();
                future[n] = bin.op().isFuture() || future[a] || future[b];
                if (bin.op().isPast()) pastNode(n, f, future[a] || future[b]);
            }
            return n;
        }

        private void pastNode(int n, Formula f, boolean futureInside) {
            if (futureInside) {
                throw new IllegalArgumentException("progression needs past-only operands of Y, O, H and S, but "
                        + Formulas.print(f) + " has a future operator inside a past one");
            }
            slot[n] = pastNodes.size();
            pastNodes.add(n);
        }

        private void grow(int size) {
            if (size <= kind.length) return;
            int c = Math.max(size, kind.length * 2);
            kind = Arrays.copyOf(kind, c);
            left = Arrays.copyOf(left, c);
            right = Arrays.copyOf(right, c);
            bit = Arrays.copyOf(bit, c);
            slot = Arrays.copyOf(slot, c);
            unOp = Arrays.copyOf(unOp, c);
            binOp = Arrays.copyOf(binOp, c);
            future = Arrays.copyOf(future, c);
            slotsBelow = Arrays.copyOf(slotsBelow, c);
        }

        private void collectSlots(int n, long[] m) {
            if (slot[n] >= 0) set(m, slot[n], true);
            if (left[n] >= 0) collectSlots(left[n], m);
            if (right[n] >= 0) collectSlots(right[n], m);
        }

        private static boolean get(long[] bits, int i) { return (bits[i >>> 6] & (1L << i)) != 0; }

        private static void set(long[] bits, int i, boolean v) {
            if (v) bits[i >>> 6] |= 1L << i;
            else bits[i >>> 6] &= ~(1L << i);
        }

        /** Keeps only the past values that some open obligation can still read (canonical residuals). */
        private long[] mask(int node, long[] past) {
            long[] keep = new long[words];
            supportSlots(node, keep, new HashSet<>());
            long[] out = new long[words];
            for (int w = 0; w < words; w++) out[w] = past[w] & keep[w];
            return out;
        }

        private void supportSlots(int node, long[] keep, Set<Integer> seen) {
            if (bdd.isConstant(node) || !seen.add(node)) return;
            long[] m = slotsBelow[bdd.var(node) >>> 1];
            for (int w = 0; w < words; w++) keep[w] |= m[w];
            supportSlots(bdd.lo(node), keep, seen);
            supportSlots(bdd.hi(node), keep, seen);
        }

        Residual step(Residual r, long letter) {
            if (r.context != this) throw new IllegalArgumentException("residual of another formula");
            Step s = new Step(letter, r.past);
            int node = s.compose(r.node);
            long[] past = new long[words];
            for (int p : pastNodes) {
                boolean v = kind[p] == UNARY && unOp[p] == Formula.UnOp.YESTERDAY ? s.now(left[p]) : s.now(p);
                set(past, slot[p], v);
            }
            return new Residual(this, node, mask(node, past));
        }

        boolean acceptsAtEnd(int node) {
            // No next position: X ψ is false, WX ψ is true.
            while (!bdd.isConstant(node)) node = (bdd.var(node) & 1) == 1 ? bdd.hi(node) : bdd.lo(node);
            return node == Bdd.TRUE;
        }

        /** Evaluation at one new position, given the letter and the past values at the position before. */
        private final class Step {
            final long letter;
            final long[] before;
            final byte[] value = new byte[nodes.size()];
            final int[] expansion = new int[nodes.size()];
            final Map<Integer, Integer> composed = new HashMap<>();

            Step(long letter, long[] before) {
                this.letter = letter;
                this.before = before;
                Arrays.fill(expansion, -1);
            }

            /** Value of a past-only subformula at the new position. */
            boolean now(int n) {
                if (value[n] != 0) return value[n] == 2;
                boolean v;
                switch (kind[n]) {
                    case CONST: v = ((Formula.Const) nodes.get(n)).value(); break;
                    case ATOM: v = ((letter >>> bit[n]) & 1L) != 0; break;
                    case UNARY:
                        switch (unOp[n]) {
                            case NOT: v = !now(left[n]); break;
                            case YESTERDAY: v = get(before, slot[n]); break;
                            case ONCE: v = now(left[n]) || get(before, slot[n]); break;
                            case HISTORICALLY: v = now(left[n]) && get(before, slot[n]); break;
                            default: throw new AssertionError("future operator in a past-only subformula");
                        }
                        break;
                    default:
                        switch (binOp[n]) {
                            case AND: v = now(left[n]) && now(right[n]); break;
                            case OR: v = now(left[n]) || now(right[n]); break;
                            case IMPLIES: v = !now(left[n]) || now(right[n]); break;
                            case IFF: v = now(left[n]) == now(right[n]); break;
                            case SINCE: v = now(right[n]) || (now(left[n]) && get(before, slot[n])); break;
                            default: throw new AssertionError("future operator in a past-only subformula");
                        }
                }
                value[n] = (byte) (v ? 2 : 1);
                return v;
            }

            /** The obligation "ψn holds at the new position", expanded into a function of next-step obligations. */
            int expand(int n) {
                if (expansion[n] >= 0) return expansion[n];
                int r;
                if (!future[n]) {
                    r = bdd.constant(now(n));
                } else if (kind[n] == UNARY) {
                    int a = left[n];
                    switch (unOp[n]) {
                        case NOT: r = bdd.not(expand(a)); break;
                        case NEXT: r = bdd.variable(var(a, false)); break;
                        case WEAK_NEXT: r = bdd.variable(var(a, true)); break;
                        case EVENTUALLY: r = bdd.or(expand(a), bdd.variable(var(n, false))); break;
                        case ALWAYS: r = bdd.and(expand(a), bdd.variable(var(n, true))); break;
                        default: throw new AssertionError(unOp[n]);
                    }
                } else {
                    int a = left[n];
                    int b = right[n];
                    switch (binOp[n]) {
                        case AND: r = bdd.and(expand(a), expand(b)); break;
                        case OR: r = bdd.or(expand(a), expand(b)); break;
                        case IMPLIES: r = bdd.implies(expand(a), expand(b)); break;
                        case IFF: r = bdd.iff(expand(a), expand(b)); break;
                        case UNTIL: r = bdd.or(expand(b), bdd.and(expand(a), bdd.variable(var(n, false)))); break;
                        case WEAK_UNTIL: r = bdd.or(expand(b), bdd.and(expand(a), bdd.variable(var(n, true)))); break;
                        case RELEASE: r = bdd.and(expand(b), bdd.or(expand(a), bdd.variable(var(n, true)))); break;
                        default: throw new AssertionError(binOp[n]);
                    }
                }
                expansion[n] = r;
                return r;
            }

            /** Replaces every obligation X ψ / WX ψ of the previous position by ψ's expansion here. */
            int compose(int node) {
                if (bdd.isConstant(node)) return node;
                Integer c = composed.get(node);
                if (c != null) return c;
                int r = bdd.ite(expand(bdd.var(node) >>> 1), compose(bdd.hi(node)), compose(bdd.lo(node)));
                composed.put(node, r);
                return r;
            }
        }

        Formula toFormula(int node) {
            if (node == Bdd.TRUE) return Formula.Const.TRUE;
            if (node == Bdd.FALSE) return Formula.Const.FALSE;
            int v = bdd.var(node);
            Formula obligation = Formulas.unary((v & 1) == 1 ? Formula.UnOp.WEAK_NEXT : Formula.UnOp.NEXT, nodes.get(v >>> 1));
            Formula hi = toFormula(bdd.hi(node));
            Formula lo = toFormula(bdd.lo(node));
            Formula whenTrue = hi == Formula.Const.TRUE ? obligation : hi == Formula.Const.FALSE ? null : Formulas.and(obligation, hi);
            Formula whenFalse = lo == Formula.Const.TRUE ? Formulas.not(obligation) : lo == Formula.Const.FALSE ? null : Formulas.and(Formulas.not(obligation), lo);
            if (whenTrue == null) return whenFalse;
            if (whenFalse == null) return whenTrue;
            return Formulas.or(whenTrue, whenFalse);
        }

        String describePast(long[] past) {
            StringBuilder b = new StringBuilder("{");
            for (int p : pastNodes) {
                if (b.length() > 1) b.append(", ");
                Formula f = nodes.get(p);
                String shown = kind[p] == UNARY && unOp[p] == Formula.UnOp.YESTERDAY ? Formulas.print(nodes.get(left[p])) : Formulas.print(f);
                b.append(shown).append('=').append(get(past, slot[p]));
            }
            return b.append('}').toString();
        }
    }

    /** Every residual reachable from one residual, with transitions, explored breadth-first. */
    private static final class ResidualGraph {
        private final Context context;
        private final List<Residual> states = new ArrayList<>();
        private final List<int[]> successors = new ArrayList<>();
        private final long[] letters;
        private final int[] parent;
        private final long[] parentLetter;
        private final boolean[] reachesAccepting;
        private final boolean[] reachesRejecting;

        ResidualGraph(Residual from, int maxResiduals) {
            this.context = from.context;
            long relevant = context.relevantBits;
            int count = 1 << Long.bitCount(relevant);
            letters = new long[count];
            // Enumerate the sub-masks of the formula's own atom bits: only they affect progression.
            long sub = 0;
            for (int i = 0; i < count; i++) {
                letters[i] = sub;
                sub = (sub - relevant) & relevant;
            }
            Map<Residual, Integer> index = new HashMap<>();
            List<Integer> parents = new ArrayList<>();
            List<Long> parentLetters = new ArrayList<>();
            index.put(from, 0);
            states.add(from);
            parents.add(-1);
            parentLetters.add(0L);
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            queue.add(0);
            while (!queue.isEmpty()) {
                int s = queue.poll();
                int[] succ = new int[count];
                for (int i = 0; i < count; i++) {
                    Residual next = context.step(states.get(s), letters[i]);
                    Integer t = index.get(next);
                    if (t == null) {
                        if (states.size() >= maxResiduals) {
                            throw new ResidualLimitException(Formulas.print(context.formula), maxResiduals);
                        }
                        t = states.size();
                        index.put(next, t);
                        states.add(next);
                        parents.add(s);
                        parentLetters.add(letters[i]);
                        queue.add(t);
                    }
                    succ[i] = t;
                }
                successors.add(succ); // states are dequeued in index order
            }
            int n = states.size();
            parent = new int[n];
            parentLetter = new long[n];
            for (int i = 0; i < n; i++) {
                parent[i] = parents.get(i);
                parentLetter[i] = parentLetters.get(i);
            }
            boolean[] accepting = new boolean[n];
            for (int i = 0; i < n; i++) accepting[i] = context.acceptsAtEnd(states.get(i).node);
            reachesAccepting = backwardClosure(accepting, true);
            reachesRejecting = backwardClosure(accepting, false);
        }

        /** Which states can reach a state whose acceptance is {@code target}. */
        private boolean[] backwardClosure(boolean[] accepting, boolean target) {
            int n = states.size();
            List<List<Integer>> preds = new ArrayList<>(n);
            for (int i = 0; i < n; i++) preds.add(new ArrayList<>());
            for (int s = 0; s < n; s++) for (int t : successors.get(s)) preds.get(t).add(s);
            boolean[] reach = new boolean[n];
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            for (int i = 0; i < n; i++) if (accepting[i] == target) { reach[i] = true; queue.add(i); }
            while (!queue.isEmpty()) {
                int t = queue.poll();
                for (int s : preds.get(t)) if (!reach[s]) { reach[s] = true; queue.add(s); }
            }
            return reach;
        }

        RvVerdict verdict(int s) {
            boolean acc = context.acceptsAtEnd(states.get(s).node);
            boolean sink = !(reachesAccepting[s] && reachesRejecting[s]);
            return RvVerdict.of(acc, sink);
        }

        int successor(int s, long letter) {
            long l = letter & context.relevantBits;
            int[] succ = successors.get(s);
            for (int i = 0; i < letters.length; i++) if (letters[i] == l) return succ[i];
            throw new AssertionError("letter not enumerated");
        }

        /** A shortest path from the root to a state whose acceptance differs from the root's. */
        Optional<long[]> flippingPath() {
            boolean acc = context.acceptsAtEnd(states.get(0).node);
            // States are numbered in breadth-first order, so the first match is a nearest one.
            for (int i = 0; i < states.size(); i++) {
                if (context.acceptsAtEnd(states.get(i).node) != acc) {
                    List<Long> path = new ArrayList<>();
                    for (int s = i; s != 0; s = parent[s]) path.add(0, parentLetter[s]);
                    long[] out = new long[path.size()];
                    for (int k = 0; k < out.length; k++) out[k] = path.get(k);
                    return Optional.of(out);
                }
            }
            return Optional.empty();
        }
    }
}
