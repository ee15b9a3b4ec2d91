package dev.tracegate.engine.automaton;

import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * Compiles a formula of the temporal layer (LTLf with past) to its minimal {@link Dfa}, refusing
 * formulas whose automaton would exceed a bound on the number of states.
 *
 * <p>Method: the formula's negation normal form is unfolded by symbolic progression (see
 * {@link Progression}), which yields a complete deterministic automaton whose transitions are
 * decision diagrams over the atoms; Moore partition refinement over those diagrams (with leaves
 * replaced by blocks, a reduced ordered diagram is a canonical signature) gives the minimal
 * automaton, in which the states whose acceptance can no longer change are exactly the self-loops.
 * Thread-safe: each call works on its own data.
 */
public final class DfaCompiler {
    private final int maxStates;

    /**
     * @param maxStates the largest number of states the compiler may explore for one formula; it counts
     *                  the states built before minimisation (on random formulas about 1.2 times the
     *                  minimal count), and also bounds the intermediate work that many states allow
     */
    public DfaCompiler(int maxStates) {
        if (maxStates < 1) throw new IllegalArgumentException("maxStates must be at least 1, got " + maxStates);
        this.maxStates = maxStates;
    }

    /** The bound on states this compiler enforces. */
    public int maxStates() { return maxStates; }

    /**
     * The minimal automaton of {@code f}.
     *
     * @throws StateLimitException when the automaton needs more than {@code maxStates} states
     * @throws CompileException    when a past operator has a future operator in its operand
     */
    public Dfa compile(Formula f) {
        Progression p = new Progression(f, maxStates);
        try {
            p.explore();
            return minimise(f, p);
        } catch (Bdd.NodeLimit e) {
            throw limit(f, e.states);
        }
    }

    private StateLimitException limit(Formula f, boolean states) {
        String text = Formulas.print(f);
        String what = states ? "needs more than " + maxStates + " automaton states"
                : "is too large to compile within the bound of " + maxStates + " automaton states (its intermediate "
                + "normal forms outgrew what that bound allows)";
        return new StateLimitException(text, maxStates, states, "formula " + shorten(text) + " " + what + "; split the "
                + "contract into smaller formulas, or " + RAISE_BOUND);
    }

    /** How the agent's and a library's bound is raised (a command with its own bound, such as check, says its own instead). */
    public static final String RAISE_BOUND = "raise the bound (system property tracegate.engine.max-states, or the library's max-states setting)";

    /** The printed formula, cut to a readable length for messages. */
    static String shorten(String text) {
        return text.length() <= 160 ? text : text.substring(0, 150) + " ... (" + text.length() + " chars)";
    }

    private Dfa minimise(Formula f, Progression p) {
        int n = p.stateCount();
        int k = p.atoms.size();
        DiagramTable raw = p.diagrams;
        int[] block = new int[n];
        int blocks = 0;
        {
            int accBlock = -1, rejBlock = -1;
            for (int s = 0; s < n; s++) {
                if (p.accepting[s]) {
                    if (accBlock < 0) accBlock = blocks++;
                    block[s] = accBlock;
                } else {
                    if (rejBlock < 0) rejBlock = blocks++;
                    block[s] = rejBlock;
                }
            }
        }
        DiagramTable canon;
        int[] sig = new int[n];
        // Moore refinement: a state's new block is (old block, its transition diagram with leaves
        // mapped to old blocks); stable when no block splits.
        while (true) {
            canon = new DiagramTable(Math.max(raw.size() + 1, 1));
            int[] memo = new int[raw.size()];
            Arrays.fill(memo, Integer.MIN_VALUE);
            Map<Long, Integer> ids = new HashMap<>();
            int[] next = new int[n];
            for (int s = 0; s < n; s++) {
                sig[s] = quotient(p.root[s], raw, canon, block, memo);
                long key = Progression.mix(((long) block[s] << 32) | (sig[s] & 0xFFFFFFFFL));
                Integer b = ids.get(key);
                if (b == null) {
                    b = ids.size();
                    ids.put(key, b);
                }
                next[s] = b;
            }
            if (ids.size() == blocks) break;
            block = next;
            blocks = ids.size();
        }
        // Blocks are numbered by first appearance in exploration order, so the initial state is 0.
        int[] rep = new int[blocks];
        Arrays.fill(rep, -1);
        for (int s = 0; s < n; s++) if (rep[block[s]] < 0) rep[block[s]] = s;
        boolean[] accepting = new boolean[blocks];
        int[] root = new int[blocks];
        String[] pending = new String[blocks];
        for (int b = 0; b < blocks; b++) {
            accepting[b] = p.accepting[rep[b]];
            root[b] = sig[rep[b]];
        }
        boolean[] sink = sinks(blocks, root);
        for (int b = 0; b < blocks; b++) pending[b] = accepting[b] || sink[b] ? null : p.pending(rep[b]);
        int initial = block[0];
        if (k <= Dfa.TABLE_MAX_ATOMS) {
            int[] table = new int[blocks << k];
            for (int b = 0; b < blocks; b++) {
                for (int letter = 0; letter < 1 << k; letter++) table[(b << k) | letter] = canon.follow(root[b], letter);
            }
            return Dfa.ofTable(f, p.atoms, initial, accepting, sink, pending, table);
        }
        return Dfa.ofDiagram(f, p.atoms, initial, accepting, sink, pending, root, canon.vars(), canon.lows(),
                canon.highs());
    }

    private static int quotient(int r, DiagramTable raw, DiagramTable canon, int[] block, int[] memo) {
        if (r < 0) return ~block[~r];
        if (memo[r] != Integer.MIN_VALUE) return memo[r];
        int q = canon.mk(raw.var(r), quotient(raw.low(r), raw, canon, block, memo),
                quotient(raw.high(r), raw, canon, block, memo));
        memo[r] = q;
        return q;
    }

    /**
     * A state is a sink when no state of the other acceptance is reachable from it. In a minimal
     * automaton such a state is equivalent to every state it reaches, hence reaches only itself: its
     * (reduced) diagram is the single leaf "itself". The converse is immediate.
     */
    private static boolean[] sinks(int n, int[] root) {
        boolean[] sink = new boolean[n];
        for (int s = 0; s < n; s++) sink[s] = root[s] == ~s;
        return sink;
    }
}
