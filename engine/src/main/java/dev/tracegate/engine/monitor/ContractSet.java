package dev.tracegate.engine.monitor;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.RvVerdict;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A compiled set of contracts: each formula as a minimal DFA (one per contract that uses it, unless
 * it has a single state), the global atom order that valuations use, and per contract which automata
 * hold its assumption and guarantee.
 * Immutable and shared by all sessions and threads.
 */
public final class ContractSet {
    private final List<Contract> contracts;
    private final List<Atom> atoms;
    private final List<Dfa> formulas;
    private final int[] assume;
    private final int[] guarantee;
    private final int[][] atomIndex;
    /** permanentlyViolated[f][s]: state s of formula f is a rejecting sink. */
    private final boolean[][] permanentlyViolated;
    private final int valuationWords;
    private final FlatTransitions flat;

    private ContractSet(List<Contract> contracts, List<Atom> atoms, List<Dfa> formulas, int[] assume,
                        int[] guarantee, int[][] atomIndex) {
        this.contracts = List.copyOf(contracts);
        this.atoms = List.copyOf(atoms);
        this.formulas = List.copyOf(formulas);
        this.assume = assume;
        this.guarantee = guarantee;
        this.atomIndex = atomIndex;
        this.permanentlyViolated = new boolean[formulas.size()][];
        for (int f = 0; f < formulas.size(); f++) {
            Dfa d = formulas.get(f);
            boolean[] pv = new boolean[d.stateCount()];
            for (int s = 0; s < pv.length; s++) pv[s] = d.verdict(s) == RvVerdict.PERMANENTLY_VIOLATED;
            permanentlyViolated[f] = pv;
        }
        this.valuationWords = Math.max(1, (atoms.size() + 63) >>> 6);
        this.flat = new FlatTransitions(this.formulas, atomIndex, permanentlyViolated, valuationWords);
    }

    /** Compiles contracts, numbering atoms in order of first occurrence (assumption before guarantee). */
    public static ContractSet compile(List<Contract> contracts, DfaCompiler compiler) {
        return compile(contracts, List.of(), compiler);
    }

    /**
     * Compiles contracts; the global atom order starts with {@code atomOrder} (atoms the grounding
     * layer wants at fixed positions; may be empty) and continues with the contracts' other atoms in
     * order of first occurrence.
     *
     * <p>Each formula text is compiled once, but two contracts share an automaton state only when
     * the automaton has a single state (such as {@code true}, which never moves): otherwise each
     * contract steps its own copy (the same {@link Dfa} object at another index), so that
     * {@link SessionMonitor#stepExcusing} can hold one contract's automata back while another
     * contract with the same formula reads the event. Within one contract an assumption equal to
     * the guarantee is one automaton.
     */
    public static ContractSet compile(List<Contract> contracts, List<Atom> atomOrder, DfaCompiler compiler) {
        Map<String, Integer> seenIds = new HashMap<>();
        for (Contract c : contracts) {
            if (seenIds.put(c.id(), 1) != null) throw new IllegalArgumentException("duplicate contract id '" + c.id() + "'");
        }
        LinkedHashMap<Atom, Integer> global = new LinkedHashMap<>();
        for (Atom a : atomOrder) global.putIfAbsent(a, global.size());
        Map<String, Integer> compiled = new HashMap<>();
        Map<String, Integer> stateless = new HashMap<>();
        List<Dfa> dfas = new ArrayList<>();
        List<int[]> indexes = new ArrayList<>();
        int[] as = new int[contracts.size()];
        int[] gs = new int[contracts.size()];
        for (int i = 0; i < contracts.size(); i++) {
            Contract c = contracts.get(i);
            as[i] = intern(c.assume(), compiler, compiled, stateless, dfas, indexes, global);
            gs[i] = Formulas.print(c.guarantee()).equals(Formulas.print(c.assume())) ? as[i]
                    : intern(c.guarantee(), compiler, compiled, stateless, dfas, indexes, global);
        }
        return new ContractSet(contracts, new ArrayList<>(global.keySet()), dfas, as, gs, indexes.toArray(new int[0][]));
    }

    /**
     * The index of a new automaton for {@code f} (compiled only the first time its text is seen:
     * {@code compiled} maps the text to the first index), or the shared index of a single-state one.
     */
    private static int intern(Formula f, DfaCompiler compiler, Map<String, Integer> compiled, Map<String, Integer> stateless,
                              List<Dfa> dfas, List<int[]> indexes, LinkedHashMap<Atom, Integer> global) {
        String key = Formulas.print(f);
        Integer shared = stateless.get(key);
        if (shared != null) return shared;
        Integer first = compiled.get(key);
        if (first != null) {
            dfas.add(dfas.get(first));
            indexes.add(indexes.get(first));
            return dfas.size() - 1;
        }
        Dfa dfa = compiler.compile(f);
        List<Atom> local = dfa.atoms();
        int[] idx = new int[local.size()];
        for (int j = 0; j < idx.length; j++) {
            Atom a = local.get(j);
            Integer g = global.get(a);
            if (g == null) {
                g = global.size();
                global.put(a, g);
            }
            idx[j] = g;
        }
        dfas.add(dfa);
        indexes.add(idx);
        compiled.put(key, dfas.size() - 1);
        if (dfa.stateCount() == 1) stateless.put(key, dfas.size() - 1);
        return dfas.size() - 1;
    }

    public List<Contract> contracts() { return contracts; }

    /** The global atom order: atom {@code g} is bit {@code g & 63} of valuation word {@code g >>> 6}. */
    public List<Atom> atoms() { return atoms; }

    /** The automata, one per contract formula (single-state ones shared; see {@link #compile(List, List, DfaCompiler)}). */
    public List<Dfa> formulas() { return formulas; }

    /** Index into {@link #formulas()} of contract {@code c}'s assumption. */
    public int assumeOf(int c) { return assume[c]; }

    /** Index into {@link #formulas()} of contract {@code c}'s guarantee. */
    public int guaranteeOf(int c) { return guarantee[c]; }

    /** For formula {@code f}, the global index of each of its local atoms. */
    public int[] atomIndex(int f) { return atomIndex[f]; }

    /** Number of longs in a valuation. */
    public int valuationWords() { return valuationWords; }

    /** Index of the contract with this id, or -1. */
    public int indexOf(String contractId) {
        for (int i = 0; i < contracts.size(); i++) if (contracts.get(i).id().equals(contractId)) return i;
        return -1;
    }

    /** The prefix verdict of contract {@code c} given one automaton state per formula. */
    public Verdict verdict(int c, int[] states) {
        int a = assume[c];
        if (permanentlyViolated[a][states[a]]) return Verdict.IDLE;
        int g = guarantee[c];
        return permanentlyViolated[g][states[g]] ? Verdict.FAIL : Verdict.ACTIVE;
    }

    /** The finite-trace verdict of contract {@code c} at session end. */
    public Verdict endVerdict(int c, int[] states) {
        int a = assume[c];
        if (!formulas.get(a).accepting(states[a])) return Verdict.IDLE;
        int g = guarantee[c];
        return formulas.get(g).accepting(states[g]) ? Verdict.ACTIVE : Verdict.FAIL;
    }

    boolean isPermanentlyViolated(int formula, int state) { return permanentlyViolated[formula][state]; }

    // Flat views for the monitor's hot loop.
    int[] assumeArray() { return assume; }
    int[] guaranteeArray() { return guarantee; }
    boolean[][] permanentlyViolatedTable() { return permanentlyViolated; }
    int[][] atomIndexTable() { return atomIndex; }
    FlatTransitions flatTransitions() { return flat; }
}
