package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formula.BinOp;
import dev.tracegate.engine.ltl.Formula.UnOp;
import dev.tracegate.engine.ltl.Formulas;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * One compilation: explores the (not yet minimal) automaton of a formula by symbolic progression.
 *
 * <p>A state is a pair (obligations, memory). The obligations are a DNF: a set of clauses, each a set
 * of next-literals {@code X α} (strong: a next position must exist) or {@code WX α} (weak), where α
 * is a subformula of the formula's negation normal form; clauses subsumed by another are dropped, so
 * the set of states is finite. The memory holds, for each past subformula (Y, O, H, S), what the next
 * position needs of the current one; past subformulas are evaluated pointwise from it, so the future
 * part reads them like atoms. A state accepts (the prefix read so far satisfies the formula) iff some
 * clause has no strong literal. Transitions are computed symbolically: each literal's expansion is a
 * set of clauses guarded by decision diagrams over the atoms, and the successor function of a state
 * becomes a reduced ordered diagram whose leaves are states, built by splitting only on the atoms the
 * guards actually test.
 */
final class Progression {
    // Kinds of negation-normal-form nodes.
    private static final int TRUE = 0, FALSE = 1, LIT = 2, AND = 3, OR = 4, NEXT = 5, WEAK_NEXT = 6,
            UNTIL = 7, RELEASE = 8, WEAK_UNTIL = 9, EVENTUALLY = 10, ALWAYS = 11;

    private final Formula formula;
    private final int maxStates;
    final List<Atom> atoms;
    private final Map<Atom, Integer> atomIndex = new HashMap<>();
    final Bdd bdd;
    private final int clauseLimit;
    private final int buildLimit;

    // Negation normal form, hash-consed: node n has kind[n], a[n], b[n] (children, or for LIT: the
    // variable (atom j, or past subformula k + j) and the sign).
    private int[] kind = new int[64];
    private int[] na = new int[64];
    private int[] nb = new int[64];
    private int nodes;
    private final Map<Long, Integer> nodeIds = new HashMap<>();
    private final Map<Formula, int[]> nnfMemo = new IdentityHashMap<>();

    // Past subformulas, operands before the formulas that contain them.
    private final List<Formula> past = new ArrayList<>();
    private final Map<Formula, Integer> pastIndex = new HashMap<>();
    private final List<int[]> pastNeeds = new ArrayList<>(); // past subformulas each one reads (itself included)
    private int memWords;
    private int[] initialMemory;

    // Interned memories and, per memory, the BDD of each past subformula now and of each next memory bit.
    private final Map<Ints, Integer> memIds = new HashMap<>();
    private final List<int[]> memories = new ArrayList<>();
    private final List<int[]> pastNow = new ArrayList<>();
    private final List<int[]> pastNext = new ArrayList<>();

    // Interned clauses: sorted literal arrays; literal 2n = WX node n, 2n + 1 = X node n.
    private final Map<Ints, Integer> clauseIds = new HashMap<>();
    private final List<int[]> clauses = new ArrayList<>();
    private final List<int[]> clauseNeeds = new ArrayList<>();
    private final Map<Long, Integer> unions = new HashMap<>();
    private final Map<Long, Guarded> expansions = new HashMap<>();
    private final Map<Long, Guarded> clauseExpansions = new HashMap<>();
    private final Map<Integer, int[]> nodeNeeds = new HashMap<>();

    // Explored states.
    private final Map<Ints, Integer> stateIds = new HashMap<>();
    final List<int[]> stateClauses = new ArrayList<>();
    private final List<Integer> stateMemory = new ArrayList<>();
    final DiagramTable diagrams;
    int[] root = new int[16];
    boolean[] accepting = new boolean[16];
    private int buildCalls;

    Progression(Formula formula, int maxStates) {
        this.formula = formula;
        this.maxStates = maxStates;
        this.atoms = Formulas.atoms(formula);
        for (int j = 0; j < atoms.size(); j++) atomIndex.put(atoms.get(j), j);
        long budget = Math.max(1L << 16, Math.min(1L << 22, (long) maxStates * 64));
        this.bdd = new Bdd((int) budget);
        this.diagrams = new DiagramTable((int) budget);
        this.clauseLimit = (int) Math.max(1 << 10, Math.min(1 << 18, (long) maxStates * 16));
        this.buildLimit = (int) budget;
    }

    /** Explores every state reachable from the initial one; state 0 is initial. */
    void explore() {
        registerPast(formula, null);
        memWords = (past.size() + 31) >>> 5;
        initialMemory = new int[memWords];
        for (int p = 0; p < past.size(); p++) {
            if (past.get(p) instanceof Formula.Unary u && u.op() == UnOp.HISTORICALLY) setBit(initialMemory, p);
        }
        for (int p = 0; p < past.size(); p++) pastNeeds.add(closure(p));
        int top = nnf(formula, false);
        int first = internClause(new int[] {2 * top});
        int[] initialClauses = {first};
        int s0 = internState(initialClauses, mask(initialMemory, initialClauses));
        assert s0 == 0;
        int explored = 0;
        while (explored < stateClauses.size()) {
            int s = explored++;
            int r = successors(s); // may grow root: store after the call
            root[s] = r;
        }
    }

    int stateCount() { return stateClauses.size(); }

    // ---------------------------------------------------------------- past subformulas

    private void registerPast(Formula f, Formula enclosingPast) {
        if (f instanceof Formula.Unary u) {
            if (u.op().isPast()) {
                checkPastOnly(u, u.arg());
                registerPastNode(u);
            } else {
                registerPast(u.arg(), enclosingPast);
            }
        } else if (f instanceof Formula.Binary b) {
            if (b.op().isPast()) {
                checkPastOnly(b, b.left());
                checkPastOnly(b, b.right());
                registerPastNode(b);
            } else {
                registerPast(b.left(), enclosingPast);
                registerPast(b.right(), enclosingPast);
            }
        }
    }

    /** Registers past formula {@code p} after the past formulas inside its operands. */
    private void registerPastNode(Formula p) {
        if (pastIndex.containsKey(p)) return;
        if (p instanceof Formula.Unary u) registerInner(u.arg());
        else if (p instanceof Formula.Binary b) {
            registerInner(b.left());
            registerInner(b.right());
        }
        pastIndex.put(p, past.size());
        past.add(p);
    }

    private void registerInner(Formula f) {
        if (f instanceof Formula.Unary u) {
            if (u.op().isPast()) registerPastNode(u);
            else registerInner(u.arg());
        } else if (f instanceof Formula.Binary b) {
            if (b.op().isPast()) registerPastNode(b);
            else {
                registerInner(b.left());
                registerInner(b.right());
            }
        }
    }

    private void checkPastOnly(Formula pastOp, Formula operand) {
        Formula bad = firstFuture(operand);
        if (bad == null) return;
        String futureOp = bad instanceof Formula.Unary u ? u.op().symbol : ((Formula.Binary) bad).op().symbol;
        String pastSym = pastOp instanceof Formula.Unary u ? u.op().symbol : ((Formula.Binary) pastOp).op().symbol;
        String text = Formulas.print(formula);
        int pastCol = Columns.of(formula, pastOp);
        int futureCol = Columns.of(formula, bad);
        Atom where = firstAtom(bad);
        String source = where != null && where.line() > 0
                ? " (its atom " + where.key() + " is at line " + where.line() + ":" + where.column() + " of the source)" : "";
        throw new CompileException("future operator " + futureOp + " at column " + futureCol
                + " inside past operator " + pastSym + " at column " + pastCol + " of " + DfaCompiler.shorten(text)
                + source + ": the operands of Y, O, H and S must be past-only. Rewrite so that the future "
                + "operator is outside and the past one inside, e.g. G(b -> O a) (every b preceded by an a) "
                + "instead of O(F ...) or H(X ...)");
    }

    private static Formula firstFuture(Formula f) {
        if (f instanceof Formula.Unary u) return u.op().isFuture() ? u : firstFuture(u.arg());
        if (f instanceof Formula.Binary b) {
            if (b.op().isFuture()) return b;
            Formula l = firstFuture(b.left());
            return l != null ? l : firstFuture(b.right());
        }
        return null;
    }

    private static Atom firstAtom(Formula f) {
        if (f instanceof Atom a) return a;
        if (f instanceof Formula.Unary u) return firstAtom(u.arg());
        if (f instanceof Formula.Binary b) {
            Atom l = firstAtom(b.left());
            return l != null ? l : firstAtom(b.right());
        }
        return null;
    }

    private int[] closure(int p) {
        int[] bits = new int[memWords];
        setBit(bits, p);
        Formula f = past.get(p);
        if (f instanceof Formula.Unary u) addInner(u.arg(), bits);
        else if (f instanceof Formula.Binary b) {
            addInner(b.left(), bits);
            addInner(b.right(), bits);
        }
        return bits;
    }

    private void addInner(Formula f, int[] bits) {
        Integer p = pastIndex.get(f);
        if (p != null) {
            or(bits, pastNeeds.get(p));
            return;
        }
        if (f instanceof Formula.Unary u) addInner(u.arg(), bits);
        else if (f instanceof Formula.Binary b) {
            addInner(b.left(), bits);
            addInner(b.right(), bits);
        }
    }

    /** BDDs of every past subformula at the current position, and of the next memory, for memory {@code m}. */
    private void evaluatePast(int m) {
        int[] mem = memories.get(m);
        int[] now = new int[past.size()];
        int[] next = new int[past.size()];
        for (int p = 0; p < past.size(); p++) {
            boolean bit = testBit(mem, p);
            Formula f = past.get(p);
            if (f instanceof Formula.Unary u) {
                int arg = pastOnly(u.arg(), now);
                switch (u.op()) {
                    case YESTERDAY -> { now[p] = bdd.constant(bit); next[p] = arg; }
                    case ONCE -> { now[p] = bdd.or(arg, bdd.constant(bit)); next[p] = now[p]; }
                    case HISTORICALLY -> { now[p] = bdd.and(arg, bdd.constant(bit)); next[p] = now[p]; }
                    default -> throw new IllegalStateException(u.op().toString());
                }
            } else {
                Formula.Binary b = (Formula.Binary) f;
                int l = pastOnly(b.left(), now);
                int r = pastOnly(b.right(), now);
                now[p] = bdd.or(r, bdd.and(l, bdd.constant(bit)));
                next[p] = now[p];
            }
        }
        pastNow.add(now);
        pastNext.add(next);
    }

    private int pastOnly(Formula f, int[] now) {
        if (f instanceof Formula.Const c) return bdd.constant(c.value());
        if (f instanceof Atom a) return bdd.ithVar(atomIndex.get(a));
        Integer p = pastIndex.get(f);
        if (p != null) return now[p];
        if (f instanceof Formula.Unary u && u.op() == UnOp.NOT) return bdd.not(pastOnly(u.arg(), now));
        if (f instanceof Formula.Binary b) {
            int l = pastOnly(b.left(), now);
            int r = pastOnly(b.right(), now);
            return switch (b.op()) {
                case AND -> bdd.and(l, r);
                case OR -> bdd.or(l, r);
                case IMPLIES -> bdd.or(bdd.not(l), r);
                case IFF -> bdd.iff(l, r);
                default -> throw new IllegalStateException(b.op().toString());
            };
        }
        throw new IllegalStateException(String.valueOf(f));
    }

    private int internMemory(int[] mem) {
        Integer id = memIds.get(new Ints(mem));
        if (id != null) return id;
        int m = memories.size();
        memIds.put(new Ints(mem), m);
        memories.add(mem);
        evaluatePast(m);
        return m;
    }

    // ---------------------------------------------------------------- negation normal form

    private int node(int k, int a, int b) {
        long key = ((long) k << 58) | ((long) a << 29) | b;
        Integer id = nodeIds.get(key);
        if (id != null) return id;
        if (nodes == kind.length) {
            kind = Arrays.copyOf(kind, nodes * 2);
            na = Arrays.copyOf(na, nodes * 2);
            nb = Arrays.copyOf(nb, nodes * 2);
        }
        int n = nodes++;
        kind[n] = k;
        na[n] = a;
        nb[n] = b;
        nodeIds.put(key, n);
        return n;
    }

    private int and(int a, int b) {
        if (kind[a] == FALSE || kind[b] == FALSE) return node(FALSE, 0, 0);
        if (kind[a] == TRUE) return b;
        if (kind[b] == TRUE || a == b) return a;
        return node(AND, Math.min(a, b), Math.max(a, b));
    }

    private int or(int a, int b) {
        if (kind[a] == TRUE || kind[b] == TRUE) return node(TRUE, 0, 0);
        if (kind[a] == FALSE) return b;
        if (kind[b] == FALSE || a == b) return a;
        return node(OR, Math.min(a, b), Math.max(a, b));
    }

    /** The NNF of {@code f} (of {@code !f} when {@code neg}); past subformulas become literals. */
    private int nnf(Formula f, boolean neg) {
        int[] memo = nnfMemo.get(f);
        if (memo != null && memo[neg ? 1 : 0] >= 0) return memo[neg ? 1 : 0];
        int r = nnfUncached(f, neg);
        if (memo == null) {
            memo = new int[] {-1, -1};
            nnfMemo.put(f, memo);
        }
        memo[neg ? 1 : 0] = r;
        return r;
    }

    private int nnfUncached(Formula f, boolean neg) {
        if (f instanceof Formula.Const c) return node(c.value() != neg ? TRUE : FALSE, 0, 0);
        if (f instanceof Atom a) return node(LIT, atomIndex.get(a), neg ? 0 : 1);
        Integer p = pastIndex.get(f);
        if (p != null) return node(LIT, atoms.size() + p, neg ? 0 : 1);
        if (f instanceof Formula.Unary u) {
            Formula g = u.arg();
            return switch (u.op()) {
                case NOT -> nnf(g, !neg);
                case NEXT -> node(neg ? WEAK_NEXT : NEXT, nnf(g, neg), 0);
                case WEAK_NEXT -> node(neg ? NEXT : WEAK_NEXT, nnf(g, neg), 0);
                case EVENTUALLY -> node(neg ? ALWAYS : EVENTUALLY, nnf(g, neg), 0);
                case ALWAYS -> node(neg ? EVENTUALLY : ALWAYS, nnf(g, neg), 0);
                default -> throw new IllegalStateException("unregistered past formula " + f);
            };
        }
        Formula.Binary b = (Formula.Binary) f;
        Formula l = b.left();
        Formula r = b.right();
        return switch (b.op()) {
            case AND -> neg ? or(nnf(l, true), nnf(r, true)) : and(nnf(l, false), nnf(r, false));
            case OR -> neg ? and(nnf(l, true), nnf(r, true)) : or(nnf(l, false), nnf(r, false));
            case IMPLIES -> neg ? and(nnf(l, false), nnf(r, true)) : or(nnf(l, true), nnf(r, false));
            case IFF -> neg
                    ? or(and(nnf(l, false), nnf(r, true)), and(nnf(l, true), nnf(r, false)))
                    : or(and(nnf(l, false), nnf(r, false)), and(nnf(l, true), nnf(r, true)));
            // !(l U r) = !l R !r; !(l R r) = !l U !r; !(l W r) = !r U (!l & !r)
            case UNTIL -> neg ? node(RELEASE, nnf(l, true), nnf(r, true)) : node(UNTIL, nnf(l, false), nnf(r, false));
            case RELEASE -> neg ? node(UNTIL, nnf(l, true), nnf(r, true)) : node(RELEASE, nnf(l, false), nnf(r, false));
            case WEAK_UNTIL -> neg
                    ? node(UNTIL, nnf(r, true), and(nnf(l, true), nnf(r, true)))
                    : node(WEAK_UNTIL, nnf(l, false), nnf(r, false));
            default -> throw new IllegalStateException("unregistered past formula " + f);
        };
    }

    /** Past subformulas that node {@code n} (and anything it unfolds to) reads. */
    private int[] needs(int n) {
        int[] cached = nodeNeeds.get(n);
        if (cached != null) return cached;
        int[] bits = new int[memWords];
        switch (kind[n]) {
            case TRUE, FALSE -> { }
            case LIT -> {
                if (na[n] >= atoms.size()) or(bits, pastNeeds.get(na[n] - atoms.size()));
            }
            case NEXT, WEAK_NEXT, EVENTUALLY, ALWAYS -> or(bits, needs(na[n]));
            default -> {
                or(bits, needs(na[n]));
                or(bits, needs(nb[n]));
            }
        }
        nodeNeeds.put(n, bits);
        return bits;
    }

    /** The node as a formula, for the pending obligations shown to users. */
    Formula toFormula(int n) {
        return switch (kind[n]) {
            case TRUE -> Formula.Const.TRUE;
            case FALSE -> Formula.Const.FALSE;
            case LIT -> {
                Formula v = na[n] < atoms.size() ? atoms.get(na[n]) : past.get(na[n] - atoms.size());
                yield nb[n] == 1 ? v : Formulas.not(v);
            }
            case AND -> Formulas.and(toFormula(na[n]), toFormula(nb[n]));
            case OR -> Formulas.or(toFormula(na[n]), toFormula(nb[n]));
            case NEXT -> Formulas.unary(UnOp.NEXT, toFormula(na[n]));
            case WEAK_NEXT -> Formulas.unary(UnOp.WEAK_NEXT, toFormula(na[n]));
            case EVENTUALLY -> Formulas.unary(UnOp.EVENTUALLY, toFormula(na[n]));
            case ALWAYS -> Formulas.unary(UnOp.ALWAYS, toFormula(na[n]));
            case UNTIL -> Formulas.binary(BinOp.UNTIL, toFormula(na[n]), toFormula(nb[n]));
            case RELEASE -> Formulas.binary(BinOp.RELEASE, toFormula(na[n]), toFormula(nb[n]));
            case WEAK_UNTIL -> Formulas.binary(BinOp.WEAK_UNTIL, toFormula(na[n]), toFormula(nb[n]));
            default -> throw new IllegalStateException();
        };
    }

    // ---------------------------------------------------------------- clauses

    private int internClause(int[] lits) {
        Ints key = new Ints(lits);
        Integer id = clauseIds.get(key);
        if (id != null) return id;
        int c = clauses.size();
        clauseIds.put(key, c);
        clauses.add(lits);
        int[] bits = new int[memWords];
        for (int lit : lits) or(bits, needs(lit >>> 1));
        clauseNeeds.add(bits);
        return c;
    }

    /** The clause holding the literals of both; a weak literal next to its strong twin is dropped. */
    private int union(int c, int d) {
        if (c == d) return c;
        if (c > d) { int t = c; c = d; d = t; }
        long key = ((long) c << 32) | d;
        Integer u = unions.get(key);
        if (u != null) return u;
        int[] x = clauses.get(c);
        int[] y = clauses.get(d);
        int[] out = new int[x.length + y.length];
        int i = 0, j = 0, n = 0;
        while (i < x.length || j < y.length) {
            int v;
            if (j == y.length || (i < x.length && x[i] < y[j])) v = x[i++];
            else if (i == x.length || y[j] < x[i]) v = y[j++];
            else { v = x[i++]; j++; }
            if ((v & 1) == 1 && n > 0 && out[n - 1] == v - 1) out[n - 1] = v; // X α subsumes WX α
            else out[n++] = v;
        }
        int r = internClause(Arrays.copyOf(out, n));
        unions.put(key, r);
        return r;
    }

    /** Whether every literal of clause {@code c} is implied by one of {@code d} (so d is redundant next to c). */
    private boolean subsumes(int c, int d) {
        int[] x = clauses.get(c);
        int[] y = clauses.get(d);
        if (x.length > y.length) return false;
        int j = 0;
        for (int lit : x) {
            int weak = lit & ~1;
            while (j < y.length && y[j] < weak) j++;
            if (j == y.length) return false;
            if ((lit & 1) == 1) {
                if (y[j] == weak) j++;
                if (j == y.length || y[j] != lit) return false;
            } else if (y[j] != weak && y[j] != weak + 1) {
                return false;
            }
        }
        return true;
    }

    private boolean hasStrong(int c) {
        for (int lit : clauses.get(c)) if ((lit & 1) == 1) return true;
        return false;
    }

    // ---------------------------------------------------------------- guarded DNFs

    /** A DNF whose clauses are present only where their guard (a BDD over the atoms) holds. */
    private static final class Guarded {
        int[] clause;
        int[] guard;
        int size;
        Map<Integer, Integer> index; // clause -> slot, once the DNF is large

        Guarded(int capacity) {
            clause = new int[Math.max(capacity, 1)];
            guard = new int[Math.max(capacity, 1)];
        }

        void put(int c, int g, Bdd bdd) {
            if (g == Bdd.FALSE) return;
            if (index == null && size >= 16) {
                index = new HashMap<>();
                for (int i = 0; i < size; i++) index.put(clause[i], i);
            }
            if (index != null) {
                Integer at = index.get(c);
                if (at != null) {
                    guard[at] = bdd.or(guard[at], g);
                    return;
                }
                index.put(c, size);
            } else {
                for (int i = 0; i < size; i++) {
                    if (clause[i] == c) {
                        guard[i] = bdd.or(guard[i], g);
                        return;
                    }
                }
            }
            if (size == clause.length) {
                clause = Arrays.copyOf(clause, size * 2);
                guard = Arrays.copyOf(guard, size * 2);
            }
            clause[size] = c;
            guard[size++] = g;
        }
    }

    private Guarded single(int c, int g) {
        Guarded r = new Guarded(1);
        r.put(c, g, bdd);
        return r;
    }

    private int emptyClause() { return internClause(new int[0]); }

    private Guarded gOr(Guarded x, Guarded y) {
        Guarded r = new Guarded(x.size + y.size);
        for (int i = 0; i < x.size; i++) r.put(x.clause[i], x.guard[i], bdd);
        for (int i = 0; i < y.size; i++) r.put(y.clause[i], y.guard[i], bdd);
        return reduce(r);
    }

    private Guarded gAnd(Guarded x, Guarded y) {
        Guarded r = new Guarded(x.size * y.size);
        for (int i = 0; i < x.size; i++) {
            for (int j = 0; j < y.size; j++) {
                int g = bdd.and(x.guard[i], y.guard[j]);
                if (g != Bdd.FALSE) r.put(union(x.clause[i], y.clause[j]), g, bdd);
                if (r.size > clauseLimit) throw new Bdd.NodeLimit();
            }
        }
        return reduce(r);
    }

    /** Drops clauses where a subsuming clause is present (symbolically: conjoins the guard's complement). */
    private Guarded reduce(Guarded r) {
        if (r.size < 2 || r.size > 32) return r; // an optimisation only: leaves are reduced exactly
        boolean changed = false;
        for (int i = 0; i < r.size; i++) {
            for (int j = 0; j < r.size; j++) {
                if (i == j || r.guard[j] == Bdd.FALSE || r.guard[i] == Bdd.FALSE) continue;
                if (subsumes(r.clause[i], r.clause[j])) {
                    r.guard[j] = bdd.and(r.guard[j], bdd.not(r.guard[i]));
                    changed = true;
                }
            }
        }
        if (!changed) return r;
        int n = 0;
        for (int i = 0; i < r.size; i++) {
            if (r.guard[i] != Bdd.FALSE) {
                r.clause[n] = r.clause[i];
                r.guard[n++] = r.guard[i];
            }
        }
        r.size = n;
        r.index = null;
        return r;
    }

    /** What node {@code n} requires of the current letter and the next position, given memory {@code m}. */
    private Guarded expand(int n, int m) {
        long key = ((long) n << 32) | (isZero(needs(n)) ? 0 : m);
        Guarded cached = expansions.get(key);
        if (cached != null) return cached;
        Guarded r = switch (kind[n]) {
            case TRUE -> single(emptyClause(), Bdd.TRUE);
            case FALSE -> new Guarded(0);
            case LIT -> {
                int v = na[n];
                int g = v < atoms.size() ? bdd.ithVar(v) : pastNow.get(m)[v - atoms.size()];
                yield single(emptyClause(), nb[n] == 1 ? g : bdd.not(g));
            }
            case AND -> gAnd(expand(na[n], m), expand(nb[n], m));
            case OR -> gOr(expand(na[n], m), expand(nb[n], m));
            case NEXT -> single(internClause(new int[] {2 * na[n] + 1}), Bdd.TRUE);
            case WEAK_NEXT -> single(internClause(new int[] {2 * na[n]}), Bdd.TRUE);
            case UNTIL -> gOr(expand(nb[n], m), gAnd(expand(na[n], m), single(internClause(new int[] {2 * n + 1}), Bdd.TRUE)));
            case WEAK_UNTIL -> gOr(expand(nb[n], m), gAnd(expand(na[n], m), single(internClause(new int[] {2 * n}), Bdd.TRUE)));
            case RELEASE -> gAnd(expand(nb[n], m), gOr(expand(na[n], m), single(internClause(new int[] {2 * n}), Bdd.TRUE)));
            case EVENTUALLY -> gOr(expand(na[n], m), single(internClause(new int[] {2 * n + 1}), Bdd.TRUE));
            case ALWAYS -> gAnd(expand(na[n], m), single(internClause(new int[] {2 * n}), Bdd.TRUE));
            default -> throw new IllegalStateException();
        };
        expansions.put(key, r);
        return r;
    }

    private Guarded expandClause(int c, int m) {
        long key = ((long) c << 32) | (isZero(clauseNeeds.get(c)) ? 0 : m);
        Guarded cached = clauseExpansions.get(key);
        if (cached != null) return cached;
        Guarded r = single(emptyClause(), Bdd.TRUE);
        for (int lit : clauses.get(c)) r = gAnd(r, expand(lit >>> 1, m));
        clauseExpansions.put(key, r);
        return r;
    }

    // ---------------------------------------------------------------- states

    private int internState(int[] stateClauseIds, int[] memory) {
        int m = internMemory(memory);
        int[] key = new int[stateClauseIds.length + 1];
        key[0] = m;
        System.arraycopy(stateClauseIds, 0, key, 1, stateClauseIds.length);
        Ints k = new Ints(key);
        Integer id = stateIds.get(k);
        if (id != null) return id;
        int s = stateClauses.size();
        if (s >= maxStates) throw new Bdd.NodeLimit();
        stateIds.put(k, s);
        stateClauses.add(stateClauseIds);
        stateMemory.add(m);
        if (s == root.length) {
            root = Arrays.copyOf(root, s * 2);
            accepting = Arrays.copyOf(accepting, s * 2);
        }
        boolean acc = false;
        for (int c : stateClauseIds) acc |= !hasStrong(c);
        accepting[s] = acc;
        return s;
    }

    /** Irrelevant memory bits (of past formulas no pending obligation reads) reset to their initial value. */
    private int[] mask(int[] memory, int[] stateClauseIds) {
        int[] need = new int[memWords];
        for (int c : stateClauseIds) or(need, clauseNeeds.get(c));
        int[] out = new int[memWords];
        for (int w = 0; w < memWords; w++) out[w] = (memory[w] & need[w]) | (initialMemory[w] & ~need[w]);
        return out;
    }

    /** Builds the transition diagram of state {@code s}, interning the successor states. */
    private int successors(int s) {
        int m = stateMemory.get(s);
        Guarded next = new Guarded(0);
        for (int c : stateClauses.get(s)) next = gOr(next, expandClause(c, m));
        return build(Arrays.copyOf(next.guard, next.size), Arrays.copyOf(next.clause, next.size), pastNext.get(m),
                new HashMap<>());
    }

    /**
     * The diagram of the successor as a function of the letter, splitting on the lowest atom any
     * guard or memory bit still tests; clauses whose guard became false are dropped on the way.
     */
    private int build(int[] guards, int[] succClauses, int[] memBits, Map<Ints, Integer> memo) {
        if (++buildCalls > buildLimit) throw new Bdd.NodeLimit();
        int v = Bdd.TERMINAL_VAR;
        for (int g : guards) v = Math.min(v, bdd.var(g));
        for (int g : memBits) v = Math.min(v, bdd.var(g));
        if (v == Bdd.TERMINAL_VAR) return ~leaf(guards, succClauses, memBits);
        int[] key = new int[2 * guards.length + memBits.length];
        for (int i = 0; i < guards.length; i++) {
            key[2 * i] = succClauses[i];
            key[2 * i + 1] = guards[i];
        }
        System.arraycopy(memBits, 0, key, 2 * guards.length, memBits.length);
        Ints k = new Ints(key);
        Integer cached = memo.get(k);
        if (cached != null) return cached;
        int lo = branch(guards, succClauses, memBits, v, false, memo);
        int hi = branch(guards, succClauses, memBits, v, true, memo);
        int r = diagrams.mk(v, lo, hi);
        memo.put(k, r);
        return r;
    }

    private int branch(int[] guards, int[] succClauses, int[] memBits, int v, boolean value, Map<Ints, Integer> memo) {
        int[] g = new int[guards.length];
        int[] c = new int[guards.length];
        int n = 0;
        for (int i = 0; i < guards.length; i++) {
            int x = bdd.cofactor(guards[i], v, value);
            if (x != Bdd.FALSE) {
                g[n] = x;
                c[n++] = succClauses[i];
            }
        }
        int[] mem = new int[memBits.length];
        for (int i = 0; i < memBits.length; i++) mem[i] = bdd.cofactor(memBits[i], v, value);
        return build(Arrays.copyOf(g, n), Arrays.copyOf(c, n), mem, memo);
    }

    private int leaf(int[] guards, int[] succClauses, int[] memBits) {
        // Every guard left is TRUE here: false ones were dropped on the way down.
        int[] present = succClauses;
        int count = present.length;
        // Keep the minimal clauses only.
        int[] kept = new int[count];
        int k = 0;
        for (int i = 0; i < count; i++) {
            boolean redundant = false;
            for (int j = 0; j < count && !redundant; j++) {
                redundant = j != i && subsumes(present[j], present[i]);
            }
            if (!redundant) kept[k++] = present[i];
        }
        int[] sorted = Arrays.copyOf(kept, k);
        Arrays.sort(sorted);
        int[] memory = new int[memWords];
        for (int p = 0; p < memBits.length; p++) if (memBits[p] == Bdd.TRUE) setBit(memory, p);
        return internState(sorted, mask(memory, sorted));
    }

    /** The open obligation of state {@code s}: its strong next-literals, clause by clause. */
    String pending(int s) {
        int[] cs = stateClauses.get(s);
        List<String> parts = new ArrayList<>();
        for (int c : cs) {
            List<String> strong = new ArrayList<>();
            for (int lit : clauses.get(c)) if ((lit & 1) == 1) strong.add(Formulas.print(toFormula(lit >>> 1)));
            if (strong.isEmpty()) return null;
            String clause = String.join(" & ", strong);
            parts.add(strong.size() > 1 && cs.length > 1 ? "(" + clause + ")" : clause);
        }
        return parts.isEmpty() ? null : String.join(" | ", parts);
    }

    // ---------------------------------------------------------------- bit sets

    private static void setBit(int[] bits, int i) { bits[i >>> 5] |= 1 << i; }

    private static boolean testBit(int[] bits, int i) { return (bits[i >>> 5] & (1 << i)) != 0; }

    private static void or(int[] into, int[] from) { for (int i = 0; i < into.length; i++) into[i] |= from[i]; }

    private static boolean isZero(int[] bits) {
        for (int b : bits) if (b != 0) return false;
        return true;
    }

    /** An int array with value equality, as a map key. */
    private record Ints(int[] a) {
        @Override public boolean equals(Object o) { return o instanceof Ints i && Arrays.equals(a, i.a); }

        @Override public int hashCode() { return Arrays.hashCode(a); }
    }
}
