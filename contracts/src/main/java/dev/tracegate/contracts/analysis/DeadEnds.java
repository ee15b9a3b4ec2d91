package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.ltl.RvVerdict;
import dev.tracegate.engine.monitor.Contract;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The dead-end search of {@link LibraryAnalysis}, over the explicit product of every contract's
 * assumption and guarantee automata (one minimal product automaton would merge a trapped prefix
 * with a violated one, so it cannot tell them apart).
 *
 * <p>A contract reads as the monitor reads it: at a prefix it is IDLE when its assumption is
 * permanently violated, FAIL when it is not IDLE and its guarantee is permanently violated;
 * a finished trace keeps it when it violates the assumption or satisfies the guarantee. A dead end
 * is a non-empty prefix, reached without any contract failing on the way, where no contract fails
 * yet but no continuation (ending the session now included) keeps every contract. Continuations
 * range over all events, the environment's included: the search asks whether some way out exists,
 * not whether the agent can force one against any user or tool.
 */
final class DeadEnds {
    /** A letter is one long: more atoms than this in all contracts make the check too large. */
    static final int MAX_ATOMS = 63;
    /**
     * One automaton's letters are enumerated, those that one event can produce (no two calls of different tools, ...):
     * more than 2^16 of them for one formula make the check too large. A tool allow-list G(call -> (call(t0) | ... |
     * call(tN))) has 2(N + 2) such letters, however many tools it lists (trial36 04: 16 tools were too many).
     */
    static final int MAX_LOCAL_ATOMS = 16;
    static final int MAX_LOCAL_LETTERS = 1 << MAX_LOCAL_ATOMS;
    /** Enumeration steps allowed per product state of the bound (so the search ends like the other checks). */
    private static final long STEPS_PER_STATE = 4096;
    /**
     * Working memory allowed per product state of the bound, in bytes: the reachable states and their edges, and the
     * partial successors one state's join keeps (each holds a state tuple), are counted against {@code maxStates} times
     * this, so the search needs at most that much heap whatever the library (the engine's default bound of 10,000 states:
     * 20 MB; check's 20,000: 40 MB). Session 20: the partials of one join were not counted, and a library of 50
     * invariants over related atoms needed more than 6 GB.
     */
    static final long BYTES_PER_STATE = 2048;

    /** The search could not finish within the bound. */
    static final class TooLarge extends Exception {
        /** Whether a larger state bound would lift it (false: too many atoms, which no bound lifts). */
        final boolean states;

        TooLarge(String message, boolean states) {
            super(message, null, false, false);
            this.states = states;
        }
    }

    /** A dead end: the shortest trace to it (each event the atoms that hold) and the contracts' automata states there. */
    record DeadEnd(List<Set<Atom>> trace, int[] tuple) {}

    final List<Contract> contracts;
    /**
     * The tools T whose results some contract reads ({@code returned(T)}, {@code failed(T)}, {@code result_matches(T, re)};
     * "" for atoms of any tool's result, {@code return}, {@code result_matches(re)}): a result of T comes only after a call
     * of T in the session, a fact of the past that no pairwise relation of atoms says (trial42 06), searched as one more
     * automaton per tool, {@code G(results of T -> O call(T))} (for "": {@code O call}), after the
     * contracts' (components 2c and 2c+1 for c from {@code contracts.size()} on: true, and the fact), whose
     * violation, like a contract doomed, leaves the successor out.
     */
    final List<String> resultTools;
    private final Dfa[] comp;          // 2c = assumption of contract c, 2c+1 = its guarantee (then the facts, as above)
    private final List<Atom> atoms;    // all atoms of all components; letter bit g = atoms.get(g)
    private final int[][] localAtom;   // localAtom[i][j] = global index of component i's atom j
    private final long[] clash;        // clash[g]: the atoms that no event makes true together with atom g
    private final long[] need;         // need[g]: the atoms that every event making atom g true makes true
    private final long[] neededBy;     // neededBy[g]: the atoms whose need holds g
    private final long[] later;        // later[i]: atoms that some component after i reads, and every atom of a
                                       // clash or a need (a join checks them against all atoms assigned so far)
    private final int[][][] table;     // table[i][s]: component i's successor of state s per local letter, built lazily
    private final long[][] letters;    // letters[i]: component i's local letters one event can produce, fewest atoms first
    private final int maxStates;
    private final long maxBytes;
    /** What the search did, counted (tests bound the work by these, not by time). */
    long partialsMade, peakPartials, statesMade, edgesMade, peakBytes;

    DeadEnds(List<Contract> contracts, DfaCompiler compiler) throws TooLarge {
        this(contracts, compiler, true);
    }

    /** {@code resultsAfterCalls}: whether the search knows that a result of a tool comes only after a call of it (above). */
    DeadEnds(List<Contract> contracts, DfaCompiler compiler, boolean resultsAfterCalls) throws TooLarge {
        this(contracts, compiler, resultsAfterCalls, null);
    }

    /**
     * As above; {@code purposesDeclared}: whether the policy declares purposes, which decides {@code undeclared_purpose} at
     * events without purposes (null: unknown, free there; {@link AtomRelations#undeclaredPurpose}).
     */
    DeadEnds(List<Contract> contracts, DfaCompiler compiler, boolean resultsAfterCalls, Boolean purposesDeclared) throws TooLarge {
        this.contracts = List.copyOf(contracts);
        this.maxStates = compiler.maxStates();
        this.maxBytes = (long) maxStates * BYTES_PER_STATE;
        Set<Atom> all = new LinkedHashSet<>();
        List<Dfa> dfas = new ArrayList<>();
        for (Contract contract : contracts) {
            for (Formula f : List.of(contract.assume(), contract.guarantee())) {
                Dfa d = compiler.compile(f);
                dfas.add(d);
                all.addAll(d.atoms());
            }
        }
        Map<String, Formula> results = resultsAfterCalls ? resultFacts(all) : Map.of();
        resultTools = List.copyOf(results.keySet());
        for (Map.Entry<String, Formula> r : results.entrySet()) {
            Formula fact = r.getValue();
            dfas.add(compiler.compile(Formula.Const.TRUE));
            Dfa d = compiler.compile(fact);
            dfas.add(d);
            all.addAll(d.atoms());
        }
        comp = dfas.toArray(new Dfa[0]);
        atoms = List.copyOf(all);
        if (atoms.size() > MAX_ATOMS) {
            throw new TooLarge("dead-end check skipped: the contracts read " + atoms.size() + " atoms, more than the "
                    + MAX_ATOMS + " this check handles", false);
        }
        LibraryAnalysis.Letters relations = new LibraryAnalysis.Letters(atoms, purposesDeclared);
        clash = relations.clash;
        need = relations.need;
        neededBy = new long[atoms.size()];
        for (int g = 0; g < atoms.size(); g++) {
            for (long m = need[g]; m != 0; m &= m - 1) neededBy[Long.numberOfTrailingZeros(m)] |= 1L << g;
            for (long m = clash[g]; m != 0; m &= m - 1) clash[Long.numberOfTrailingZeros(m)] |= 1L << g;   // both ways
        }
        localAtom = new int[comp.length][];
        letters = new long[comp.length][];
        table = new int[comp.length][][];
        for (int i = 0; i < comp.length; i++) {
            int k = comp[i].atoms().size();
            localAtom[i] = new int[k];
            for (int j = 0; j < k; j++) localAtom[i][j] = atoms.indexOf(comp[i].atoms().get(j));
            letters[i] = possibleLetters(localAtom[i]);
            if (letters[i] == null) {
                throw new TooLarge("dead-end check skipped: a formula of '" + name(i / 2) + "' reads "
                        + k + " atoms that one event can make true in more than " + MAX_LOCAL_LETTERS + " ways (about "
                        + MAX_LOCAL_ATOMS + " atoms that can hold together), more than this check enumerates events over", false);
            }
            table[i] = new int[comp[i].stateCount()][];
        }
        // an assigned atom is kept while a later component reads it, or reads an atom whose assignment is checked against
        // it (a clash or an implication either way); no longer: no later assignment can contradict it (session 20: every
        // atom of a relation was kept to the end, and the partials doubled per such atom)
        long[] touch = new long[atoms.size()];
        for (int g = 0; g < atoms.size(); g++) touch[g] = 1L << g | clash[g] | need[g] | neededBy[g];
        later = new long[comp.length];
        for (int i = comp.length - 2; i >= 0; i--) {
            long m = later[i + 1];
            for (int g : localAtom[i + 1]) m |= touch[g];
            later[i] = m;
        }
    }

    /**
     * For each tool T whose results {@code atoms} read ({@link #resultTools}; "" for a result of any tool), the fact
     * {@code G(results of T -> O call(T))} ({@code O call} for ""), in the order the atoms first name the tools.
     */
    static Map<String, Formula> resultFacts(java.util.Collection<Atom> atoms) {
        Map<String, Formula> results = new LinkedHashMap<>();   // tool -> the disjunction of the atoms of its results
        for (Atom a : atoms) {
            if (AtomRelations.kinds(a) != AtomRelations.RETURN) continue;
            String tool = AtomRelations.tool(a);
            results.merge(tool == null ? "" : tool, a, Formulas::or);   // "": a result of any tool, after some call
        }
        Map<String, Formula> facts = new LinkedHashMap<>();
        for (Map.Entry<String, Formula> r : results.entrySet()) {
            Atom call = r.getKey().isEmpty() ? Atom.of("call") : Atom.of("call", new Term.Name(r.getKey()));
            facts.put(r.getKey(), Formulas.unary(Formula.UnOp.ALWAYS, Formulas.binary(Formula.BinOp.IMPLIES, r.getValue(),
                    Formulas.unary(Formula.UnOp.ONCE, call))));
        }
        return facts;
    }

    /**
     * The local letters (bit j: atom {@code local[j]}) in which no two atoms exclude each other (two calls of different
     * tools, a call and a result...: {@link AtomRelations#excludes}) and no atom lacks one it implies among them, fewest
     * atoms first; null when more than {@link #MAX_LOCAL_LETTERS}. A letter left out is one no event produces, which the
     * join below refuses anyway.
     */
    private long[] possibleLetters(int[] local) {
        List<Long> out = new ArrayList<>();
        out.add(0L);
        for (int j = 0; j < local.length; j++) {
            int size = out.size();
            for (int x = 0; x < size; x++) {
                long l = out.get(x);
                boolean ok = true;
                for (long m = l; m != 0 && ok; m &= m - 1) ok = (clash[local[Long.numberOfTrailingZeros(m)]] >>> local[j] & 1L) == 0;
                if (!ok) continue;
                out.add(l | 1L << j);
                if (out.size() > MAX_LOCAL_LETTERS) return null;
            }
        }
        return out.stream().filter(l -> impliedPresent(l, local)).sorted(java.util.Comparator.comparingInt(Long::bitCount))
                .mapToLong(Long::longValue).toArray();
    }

    /** Every atom of {@code local} that an atom of the local letter implies is in the letter too. */
    private boolean impliedPresent(long l, int[] local) {
        long global = 0, all = 0;
        for (int j = 0; j < local.length; j++) {
            all |= 1L << local[j];
            if ((l >>> j & 1L) != 0) global |= 1L << local[j];
        }
        for (long m = global; m != 0; m &= m - 1) if ((need[Long.numberOfTrailingZeros(m)] & all & ~global) != 0) return false;
        return true;
    }

    /** Component {@code i}'s successor of state {@code s} per local letter, or a single target when no letter matters. */
    private int[] table(int i, int s) {
        int[] t = table[i][s];
        if (t == null) {
            t = new int[letters[i].length];
            boolean constant = true;
            for (int l = 0; l < t.length; l++) {
                t[l] = comp[i].next(s, letters[i][l]);
                constant &= t[l] == t[0];
            }
            if (constant) t = new int[] {t[0]};
            table[i][s] = t;
        }
        return t;
    }

    /** Bytes one partial successor takes besides its tuple (the record, its key, the map entry and list slot). */
    private static final long PARTIAL_BYTES = 160;
    /** Bytes one reachable state takes besides its tuple (its key, index entry, boxed index, list slots, edge arrays). */
    private static final long STATE_BYTES = 160;
    /** Bytes one edge takes (its target and its letter). */
    private static final long EDGE_BYTES = 12;

    /**
     * The distinct successors of product state {@code t}, each with one letter (global atom bits) that
     * takes it there. Components are joined one at a time, keeping per partial successor only the
     * values of atoms a later component reads, or checks its own against (so letters of many atoms are
     * never enumerated whole). A successor in which some contract can no longer be kept (its guarantee
     * violated for good while its assumption holds for good: no continuation keeps it, and the monitor
     * has failed it) is left out as soon as its contract is joined: the search goes through no such
     * state, and no state reaches a way out through it.
     */
    private Map<Key, Long> successors(int[] t, long[] steps, long graphBytes) throws TooLarge {
        List<Partial> cur = new ArrayList<>();
        cur.add(new Partial(new int[t.length], 0, 0, 0));
        long budget = (long) maxStates * STEPS_PER_STATE;
        long partialBytes = PARTIAL_BYTES + 16 + 4L * t.length;
        for (int i = 0; i < t.length; i++) {
            boolean guarantee = (i & 1) == 1;
            int[] tab = t[i] < 0 ? new int[] {-1} : table(i, t[i]);
            Map<PartialKey, Partial> out = new LinkedHashMap<>();
            for (Partial p : cur) {
                int[] ptab = tab;
                RvVerdict assumed = null;
                if (guarantee) {
                    int a = p.next()[i - 1];
                    assumed = a < 0 ? RvVerdict.PERMANENTLY_VIOLATED : comp[i - 1].verdict(a);
                    // the assumption is broken for good: the contract is IDLE whatever its guarantee reads
                    if (assumed == RvVerdict.PERMANENTLY_VIOLATED) ptab = new int[] {-1};
                }
                if (ptab.length == 1) {
                    if (doomed(i, assumed, ptab[0])) continue;
                    int[] n = p.next().clone();
                    n[i] = ptab[0];
                    Partial q = new Partial(n, p.mask() & later[i], p.values() & later[i], p.letter());
                    put(out, q, cur.size(), partialBytes, graphBytes);
                    continue;
                }
                steps[0] += ptab.length;
                if (steps[0] > budget) throw tooLarge();
                for (int li = 0; li < ptab.length; li++) {
                    if (doomed(i, assumed, ptab[li])) continue;
                    long l = letters[i][li];
                    long mask = p.mask(), values = p.values(), letter = p.letter();
                    boolean ok = true;
                    for (int j = 0; j < localAtom[i].length && ok; j++) {
                        int g = localAtom[i][j];
                        long bit = (l >>> j) & 1L;
                        if ((mask >>> g & 1L) != 0) {
                            ok = (values >>> g & 1L) == bit;
                            continue;
                        }
                        if (bit == 0) {
                            ok = (values & neededBy[g]) == 0;   // no atom assigned true implies it
                            mask |= 1L << g;
                            continue;
                        }
                        ok = (values & clash[g]) == 0 && (need[g] & mask & ~values) == 0;
                        mask |= 1L << g;
                        values |= 1L << g;
                        letter |= 1L << g;
                    }
                    if (!ok) continue;
                    int[] n = p.next().clone();
                    n[i] = ptab[li];
                    put(out, new Partial(n, mask & later[i], values & later[i], letter), cur.size(), partialBytes, graphBytes);
                }
            }
            cur = new ArrayList<>(out.values());
        }
        Map<Key, Long> succ = new LinkedHashMap<>();
        for (Partial p : cur) succ.putIfAbsent(new Key(normalise(p.next())), p.letter());
        return succ;
    }

    /** Component {@code i}, a guarantee whose assumption holds for good ({@code assumed}), is violated for good in {@code s}. */
    private boolean doomed(int i, RvVerdict assumed, int s) {
        return assumed == RvVerdict.PERMANENTLY_SATISFIED && s >= 0 && comp[i].verdict(s) == RvVerdict.PERMANENTLY_VIOLATED;
    }

    /**
     * A partial successor: successor states of components 0..i-1, assigned atoms (mask, values: those a later component
     * reads, or that a later component's atom clashes with, implies or is implied by), witness letter.
     */
    private record Partial(int[] next, long mask, long values, long letter) {}

    /** Adds a partial to this join step's, counting it with those of the step before and the graph against the bound. */
    private void put(Map<PartialKey, Partial> out, Partial q, int before, long partialBytes, long graphBytes) throws TooLarge {
        if (out.putIfAbsent(new PartialKey(q.next(), q.mask(), q.values()), q) != null) return;
        partialsMade++;
        long live = before + out.size();
        if (live > peakPartials) peakPartials = live;
        long bytes = graphBytes + live * partialBytes;
        if (bytes > peakBytes) peakBytes = bytes;
        if (bytes > maxBytes) throw tooMuchMemory();
    }

    private TooLarge tooMuchMemory() {
        return new TooLarge("dead-end check skipped: the product of " + contracts.size() + " contracts over " + atoms.size()
                + " atoms needs more than the " + size(maxBytes) + " of working memory that the bound of " + maxStates
                + " states allows (" + size(BYTES_PER_STATE) + " a state); " + DfaCompiler.RAISE_BOUND, true);
    }

    private static String size(long bytes) {
        return bytes >= 1L << 20 ? (bytes >> 20) + " MB" : (bytes >> 10) + " KB";
    }

    /** A partial successor as a hash key (all partials of one join step fill the same components). */
    private record PartialKey(int[] next, long mask, long values) {
        @Override public boolean equals(Object o) {
            return o instanceof PartialKey k && mask == k.mask && values == k.values && Arrays.equals(next, k.next);
        }
        @Override public int hashCode() { return Arrays.hashCode(next) * 31 + Long.hashCode(mask * 31 + values); }
    }

    private TooLarge tooLarge() {
        return new TooLarge("dead-end check skipped: the product of " + contracts.size() + " contracts over "
                + atoms.size() + " atoms needs more than " + maxStates + " states", true);
    }

    int[] initial() {
        int[] t = new int[comp.length];
        for (int i = 0; i < comp.length; i++) t[i] = comp[i].initialState();
        return normalise(t);
    }

    /** Contract {@code c}'s id, or the fact it stands for. */
    private String name(int c) {
        if (c < contracts.size()) return contracts.get(c).id();
        String tool = resultTools.get(c - contracts.size());
        return tool.isEmpty() ? "results after calls" : "the results of " + tool + " after its calls";
    }

    /** An IDLE contract stays IDLE: both its states become -1, so prefixes that differ only there are one state. */
    private int[] normalise(int[] t) {
        for (int c = 0; c < comp.length / 2; c++) {
            int a = t[2 * c];
            if (a < 0 || comp[2 * c].verdict(a) == RvVerdict.PERMANENTLY_VIOLATED) {
                t[2 * c] = -1;
                t[2 * c + 1] = -1;
            }
        }
        return t;
    }

    /** The product state after one event at which exactly the atoms {@code holds} of this product's atoms hold. */
    int[] step(int[] t, Set<Atom> holds) {
        int[] n = new int[t.length];
        for (int i = 0; i < t.length; i++) {
            if (t[i] < 0) {
                n[i] = -1;
                continue;
            }
            long x = 0;
            List<Atom> own = comp[i].atoms();
            for (int j = 0; j < own.size(); j++) if (holds.contains(own.get(j))) x |= 1L << j;
            n[i] = comp[i].next(t[i], x);
        }
        return normalise(n);
    }

    /** Some contract is FAIL: its assumption can still hold and its guarantee is permanently violated (or a fact is). */
    boolean fails(int[] t) {
        for (int c = 0; c < comp.length / 2; c++) {
            if (t[2 * c] >= 0 && comp[2 * c + 1].verdict(t[2 * c + 1]) == RvVerdict.PERMANENTLY_VIOLATED) return true;
        }
        return false;
    }

    /** The trace ending here keeps every contract (and fact). */
    boolean accepting(int[] t) {
        for (int c = 0; c < comp.length / 2; c++) {
            if (t[2 * c] >= 0 && comp[2 * c].accepting(t[2 * c]) && !comp[2 * c + 1].accepting(t[2 * c + 1])) return false;
        }
        return true;
    }

    /** The open obligation of contract {@code c}'s guarantee at {@code t}, or null when ending there keeps it. */
    String open(int[] t, int c) {
        if (t[2 * c] < 0 || !comp[2 * c].accepting(t[2 * c]) || comp[2 * c + 1].accepting(t[2 * c + 1])) return null;
        String p = comp[2 * c + 1].pending(t[2 * c + 1]);
        return p == null ? "" : p;
    }

    /** The reachable part of the product: states, and per state its distinct successors with one letter each. */
    private final class Graph {
        final List<int[]> states = new ArrayList<>();
        final List<int[]> succ = new ArrayList<>();
        final List<long[]> succLetter = new ArrayList<>();
        private final Map<Key, Integer> index = new HashMap<>();
        private final long[] steps = new long[1];
        private long bytes;

        Graph(int[] start, boolean stopAtAccepting) throws TooLarge {
            add(start);
            for (int s = 0; s < states.size(); s++) {
                int[] t = states.get(s);
                if (stopAtAccepting && accepting(t)) return;
                Map<Key, Long> next = successors(t, steps, bytes);
                bytes += 32 + EDGE_BYTES * next.size();
                edgesMade += next.size();
                int[] out = new int[next.size()];
                long[] via = new long[next.size()];
                int n = 0;
                for (Map.Entry<Key, Long> e : next.entrySet()) {
                    out[n] = add(e.getKey().t());
                    via[n++] = e.getValue();
                }
                succ.add(out);
                succLetter.add(via);
            }
        }

        private int add(int[] t) throws TooLarge {
            Key k = new Key(t);
            Integer i = index.get(k);
            if (i != null) return i;
            if (states.size() >= maxStates) throw tooLarge();
            bytes += STATE_BYTES + 16 + 4L * t.length;
            if (bytes > peakBytes) peakBytes = bytes;
            if (bytes > maxBytes) throw tooMuchMemory();
            statesMade++;
            index.put(k, states.size());
            states.add(t);
            return states.size() - 1;
        }
    }

    /** The shortest dead end, or null when there is none. */
    /** Every state of {@code guarantee} that is not violated for good is accepting: a prefix that keeps it can end. */
    static boolean endsAnywhere(Dfa guarantee) {
        for (int q = 0; q < guarantee.stateCount(); q++) {
            if (guarantee.verdict(q) != RvVerdict.PERMANENTLY_VIOLATED && !guarantee.accepting(q)) return false;
        }
        return true;
    }

    DeadEnd search() throws TooLarge {
        Graph g = new Graph(initial(), false);
        int n = g.states.size();
        // live: some continuation from here (the empty one included) keeps every contract
        List<List<Integer>> pred = new ArrayList<>(n);
        for (int s = 0; s < n; s++) pred.add(new ArrayList<>());
        for (int s = 0; s < n; s++) for (int t : g.succ.get(s)) pred.get(t).add(s);
        boolean[] live = new boolean[n];
        ArrayDeque<Integer> q = new ArrayDeque<>();
        for (int s = 0; s < n; s++) {
            if (accepting(g.states.get(s))) {
                live[s] = true;
                q.add(s);
            }
        }
        while (!q.isEmpty()) {
            for (int p : pred.get(q.poll())) {
                if (!live[p]) {
                    live[p] = true;
                    q.add(p);
                }
            }
        }
        // shortest path through prefixes on which no contract fails (the monitor lets them through)
        int[] parent = new int[n];
        long[] parentLetter = new long[n];
        Arrays.fill(parent, -2);
        parent[0] = -1;
        q.add(0);
        while (!q.isEmpty()) {
            int s = q.poll();
            if (s != 0 && !live[s]) return new DeadEnd(trace(g, parent, parentLetter, s), g.states.get(s));
            int[] out = g.succ.get(s);
            for (int k = 0; k < out.length; k++) {
                int t = out[k];
                if (parent[t] != -2 || fails(g.states.get(t))) continue;
                parent[t] = s;
                parentLetter[t] = g.succLetter.get(s)[k];
                q.add(t);
            }
        }
        return null;
    }

    /** Whether some continuation from {@code t} (the empty one included) keeps every contract. */
    boolean canFinish(int[] t) throws TooLarge {
        Graph g = new Graph(t, true);
        for (int[] s : g.states) if (accepting(s)) return true;
        return false;
    }

    private List<Set<Atom>> trace(Graph g, int[] parent, long[] parentLetter, int s) {
        List<Set<Atom>> steps = new ArrayList<>();
        for (int cur = s; parent[cur] >= 0; cur = parent[cur]) {
            long letter = parentLetter[cur];
            Set<Atom> holds = new LinkedHashSet<>();
            for (int a = 0; a < atoms.size(); a++) if (((letter >>> a) & 1) != 0) holds.add(atoms.get(a));
            steps.add(0, holds);
        }
        return steps;
    }

    /** A product state as a hash key. */
    private record Key(int[] t) {
        @Override public boolean equals(Object o) { return o instanceof Key k && Arrays.equals(t, k.t); }
        @Override public int hashCode() { return Arrays.hashCode(t); }
    }
}
