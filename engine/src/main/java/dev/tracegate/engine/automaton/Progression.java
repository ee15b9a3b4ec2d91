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
 * <p>A state is a pair (obligation, memory). The obligation is a positive Boolean function, kept as a
 * reduced ordered BDD (so equal obligations are one state), over next-literals {@code X α} (strong:
 * a next position must exist) and {@code WX α} (weak), where α is a subformula of the formula's
 * negation normal form; there are finitely many such functions, so finitely many states. The memory
 * holds, for each past subformula (Y, O, H, S), what the next position needs of the current one;
 * past subformulas are evaluated pointwise from it, so the future part reads them like atoms. A state
 * accepts (the prefix read so far satisfies the formula) iff its obligation holds with every strong
 * literal false and every weak one true (the trace ends here). Transitions are computed
 * symbolically: each literal of the obligation is unfolded one step into a positive combination of
 * guards (conditions on the current letter) and next-literals, which is split on the lowest atom a
 * guard still tests until no guard is left (Shannon expansion with simplification, so only atoms
 * that matter are read); the split becomes a reduced ordered diagram whose leaves are the successor
 * states.
 */
final class Progression {
    // Kinds of negation-normal-form nodes.
    private static final int TRUE = 0, FALSE = 1, LIT = 2, AND = 3, OR = 4, NEXT = 5, WEAK_NEXT = 6,
            UNTIL = 7, RELEASE = 8, WEAK_UNTIL = 9, EVENTUALLY = 10, ALWAYS = 11;

    private final Formula formula;
    private final int maxStates;
    final List<Atom> atoms;
    private final Map<Atom, Integer> atomIndex = new HashMap<>();
    final Bdd guards; // conditions on the current letter: variable j is atom j
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

    // Obligations: BDDs whose variable l is a next-literal, 2n = WX node n, 2n + 1 = X node n.
    private final Bdd obligations;
    private final Map<Integer, int[]> obligationNeeds = new HashMap<>();
    private final Map<Long, Integer> substitutions = new HashMap<>();
    private final Map<Integer, Integer> pieceObligation = new HashMap<>();
    private final Map<Integer, int[]> nodeNeeds = new HashMap<>();

    // Explored states.
    private final Map<Long, Integer> stateIds = new HashMap<>();
    private int[] stateObligation = new int[16];
    private int[] stateMemory = new int[16];
    private int states;
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
        this.guards = new Bdd((int) budget);
        this.diagrams = new DiagramTable((int) budget);
        this.obligations = new Bdd((int) budget);
        this.buildLimit = (int) budget;
    }

    /** Explores every state reachable from the initial one; state 0 is initial. */
    void explore() {
        registerPast(formula);
        memWords = (past.size() + 31) >>> 5;
        initialMemory = new int[memWords];
        for (int p = 0; p < past.size(); p++) {
            if (past.get(p) instanceof Formula.Unary u && u.op() == UnOp.HISTORICALLY) setBit(initialMemory, p);
        }
        for (int p = 0; p < past.size(); p++) pastNeeds.add(closure(p));
        int top = nnf(formula, false);
        int first = obligations.ithVar(2 * top); // WX f: the empty trace satisfies f
        int s0 = internState(first, mask(initialMemory, first));
        assert s0 == 0;
        int explored = 0;
        while (explored < states) {
            int s = explored++;
            int r = successors(s); // may grow root: store after the call
            root[s] = r;
        }
    }

    int stateCount() { return states; }

    // ---------------------------------------------------------------- past subformulas

    private void registerPast(Formula f) {
        if (f instanceof Formula.Unary u) {
            if (u.op().isPast()) {
                checkPastOnly(u, u.arg());
                registerPastNode(u);
            } else {
                registerPast(u.arg());
            }
        } else if (f instanceof Formula.Binary b) {
            if (b.op().isPast()) {
                checkPastOnly(b, b.left());
                checkPastOnly(b, b.right());
                registerPastNode(b);
            } else {
                registerPast(b.left());
                registerPast(b.right());
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
        Atom where = Formulas.firstAtom(bad);
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
                    case YESTERDAY -> { now[p] = guards.constant(bit); next[p] = arg; }
                    case ONCE -> { now[p] = guards.or(arg, guards.constant(bit)); next[p] = now[p]; }
                    case HISTORICALLY -> { now[p] = guards.and(arg, guards.constant(bit)); next[p] = now[p]; }
                    default -> throw new IllegalStateException(u.op().toString());
                }
            } else {
                Formula.Binary b = (Formula.Binary) f;
                int l = pastOnly(b.left(), now);
                int r = pastOnly(b.right(), now);
                now[p] = guards.or(r, guards.and(l, guards.constant(bit)));
                next[p] = now[p];
            }
        }
        pastNow.add(now);
        pastNext.add(next);
    }

    private int pastOnly(Formula f, int[] now) {
        if (f instanceof Formula.Const c) return guards.constant(c.value());
        if (f instanceof Atom a) return guards.ithVar(atomIndex.get(a));
        Integer p = pastIndex.get(f);
        if (p != null) return now[p];
        if (f instanceof Formula.Unary u && u.op() == UnOp.NOT) return guards.not(pastOnly(u.arg(), now));
        if (f instanceof Formula.Binary b) {
            int l = pastOnly(b.left(), now);
            int r = pastOnly(b.right(), now);
            return switch (b.op()) {
                case AND -> guards.and(l, r);
                case OR -> guards.or(l, r);
                case IMPLIES -> guards.or(guards.not(l), r);
                case IFF -> guards.iff(l, r);
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
        long key = mix(((long) k << 58) | ((long) a << 29) | b);
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

    // ---------------------------------------------------------------- one-step unfoldings

    /*
     * A piece is a positive Boolean combination, hash-consed and kept flat, sorted and simplified, of
     * guards (a BDD over the atoms: what the current letter must satisfy) and next-literals (what the
     * rest of the trace must satisfy). The successor of a state is its piece split on the atoms the
     * guards test, lowest atom first: every cofactor simplifies (a false guard kills its conjunction,
     * a true one its disjunction), so only the atoms that still matter are read, and equal cofactors
     * meet in the memo. At a leaf, where no guard is left, the piece is the successor's obligation.
     */
    private static final int P_TRUE = 0, P_FALSE = 1, P_GUARD = 2, P_NEXT = 3, P_AND = 4, P_OR = 5;

    private int[] pKind = new int[256];
    private int[] pValue = new int[256]; // P_GUARD: the BDD; P_NEXT: the literal
    private int[] pTop = new int[256];   // lowest atom any guard inside tests
    private int[] pCofactor = new int[512]; // 2p + value -> cofactor on pTop[p], or -1
    private final List<int[]> pKids = new ArrayList<>();
    private int pieces;
    private final Map<Ints, Integer> pieceIds = new HashMap<>();

    private int piece(int kind, int value, int[] kids, int top) {
        int[] key = new int[kids.length + 2];
        key[0] = kind;
        key[1] = value;
        System.arraycopy(kids, 0, key, 2, kids.length);
        Ints k = new Ints(key);
        Integer id = pieceIds.get(k);
        if (id != null) return id;
        if (pieces >= buildLimit) throw new Bdd.NodeLimit();
        if (pieces == pKind.length) {
            pKind = Arrays.copyOf(pKind, pieces * 2);
            pValue = Arrays.copyOf(pValue, pieces * 2);
            pTop = Arrays.copyOf(pTop, pieces * 2);
            int old = pCofactor.length;
            pCofactor = Arrays.copyOf(pCofactor, old * 2);
            Arrays.fill(pCofactor, old, old * 2, -1);
        }
        int p = pieces++;
        pKind[p] = kind;
        pValue[p] = value;
        pTop[p] = top;
        pCofactor[2 * p] = -1;
        pCofactor[2 * p + 1] = -1;
        pKids.add(kids);
        pieceIds.put(k, p);
        return p;
    }

    private int pTrue() { return piece(P_TRUE, 0, new int[0], Bdd.TERMINAL_VAR); }

    private int pFalse() { return piece(P_FALSE, 0, new int[0], Bdd.TERMINAL_VAR); }

    private int pGuard(int g) {
        if (g == Bdd.TRUE) return pTrue();
        if (g == Bdd.FALSE) return pFalse();
        return piece(P_GUARD, g, new int[0], guards.var(g));
    }

    private int pNext(int literal) { return piece(P_NEXT, literal, new int[0], Bdd.TERMINAL_VAR); }

    private int pAnd(int... xs) { return junction(P_AND, xs); }

    private int pOr(int... xs) { return junction(P_OR, xs); }

    /** AND / OR of pieces: flattened, constants absorbed, children sorted and distinct. */
    private int junction(int kind, int[] xs) {
        int unit = kind == P_AND ? P_TRUE : P_FALSE;   // neutral element
        int zero = kind == P_AND ? P_FALSE : P_TRUE;   // absorbing element
        int[] kids = new int[8];
        int n = 0;
        for (int x : xs) {
            int kx = pKind[x];
            if (kx == zero) return zero == P_TRUE ? pTrue() : pFalse();
            if (kx == unit) continue;
            int[] add = kx == kind ? pKids.get(x) : new int[] {x};
            for (int y : add) {
                if (n == kids.length) kids = Arrays.copyOf(kids, n * 2);
                kids[n++] = y;
            }
        }
        if (n == 0) return unit == P_TRUE ? pTrue() : pFalse();
        Arrays.sort(kids, 0, n);
        int m = 0;
        for (int i = 0; i < n; i++) if (m == 0 || kids[m - 1] != kids[i]) kids[m++] = kids[i];
        if (m == 1) return kids[0];
        int top = Bdd.TERMINAL_VAR;
        for (int i = 0; i < m; i++) top = Math.min(top, pTop[kids[i]]);
        return piece(kind, 0, Arrays.copyOf(kids, m), top);
    }

    /** Piece {@code p} with atom {@code v} fixed; {@code v} is never above the lowest atom p tests. */
    private int cofactor(int p, int v, boolean value) {
        if (pTop[p] != v) return p;
        int slot = 2 * p + (value ? 1 : 0);
        if (pCofactor[slot] >= 0) return pCofactor[slot];
        int r;
        if (pKind[p] == P_GUARD) {
            r = pGuard(guards.cofactor(pValue[p], v, value));
        } else {
            int[] kids = pKids.get(p);
            int[] out = new int[kids.length];
            for (int i = 0; i < kids.length; i++) out[i] = cofactor(kids[i], v, value);
            r = junction(pKind[p], out);
        }
        pCofactor[slot] = r;
        return r;
    }

    /** What node {@code n} requires of the current letter and of the rest, given memory {@code m}. */
    private int unfold(int n, int m) {
        long key = mix(((long) n << 32) | (isZero(needs(n)) ? 0 : m));
        Integer cached = unfoldings.get(key);
        if (cached != null) return cached;
        int r = switch (kind[n]) {
            case TRUE -> pTrue();
            case FALSE -> pFalse();
            case LIT -> {
                int v = na[n];
                int g = v < atoms.size() ? guards.ithVar(v) : pastNow.get(m)[v - atoms.size()];
                yield pGuard(nb[n] == 1 ? g : guards.not(g));
            }
            case AND -> pAnd(unfold(na[n], m), unfold(nb[n], m));
            case OR -> pOr(unfold(na[n], m), unfold(nb[n], m));
            case NEXT -> pNext(2 * na[n] + 1);
            case WEAK_NEXT -> pNext(2 * na[n]);
            case UNTIL -> pOr(unfold(nb[n], m), pAnd(unfold(na[n], m), pNext(2 * n + 1)));
            case WEAK_UNTIL -> pOr(unfold(nb[n], m), pAnd(unfold(na[n], m), pNext(2 * n)));
            case RELEASE -> pAnd(unfold(nb[n], m), pOr(unfold(na[n], m), pNext(2 * n)));
            case EVENTUALLY -> pOr(unfold(na[n], m), pNext(2 * n + 1));
            case ALWAYS -> pAnd(unfold(na[n], m), pNext(2 * n));
            default -> throw new IllegalStateException();
        };
        unfoldings.put(key, r);
        return r;
    }

    private final Map<Long, Integer> unfoldings = new HashMap<>();

    /** The obligation (BDD over next-literals) of a guard-free piece. */
    private int obligation(int p) {
        Integer cached = pieceObligation.get(p);
        if (cached != null) return cached;
        int r;
        switch (pKind[p]) {
            case P_TRUE -> r = Bdd.TRUE;
            case P_FALSE -> r = Bdd.FALSE;
            case P_NEXT -> r = obligations.ithVar(pValue[p]);
            case P_AND, P_OR -> {
                r = pKind[p] == P_AND ? Bdd.TRUE : Bdd.FALSE;
                for (int kid : pKids.get(p)) {
                    int o = obligation(kid);
                    r = pKind[p] == P_AND ? obligations.and(r, o) : obligations.or(r, o);
                }
            }
            default -> throw new IllegalStateException("guard left in a leaf");
        }
        pieceObligation.put(p, r);
        return r;
    }

    /**
     * The obligation {@code f} with each literal replaced by its one-step unfolding under memory
     * {@code m}: a positive function is {@code lo | (l & hi)} at a node testing literal l.
     */
    private int substitute(int f, int m) {
        if (f == Bdd.TRUE) return pTrue();
        if (f == Bdd.FALSE) return pFalse();
        long key = mix(((long) f << 32) | (isZero(needsOf(f)) ? 0 : m));
        Integer cached = substitutions.get(key);
        if (cached != null) return cached;
        int literal = obligations.var(f);
        int r = pOr(substitute(obligations.low(f), m),
                pAnd(unfold(literal >>> 1, m), substitute(obligations.high(f), m)));
        substitutions.put(key, r);
        return r;
    }

    /** Past subformulas that obligation {@code f} may read, now or later. */
    private int[] needsOf(int f) {
        if (f <= Bdd.TRUE) return new int[memWords];
        int[] cached = obligationNeeds.get(f);
        if (cached != null) return cached;
        int[] bits = needs(obligations.var(f) >>> 1).clone();
        or(bits, needsOf(obligations.low(f)));
        or(bits, needsOf(obligations.high(f)));
        obligationNeeds.put(f, bits);
        return bits;
    }

    /** Whether the trace may end here: strong literals false, weak ones true. */
    private boolean acceptsAtEnd(int f) {
        while (f > Bdd.TRUE) f = (obligations.var(f) & 1) == 1 ? obligations.low(f) : obligations.high(f);
        return f == Bdd.TRUE;
    }

    // ---------------------------------------------------------------- states

    private int internState(int f, int[] memory) {
        int m = internMemory(memory);
        long key = mix(((long) f << 32) | m);
        Integer id = stateIds.get(key);
        if (id != null) return id;
        int s = states;
        if (s >= maxStates) throw new Bdd.NodeLimit(true);
        stateIds.put(key, s);
        if (s == root.length) {
            root = Arrays.copyOf(root, s * 2);
            accepting = Arrays.copyOf(accepting, s * 2);
            stateObligation = Arrays.copyOf(stateObligation, s * 2);
            stateMemory = Arrays.copyOf(stateMemory, s * 2);
        }
        stateObligation[s] = f;
        stateMemory[s] = m;
        accepting[s] = acceptsAtEnd(f);
        states++;
        return s;
    }

    /** Irrelevant memory bits (of past formulas the obligation never reads) reset to their initial value. */
    private int[] mask(int[] memory, int f) {
        int[] need = needsOf(f);
        int[] out = new int[memWords];
        for (int w = 0; w < memWords; w++) out[w] = (memory[w] & need[w]) | (initialMemory[w] & ~need[w]);
        return out;
    }

    /** Builds the transition diagram of state {@code s}, interning the successor states. */
    private int successors(int s) {
        int m = stateMemory[s];
        return build(substitute(stateObligation[s], m), pastNext.get(m));
    }

    /**
     * The diagram of the successor as a function of the letter: splits on the lowest atom that the
     * piece or a next-memory bit still tests. Memoised on (piece, memory bits), across states.
     */
    private int build(int p, int[] memBits) {
        if (++buildCalls > buildLimit) throw new Bdd.NodeLimit();
        int v = pTop[p];
        for (int g : memBits) v = Math.min(v, guards.var(g));
        if (v == Bdd.TERMINAL_VAR) return ~leaf(p, memBits);
        int[] key = new int[memBits.length + 1];
        key[0] = p;
        System.arraycopy(memBits, 0, key, 1, memBits.length);
        Ints k = new Ints(key);
        Integer cached = builds.get(k);
        if (cached != null) return cached;
        int[] lo = new int[memBits.length];
        int[] hi = new int[memBits.length];
        for (int i = 0; i < memBits.length; i++) {
            lo[i] = guards.cofactor(memBits[i], v, false);
            hi[i] = guards.cofactor(memBits[i], v, true);
        }
        int r = diagrams.mk(v, build(cofactor(p, v, false), lo), build(cofactor(p, v, true), hi));
        builds.put(k, r);
        return r;
    }

    private final Map<Ints, Integer> builds = new HashMap<>();

    private int leaf(int p, int[] memBits) {
        int next = obligation(p);
        int[] memory = new int[memWords];
        for (int i = 0; i < memBits.length; i++) if (memBits[i] == Bdd.TRUE) setBit(memory, i);
        return internState(next, mask(memory, next));
    }

    private static final int PENDING_ALTERNATIVES = 8;

    /**
     * The open obligation of state {@code s}: for each way to meet it (a path of its BDD, the first
     * few), the strong literals it needs, in formula syntax, under the strong next they are read
     * with ({@code X φ}, {@code X (φ & ψ)}), so that the formula, read at the last event, is false
     * there as the state is (a bare {@code G !call(close)} would hold at the end: trial21); null when
     * the trace may end here.
     */
    String pending(int s) {
        int f = stateObligation[s];
        if (acceptsAtEnd(f)) return null;
        List<List<Integer>> ways = new ArrayList<>();
        paths(f, new ArrayList<>(), ways, PENDING_ALTERNATIVES + 1);
        List<String> parts = new ArrayList<>();
        for (List<Integer> way : ways.subList(0, Math.min(ways.size(), PENDING_ALTERNATIVES))) {
            Formula strong = null;
            for (int lit : way) {
                if ((lit & 1) == 1) strong = strong == null ? toFormula(lit >>> 1) : Formulas.and(strong, toFormula(lit >>> 1));
            }
            if (strong == null) continue;
            String need = "X " + Formulas.print(strong);   // a binary prints in its own parentheses
            parts.add(need);
        }
        if (ways.size() > PENDING_ALTERNATIVES) parts.add("...");
        return parts.isEmpty() ? null : String.join(" | ", parts);
    }

    /** Up to {@code max} paths to TRUE, each as the literals taken positively. */
    private void paths(int f, List<Integer> taken, List<List<Integer>> out, int max) {
        if (out.size() >= max || f == Bdd.FALSE) return;
        if (f == Bdd.TRUE) {
            out.add(new ArrayList<>(taken));
            return;
        }
        paths(obligations.low(f), taken, out, max);
        taken.add(obligations.var(f));
        paths(obligations.high(f), taken, out, max);
        taken.remove(taken.size() - 1);
    }

    // ---------------------------------------------------------------- bit sets

    private static void setBit(int[] bits, int i) { bits[i >>> 5] |= 1 << i; }

    private static boolean testBit(int[] bits, int i) { return (bits[i >>> 5] & (1 << i)) != 0; }

    private static void or(int[] into, int[] from) { for (int i = 0; i < into.length; i++) into[i] |= from[i]; }

    /**
     * A bijection on longs that spreads packed (int, int) keys over Long.hashCode, which would
     * otherwise collide on {@code hi ^ lo}.
     */
    static long mix(long key) { return key * 0x9E3779B97F4A7C15L; }

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
