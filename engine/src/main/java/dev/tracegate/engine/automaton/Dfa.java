package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.RvVerdict;

import java.util.List;

/**
 * A minimal deterministic automaton over the valuations of one formula's own atoms, immutable and
 * safe to share between threads. Letter bit {@code j} is the truth of {@code atoms().get(j)}.
 *
 * <p>Transitions are a flat table {@code table[state << k | letter]} when the formula has at most
 * {@link #TABLE_MAX_ATOMS} atoms; above that they are a decision diagram per state (inner node
 * tests one atom, leaf is a state), so a formula with many atoms costs memory in proportion to its
 * states and the atoms it actually tests, not to {@code 2^k}.
 */
public final class Dfa {
    /** Largest number of atoms for which transitions are stored as a flat table. */
    public static final int TABLE_MAX_ATOMS = 10;

    private final Formula formula;
    private final List<Atom> atoms;
    private final int k;
    private final int initial;
    private final boolean[] accepting;
    private final RvVerdict[] verdicts;
    private final String[] pending;
    private final int[] table;
    // Decision diagram (k > TABLE_MAX_ATOMS): root[state] is a node id, or ~target for a leaf.
    private final int[] root;
    private final int[] nodeAtom;
    private final int[] nodeLo;
    private final int[] nodeHi;

    private Dfa(Formula formula, List<Atom> atoms, int initial, boolean[] accepting, boolean[] sink,
                String[] pending, int[] table, int[] root, int[] nodeAtom, int[] nodeLo, int[] nodeHi) {
        this.formula = formula;
        this.atoms = List.copyOf(atoms);
        this.k = atoms.size();
        this.initial = initial;
        this.accepting = accepting.clone();
        this.verdicts = new RvVerdict[accepting.length];
        for (int s = 0; s < accepting.length; s++) verdicts[s] = RvVerdict.of(accepting[s], sink[s]);
        this.pending = pending.clone();
        this.table = table;
        this.root = root;
        this.nodeAtom = nodeAtom;
        this.nodeLo = nodeLo;
        this.nodeHi = nodeHi;
    }

    /**
     * A table automaton: {@code table[s << k | letter]} is the successor of state {@code s}.
     *
     * @param sink    {@code sink[s]}: every state reachable from {@code s} has the acceptance of {@code s}
     * @param pending {@code pending[s]}: the obligation still open in {@code s}, in formula syntax
     *                (shown to users as the "unmet obligation" at session end); may hold nulls
     */
    public static Dfa ofTable(Formula formula, List<Atom> atoms, int initial, boolean[] accepting,
                              boolean[] sink, String[] pending, int[] table) {
        int k = atoms.size();
        if (k > TABLE_MAX_ATOMS) throw new IllegalArgumentException("table automata take at most " + TABLE_MAX_ATOMS + " atoms");
        if (table.length != accepting.length << k) throw new IllegalArgumentException("table size");
        return new Dfa(formula, atoms, initial, accepting, sink, pending, table.clone(), null, null, null, null);
    }

    /**
     * A diagram automaton: {@code root[s]} is either {@code ~t} (the successor is {@code t} whatever
     * the letter) or a node {@code n}; node {@code n} tests atom {@code nodeAtom[n]} and continues at
     * {@code nodeHi[n]} when it holds, {@code nodeLo[n]} otherwise, with the same encoding.
     */
    public static Dfa ofDiagram(Formula formula, List<Atom> atoms, int initial, boolean[] accepting,
                                boolean[] sink, String[] pending, int[] root, int[] nodeAtom, int[] nodeLo,
                                int[] nodeHi) {
        return new Dfa(formula, atoms, initial, accepting, sink, pending, null, root.clone(),
                nodeAtom.clone(), nodeLo.clone(), nodeHi.clone());
    }

    public Formula formula() { return formula; }

    /** The formula's atoms; atom {@code j} is letter bit {@code j}. */
    public List<Atom> atoms() { return atoms; }

    public int stateCount() { return accepting.length; }

    public int initialState() { return initial; }

    public boolean accepting(int state) { return accepting[state]; }

    public RvVerdict verdict(int state) { return verdicts[state]; }

    /** The obligation still open in this state, in formula syntax, or null when none is recorded. */
    public String pending(int state) { return pending[state]; }

    /** Whether transitions are a flat table (else a decision diagram). */
    public boolean isTable() { return table != null; }

    /**
     * Hot path: the successor of {@code state} on the letter whose bit {@code j} is bit
     * {@code atomIndex[j]} of the global valuation {@code valuation} (64 atoms a word).
     */
    public int step(int state, long[] valuation, int[] atomIndex) {
        final int[] t = table;
        if (t != null) {
            int letter = 0;
            for (int j = 0; j < atomIndex.length; j++) {
                int g = atomIndex[j];
                letter |= (int) ((valuation[g >>> 6] >>> g) & 1L) << j;
            }
            return t[(state << k) | letter];
        }
        int n = root[state];
        while (n >= 0) {
            int g = atomIndex[nodeAtom[n]];
            n = ((valuation[g >>> 6] >>> g) & 1L) != 0 ? nodeHi[n] : nodeLo[n];
        }
        return ~n;
    }

    /** The successor of {@code state} on a local letter (bit {@code j} = atom {@code j}); k ≤ 63. */
    public int next(int state, long letter) {
        if (table != null) return table[(state << k) | (int) letter];
        int n = root[state];
        while (n >= 0) n = ((letter >>> nodeAtom[n]) & 1L) != 0 ? nodeHi[n] : nodeLo[n];
        return ~n;
    }

    /** Runs the automaton from the initial state over local letters. */
    public int run(long... letters) {
        int s = initial;
        for (long l : letters) s = next(s, l);
        return s;
    }

    /** The distinct successors of {@code state}, in increasing order. */
    public int[] successors(int state) {
        java.util.BitSet seen = new java.util.BitSet(stateCount());
        if (table != null) {
            int base = state << k;
            for (int l = 0; l < (1 << k); l++) seen.set(table[base + l]);
        } else {
            collectLeaves(root[state], seen);
        }
        return seen.stream().toArray();
    }

    private void collectLeaves(int n, java.util.BitSet seen) {
        if (n < 0) {
            seen.set(~n);
            return;
        }
        collectLeaves(nodeLo[n], seen);
        collectLeaves(nodeHi[n], seen);
    }

    /**
     * A letter that takes {@code from} to {@code to}, as the set of local atoms that hold (atoms the
     * transition does not test are left false), or null when no letter does.
     */
    public java.util.BitSet letterTo(int from, int to) {
        if (table != null) {
            int base = from << k;
            for (int l = 0; l < (1 << k); l++) {
                if (table[base + l] == to) return java.util.BitSet.valueOf(new long[] {l});
            }
            return null;
        }
        java.util.BitSet path = new java.util.BitSet(k);
        return pathTo(root[from], to, path) ? path : null;
    }

    private boolean pathTo(int n, int to, java.util.BitSet path) {
        if (n < 0) return ~n == to;
        if (pathTo(nodeLo[n], to, path)) return true;
        path.set(nodeAtom[n]);
        if (pathTo(nodeHi[n], to, path)) return true;
        path.clear(nodeAtom[n]);
        return false;
    }

    /** Graphviz DOT; edges are labelled with the letters (as atom literals) that take them. */
    public String toDot() { return DfaDot.render(this); }

    // Package access for DfaDot and the compiler's own checks.
    int atomCount() { return k; }
    int[] table() { return table; }
    int[] root() { return root; }
    int[] nodeAtom() { return nodeAtom; }
    int[] nodeLo() { return nodeLo; }
    int[] nodeHi() { return nodeHi; }
}
