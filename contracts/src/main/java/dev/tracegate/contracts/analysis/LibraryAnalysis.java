package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.matchers.event.ToolName;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Whole-library checks, each by emptiness of a product automaton (the conjunction compiled to a
 * minimal DFA): <b>consistency</b> (each contract's A ∧ G has a non-empty model),
 * <b>compatibility</b> (all assumptions together do), <b>conflict-freedom</b> (all contracts
 * together do; otherwise a minimal conflicting subset), and <b>dead ends</b> (a prefix on which no
 * contract is violated yet but after which no continuation, ending included, keeps them all: see
 * {@link DeadEnds}; with a shortest witness and a minimal trapped subset).
 *
 * <p>Atoms are independent propositions to the automata, but events are not: one event is one call
 * of one tool. The analysis adds what it knows of that as axioms ({@link AtomRelations}: two atoms
 * of different tools or event kinds never hold together, {@code call(audit)} implies {@code call},
 * {@code arg(limit) > 50} implies {@code arg(limit) > 10}), so it does not report conflicts that no
 * real trace could show, nor miss those that every real trace shows. Tool names are compared as
 * events compare them ({@link ToolName}): the
 * contracts' {@code call(A)} and {@code call(a)} are one atom here, and {@code call(mcp__s__a)}
 * and {@code call(a)} may hold together (a call of {@code mcp__s__a} answers to both).
 */
public final class LibraryAnalysis {

    /**
     * One finding; {@code witness} is a trace (each step the atoms that hold) where that helps; {@code moreStates} is
     * true for a TOO_LARGE check that a larger state bound would let run (false for one skipped for its atom count).
     */
    public record Finding(Kind kind, List<String> contracts, String explanation, List<List<String>> witness, boolean moreStates) {
        public Finding(Kind kind, List<String> contracts, String explanation, List<List<String>> witness) {
            this(kind, contracts, explanation, witness, kind == Kind.TOO_LARGE);
        }
    }

    /** What a finding says. */
    public enum Kind { INCONSISTENT, INCOMPATIBLE, CONFLICT, DEAD_END, TOO_LARGE }

    private final DfaCompiler compiler;
    /** Whether the checks know that a result of a tool comes only after a call of it ({@link DeadEnds#resultTools}). */
    private final boolean resultsAfterCalls;
    /**
     * Whether the policy declares purposes, which decides {@code undeclared_purpose} at events without purposes
     * ({@link AtomRelations#undeclaredPurpose}); null: no policy was given, the atom is free there.
     */
    private final Boolean purposesDeclared;

    /** An analysis without the libraries' policy: {@code undeclared_purpose} is free at every event. */
    public LibraryAnalysis(DfaCompiler compiler) { this(compiler, true, null); }

    /** The analysis of libraries whose merged policy is {@code policy} (a library's {@code Library.policy()}). */
    public LibraryAnalysis(DfaCompiler compiler, dev.tracegate.matchers.predicate.Policy policy) {
        this(compiler, true, policy == null ? null : !policy.purposes().isEmpty());
    }

    /** {@code resultsAfterCalls} false: the checks as before session 22 (tests compare with brute force either way). */
    LibraryAnalysis(DfaCompiler compiler, boolean resultsAfterCalls, Boolean purposesDeclared) {
        this.compiler = compiler;
        this.resultsAfterCalls = resultsAfterCalls;
        this.purposesDeclared = purposesDeclared;
    }

    /**
     * All findings for the contracts; empty when the library is consistent, compatible and conflict-free. Contracts
     * that share no atom are analysed apart when that cannot hide a finding (see {@link #independentParts}), so a
     * library of many small contracts about different tools does not need the product of all of them.
     */
    public List<Finding> analyse(List<Contract> contracts) {
        contracts = foldToolNames(contracts);
        List<List<Contract>> parts = independentParts(contracts);
        if (parts.size() == 1) return analyseTogether(contracts);
        List<Finding> out = new ArrayList<>();
        for (List<Contract> part : parts) out.addAll(analyseTogether(part));
        return out;
    }

    /** The most atoms of one part, and product states of its automata, that {@link #independentParts} examines. */
    private static final int PART_MAX_ATOMS = 12;
    private static final int PART_MAX_STATES = 20_000;

    /**
     * The contracts split into parts that share no atom nor any two {@link AtomRelations#related related} atoms, when
     * each part can wait: from every state its automata reach, some event at which none of its atoms that hold only at
     * some event kinds or tools holds (its other atoms, such as counts, as they may be at another part's event) leaves
     * every automaton of the part where it is. Then any trace of one part interleaves with any of another's (each sees
     * the other's events as such a waiting event: no atom of one forces an atom of the other), so the parts have a
     * conflict, an incompatibility or a dead end together only if one of them has it alone; otherwise, or when a part
     * is too large to examine, the one part of all contracts.
     */
    List<List<Contract>> independentParts(List<Contract> cs) {
        int n = cs.size();
        if (n < 2) return List.of(cs);
        int[] parent = new int[n];
        for (int i = 0; i < n; i++) parent[i] = i;
        Map<Atom, Integer> firstReader = new java.util.LinkedHashMap<>();
        for (int i = 0; i < n; i++) {
            for (Atom a : Formulas.atoms(Formulas.and(cs.get(i).assume(), cs.get(i).guarantee()))) {
                Integer j = firstReader.putIfAbsent(a, i);
                if (j != null) parent[root(parent, i)] = root(parent, j);
            }
        }
        // two atoms that one event can relate tie their readers too (call(audit) implies call, arg(limit) > 50 implies
        // arg(limit) > 10, call(mcp__s__a) and call(a) may hold together, a call of t changes count(t)...: see
        // AtomRelations.related): an event of one part would not be a waiting event of the other
        List<Atom> read = new ArrayList<>(firstReader.keySet());
        for (int x = 0; x < read.size(); x++) {
            for (int y = x + 1; y < read.size(); y++) {
                Atom a = read.get(x), b = read.get(y);
                if (AtomRelations.related(a, b, purposesDeclared)) parent[root(parent, firstReader.get(a))] = root(parent, firstReader.get(b));
            }
        }
        Map<Integer, List<Contract>> byRoot = new java.util.LinkedHashMap<>();
        for (int i = 0; i < n; i++) byRoot.computeIfAbsent(root(parent, i), r -> new ArrayList<>()).add(cs.get(i));
        if (byRoot.size() < 2) return List.of(cs);
        for (List<Contract> part : byRoot.values()) {
            if (!canWait(part)) return List.of(cs);
        }
        return List.copyOf(byRoot.values());
    }

    private static int root(int[] parent, int i) {
        while (parent[i] != i) i = parent[i] = parent[parent[i]];
        return i;
    }

    /** Whether every product state the part's automata reach has a waiting event (see {@link #independentParts}). */
    private boolean canWait(List<Contract> part) {
        List<Dfa> dfas = new ArrayList<>();
        List<Atom> atoms = new ArrayList<>();
        try {
            for (Contract c : part) {
                for (Formula f : List.of(c.assume(), c.guarantee())) {
                    Dfa d = compiler.compile(f);
                    dfas.add(d);
                    for (Atom a : d.atoms()) if (!atoms.contains(a)) atoms.add(a);
                }
            }
        } catch (StateLimitException e) {
            return false;
        }
        if (atoms.size() > PART_MAX_ATOMS) return false;
        // the atoms that hold only at some kinds or tools of events: false at an event of another part
        long eventAtoms = 0;
        for (int g = 0; g < atoms.size(); g++) {
            if (AtomRelations.kinds(atoms.get(g), purposesDeclared) != AtomRelations.ANY) eventAtoms |= 1L << g;
        }
        Letters possible = new Letters(atoms, purposesDeclared);
        int[][] local = new int[dfas.size()][];   // local[i][j]: the part's bit of automaton i's atom j
        for (int i = 0; i < dfas.size(); i++) {
            local[i] = new int[dfas.get(i).atoms().size()];
            for (int j = 0; j < local[i].length; j++) local[i][j] = atoms.indexOf(dfas.get(i).atoms().get(j));
        }
        int[] start = new int[dfas.size()];
        for (int i = 0; i < start.length; i++) start[i] = dfas.get(i).initialState();
        java.util.Set<List<Integer>> seen = new java.util.HashSet<>();
        java.util.ArrayDeque<int[]> todo = new java.util.ArrayDeque<>();
        seen.add(asList(start));
        todo.add(start);
        while (!todo.isEmpty()) {
            int[] at = todo.poll();
            boolean waits = false;
            for (long letter = 0; letter < 1L << atoms.size(); letter++) {
                if (!possible.test(letter)) continue;   // no event makes it
                int[] next = new int[at.length];
                boolean stays = true;
                for (int i = 0; i < at.length; i++) {
                    long l = 0;
                    for (int j = 0; j < local[i].length; j++) if ((letter >>> local[i][j] & 1) != 0) l |= 1L << j;
                    next[i] = dfas.get(i).next(at[i], l);
                    stays &= next[i] == at[i];
                }
                if (stays && (letter & eventAtoms) == 0) waits = true;
                if (seen.add(asList(next))) {
                    if (seen.size() > PART_MAX_STATES) return false;
                    todo.add(next);
                }
            }
            if (!waits) return false;
        }
        return true;
    }

    /** Which letters over {@code atoms} (bit g: atom g holds) some event makes, as far as {@link AtomRelations} knows. */
    static final class Letters {
        final long[] clash;   // clash[g]: the atoms that cannot hold with atom g
        final long[] need;    // need[g]: the atoms that hold whenever atom g does

        Letters(List<Atom> atoms) {
            this(atoms, null);
        }

        /** As above, with {@code undeclared_purpose} as a policy that does ({@code declared} TRUE) or does not declare purposes decides it. */
        Letters(List<Atom> atoms, Boolean declared) {
            int n = atoms.size();
            clash = new long[n];
            need = new long[n];
            for (int g = 0; g < n; g++) {
                for (int h = 0; h < n; h++) {
                    if (g == h) continue;
                    if (AtomRelations.excludes(atoms.get(g), atoms.get(h), declared)) clash[g] |= 1L << h;
                    if (AtomRelations.implies(atoms.get(g), atoms.get(h), declared)) need[g] |= 1L << h;
                }
            }
        }

        /** Whether the letter breaks none of the pairwise exclusions and implications. */
        boolean test(long letter) {
            for (long m = letter; m != 0; m &= m - 1) {
                int g = Long.numberOfTrailingZeros(m);
                if ((letter & clash[g]) != 0 || (need[g] & ~letter) != 0) return false;
            }
            return true;
        }
    }

    private static List<Integer> asList(int[] t) {
        List<Integer> l = new ArrayList<>(t.length);
        for (int x : t) l.add(x);
        return l;
    }

    /** The analysis of the contracts as one part (what {@link #analyse} does for each part). */
    List<Finding> analyseTogether(List<Contract> contracts) {
        List<Finding> out = new ArrayList<>();
        Formula axioms = axioms(contracts, Formula.Const.TRUE, purposesDeclared);
        Checks with = withResultsAfterCalls(contracts);
        for (Contract c : contracts) {
            Formula both = Formulas.and(axioms, Formulas.and(c.assume(), c.guarantee()));
            Boolean empty = emptyOrNull(both, out, List.of(c.id()), "the consistency check of " + c.id() + " (its assumption and guarantee together)");
            String rests = "";
            if (Boolean.FALSE.equals(empty) && with != null && with.emptyQuietly(Formulas.and(c.assume(), c.guarantee()))) {
                empty = true;
                rests = with.caveat(List.of(c));
            }
            if (Boolean.TRUE.equals(empty)) {
                out.add(new Finding(Kind.INCONSISTENT, List.of(c.id()),
                        "no non-empty trace satisfies both the assumption and the guarantee of '" + c.id() + "'" + rests, List.of()));
            }
        }
        List<Contract> assuming = new ArrayList<>();
        for (Contract c : contracts) if (!(c.assume() instanceof Formula.Const k && k.value())) assuming.add(c);
        // as conflicts below: each minimal incompatible subset is named, and the assumptions outside it are checked again,
        // so a second contract whose assumption cannot hold is named too (trial21)
        List<Contract> unchecked = assuming;
        while (!unchecked.isEmpty()) {
            Boolean empty = emptyOrNull(assumptions(unchecked, axioms), out, ids(unchecked),
                    "the compatibility check (the assumptions of " + unchecked.size() + " contracts together)");
            boolean fact = false;
            if (Boolean.FALSE.equals(empty) && with != null && with.emptyQuietly(assumptions(unchecked, Formula.Const.TRUE))) {
                empty = true;
                fact = true;
            }
            if (!Boolean.TRUE.equals(empty)) break;
            // with the facts the core is minimised knowing them too: a part may have no trace only because of them, even
            // when the whole has none without them (a smaller core the facts make)
            List<Contract> core = with != null ? with.minimalCore(unchecked, without -> assumptions(without, Formula.Const.TRUE))
                    : minimalIncompatible(unchecked, axioms);
            if (with != null && !fact) fact = !core.isEmpty() && !emptyWithoutFacts(assumptions(core, axioms));
            out.add(new Finding(Kind.INCOMPATIBLE, ids(core.isEmpty() ? unchecked : core), (core.size() == 1
                    ? "the assumption of '" + core.get(0).id() + "' cannot hold on any non-empty trace"
                    : "the assumptions of these contracts cannot all hold on one non-empty trace; dropping any one of them"
                    + " resolves it (contracts without an assumption are left out)") + (fact ? with.caveat(core) : ""), List.of()));
            if (core.isEmpty()) break;   // the event axioms alone have no trace
            List<Contract> left = new ArrayList<>(unchecked);
            left.removeAll(core);
            unchecked = left;
        }
        List<Contract> consistent = new ArrayList<>();
        for (Contract c : contracts) {
            boolean bad = out.stream().anyMatch(f -> f.kind() == Kind.INCONSISTENT && f.contracts().contains(c.id()));
            if (!bad) consistent.add(c);
        }
        // A conflict is named with a minimal core; the contracts outside it are checked again (another conflict, or
        // their dead ends), so a conflict does not hide what the rest of the library would show, as an inconsistent
        // contract does not.
        List<Contract> rest = consistent;
        while (!rest.isEmpty()) {
            Boolean empty = emptyOrNull(conjunction(rest, axioms), out, ids(rest), "the conflict check (" + rest.size() + " contracts together)");
            boolean fact = false;
            if (Boolean.FALSE.equals(empty) && with != null && with.emptyQuietly(conjunction(rest, Formula.Const.TRUE))) {
                empty = true;
                fact = true;
            }
            if (!Boolean.TRUE.equals(empty)) break;
            List<Contract> core = with != null ? with.minimalCore(rest, without -> conjunction(without, Formula.Const.TRUE))
                    : minimalConflict(rest, axioms);
            if (with != null && !fact) fact = !core.isEmpty() && !emptyWithoutFacts(conjunction(core, axioms));
            out.add(new Finding(Kind.CONFLICT, ids(core),
                    "these contracts cannot all be kept on any non-empty trace; removing any one of them resolves it"
                            + (fact ? with.caveat(core) : ""), List.of()));
            if (core.isEmpty()) return out;   // the event axioms alone have no trace: nothing else can be kept either
            List<Contract> left = new ArrayList<>(rest);
            left.removeAll(core);
            rest = left;
        }
        if (!rest.isEmpty()) deadEnd(rest, out);
        return out;
    }

    /**
     * The consistency, compatibility and conflict checks again, knowing that a result of a tool comes only after a call of
     * it ({@link DeadEnds#resultFacts}), for a formula those checks found to have a trace: a finding that needs the fact
     * says so ({@link #resultsAfterCallsCaveat}). Null when the analysis does not use the fact or no contract reads a result.
     */
    private Checks withResultsAfterCalls(List<Contract> contracts) {
        if (!resultsAfterCalls) return null;
        Set<Atom> read = new java.util.LinkedHashSet<>();
        for (Contract c : contracts) read.addAll(Formulas.atoms(Formulas.and(c.assume(), c.guarantee())));
        Map<String, Formula> facts = DeadEnds.resultFacts(read);
        if (facts.isEmpty()) return null;
        Formula all = Formula.Const.TRUE;
        for (Formula f : facts.values()) all = Formulas.and(all, f);
        return new Checks(Formulas.and(axioms(contracts, all, purposesDeclared), all), facts);
    }

    /** The one-event axioms over the contracts' atoms and the facts', with the facts (see {@link #withResultsAfterCalls}). */
    private final class Checks {
        final Formula base;
        final Map<String, Formula> facts;

        Checks(Formula base, Map<String, Formula> facts) {
            this.base = base;
            this.facts = facts;
        }

        /**
         * Whether {@code f} with the facts has no non-empty trace; a check too large to compile counts as having one, since
         * the check without the facts already ran (no TOO_LARGE finding of its own: the finding stays as without them).
         */
        boolean emptyQuietly(Formula f) {
            try {
                return emptyNonEmptyTraces(compiler.compile(Formulas.and(base, f)));
            } catch (StateLimitException e) {
                return false;
            }
        }

        List<Contract> minimalCore(List<Contract> cs, java.util.function.Function<List<Contract>, Formula> formula) {
            return LibraryAnalysis.this.minimalCore(cs, without -> Formulas.and(base, formula.apply(without)));
        }

        /** The sentence of a finding that needs the fact, naming the tools whose results the contracts read. */
        String caveat(List<Contract> cs) {
            Set<Atom> read = new java.util.LinkedHashSet<>();
            for (Contract c : cs) read.addAll(Formulas.atoms(Formulas.and(c.assume(), c.guarantee())));
            List<String> tools = new ArrayList<>(DeadEnds.resultFacts(read).keySet());
            if (tools.isEmpty()) tools = new ArrayList<>(facts.keySet());
            return resultsAfterCallsCaveat(tools);
        }
    }

    /** Whether {@code f} has no non-empty trace; a check too large to compile counts as having one. */
    private boolean emptyWithoutFacts(Formula f) {
        try {
            return emptyNonEmptyTraces(compiler.compile(f));
        } catch (StateLimitException e) {
            return false;
        }
    }

    private Formula conjunction(List<Contract> cs, Formula axioms) {
        Formula f = axioms;
        for (Contract c : cs) f = Formulas.and(f, Formulas.and(c.assume(), c.guarantee()));
        return f;
    }

    private static Formula assumptions(List<Contract> cs, Formula axioms) {
        Formula f = axioms;
        for (Contract c : cs) f = Formulas.and(f, c.assume());
        return f;
    }

    /** Minimal subset whose assumptions cannot hold together (as {@link #minimalConflict} for assumption and guarantee). */
    private List<Contract> minimalIncompatible(List<Contract> cs, Formula axioms) {
        return minimalCore(cs, without -> assumptions(without, axioms));
    }

    /** Minimal unsatisfiable core of the contracts' assumptions and guarantees together. */
    private List<Contract> minimalConflict(List<Contract> cs, Formula axioms) {
        return minimalCore(cs, without -> conjunction(without, axioms));
    }

    /**
     * Deletion-based minimal core: drops each contract whose removal leaves {@code formula} of the rest still without a
     * non-empty trace (empty when the event axioms alone have none). A part too large to compile counts as satisfiable.
     */
    private List<Contract> minimalCore(List<Contract> cs, java.util.function.Function<List<Contract>, Formula> formula) {
        List<Contract> core = new ArrayList<>(cs);
        for (int i = 0; i < core.size(); ) {
            List<Contract> without = new ArrayList<>(core);
            without.remove(i);
            boolean empty;
            try {
                empty = emptyNonEmptyTraces(compiler.compile(formula.apply(without)));
            } catch (StateLimitException e) {
                empty = false;
            }
            if (empty) core = without;
            else i++;
        }
        return core;
    }

    private void deadEnd(List<Contract> cs, List<Finding> out) {
        DeadEnds.DeadEnd found;
        try {
            // contracts whose guarantees can each end wherever they are not yet violated (invariants, G of a condition on
            // one event): at a prefix where none fails, ending now keeps every one (an IDLE one too), so they have no dead
            // end together, however many atoms they read (trial36 04: one such contract; session 20: fifty invariants
            // over related atoms, which are one part, made the search run out of memory)
            if (allEndAnywhere(cs)) return;
            found = new DeadEnds(cs, compiler, true, purposesDeclared).search();
        } catch (StateLimitException e) {
            out.add(new Finding(Kind.TOO_LARGE, ids(cs), skipped("the dead-end check (" + cs.size() + " contracts together)", e), List.of()));
            return;
        } catch (DeadEnds.TooLarge e) {
            out.add(new Finding(Kind.TOO_LARGE, ids(cs), e.getMessage(), List.of(), e.states));
            return;
        }
        if (found == null) return;
        DeadEnds core = minimalDeadEnd(cs, found.trace());
        int[] at = core.initial();
        for (Set<Atom> holds : found.trace()) at = core.step(at, holds);
        List<String> open = new ArrayList<>();
        for (int c = 0; c < core.contracts.size(); c++) {
            String p = core.open(at, c);
            if (p != null) open.add(p.isEmpty() ? core.contracts.get(c).id() : p + " (" + core.contracts.get(c).id() + ")");
        }
        List<List<String>> witness = new ArrayList<>();
        for (Set<Atom> holds : found.trace()) {
            List<String> keys = new ArrayList<>();
            for (Atom a : holds) keys.add(a.key());
            witness.add(keys);
        }
        out.add(new Finding(Kind.DEAD_END, ids(core.contracts),
                "after this trace no contract is violated yet, but no continuation (ending the session now included) keeps all "
                        + "of these contracts" + (open.isEmpty() ? "" : "; ending now leaves unmet: " + String.join(", ", open))
                        + restsOnResultsAfterCalls(core, found.trace()),
                witness));
    }

    /**
     * When the dead end holds only because a result of a tool comes after a call of it in the session ({@link
     * DeadEnds#resultTools}): a sentence that says so and when it is not so; else "". Trapped without that fact is judged as
     * {@link #minimalDeadEnd} judges a subset (a check too large counts as not trapped, so the sentence comes).
     */
    private String restsOnResultsAfterCalls(DeadEnds core, List<Set<Atom>> trace) {
        if (core.resultTools.isEmpty()) return "";
        try {
            DeadEnds without = new DeadEnds(core.contracts, compiler, false, purposesDeclared);
            int[] t = without.initial();
            for (Set<Atom> holds : trace) t = without.step(t, holds);
            if (!without.canFinish(t)) return "";
        } catch (StateLimitException | DeadEnds.TooLarge e) {
            // not judged: say what the search assumed
        }
        return resultsAfterCallsCaveat(core.resultTools);
    }

    /**
     * "; this rests on a result of T coming only after a call of it in the session ...": what a finding that holds only
     * with that fact says of it, and when it is not so. {@code tools} as {@link DeadEnds#resultTools} ("": any tool).
     */
    static String resultsAfterCallsCaveat(List<String> tools) {
        List<String> named = new ArrayList<>();
        for (String t : tools) named.add(t.isEmpty() ? "a tool" : t);
        return "; this rests on a result of " + String.join(", ", named) + " coming only after a call of it in the session, as in every session"
                + " the agent sees from its start (not one it attached to while such a call ran, nor one that sessions.max or"
                + " sessions.in-flight-timeout opened with the result of a call made in the session it ended: agent/CONFIG.md;"
                + " replay reads a result whose call its trace lacks as such a result)";
    }

    private boolean allEndAnywhere(List<Contract> cs) {
        for (Contract c : cs) if (!DeadEnds.endsAnywhere(compiler.compile(c.guarantee()))) return false;
        return true;
    }

    /**
     * Deletion-based minimal subset that is still trapped after {@code trace}: dropping any one of its
     * contracts leaves a way out. A subset whose check is too large keeps the contract (the answer stays true).
     */
    private DeadEnds minimalDeadEnd(List<Contract> cs, List<Set<Atom>> trace) {
        List<Contract> core = new ArrayList<>(cs);
        for (int i = 0; i < core.size(); ) {
            List<Contract> without = new ArrayList<>(core);
            without.remove(i);
            boolean trapped;
            try {
                DeadEnds p = new DeadEnds(without, compiler, true, purposesDeclared);
                int[] t = p.initial();
                for (Set<Atom> holds : trace) t = p.step(t, holds);
                trapped = !without.isEmpty() && !p.canFinish(t);
            } catch (StateLimitException | DeadEnds.TooLarge e) {
                trapped = false;
            }
            if (trapped) core = without;
            else i++;
        }
        try {
            return new DeadEnds(core, compiler, true, purposesDeclared);
        } catch (DeadEnds.TooLarge e) {
            throw new IllegalStateException("a subset of a product that was built cannot be too large", e);
        }
    }

    /**
     * A skipped check, said by what it checks: not by the formula it compiled, which is the analysis' own (the contracts
     * with the one-event-one-call axioms, cut to 200 characters), nor with the compiler's advice to split a contract.
     */
    private static String skipped(String check, StateLimitException e) {
        return check + " skipped: " + (e.statesExceeded() ? "its automaton needs more than " + e.bound() + " states; "
                : "building its automaton outgrew the work the bound of " + e.bound() + " states allows (its intermediate normal"
                + " forms grew, not its states); ")
                + dev.tracegate.engine.automaton.DfaCompiler.RAISE_BOUND;
    }

    private Boolean emptyOrNull(Formula f, List<Finding> out, List<String> ids, String check) {
        try {
            return emptyNonEmptyTraces(compiler.compile(f));
        } catch (StateLimitException e) {
            out.add(new Finding(Kind.TOO_LARGE, ids, skipped(check, e), List.of()));
            return null;
        }
    }

    /** True when no trace of length ≥ 1 is accepted. */
    static boolean emptyNonEmptyTraces(Dfa d) {
        BitSet seen = new BitSet(d.stateCount());
        Deque<Integer> q = new ArrayDeque<>();
        for (int t : d.successors(d.initialState())) {
            if (!seen.get(t)) {
                seen.set(t);
                q.add(t);
            }
        }
        while (!q.isEmpty()) {
            int s = q.poll();
            if (d.accepting(s)) return false;
            for (int t : d.successors(s)) {
                if (!seen.get(t)) {
                    seen.set(t);
                    q.add(t);
                }
            }
        }
        return true;
    }

    /**
     * {@code G !(a & b)} for every two atoms that no event makes true together, and {@code G(a -> b)} for every atom that
     * another implies ({@link AtomRelations}), as one G.
     */
    static Formula axioms(List<Contract> contracts) {
        return axioms(contracts, Formula.Const.TRUE, null);
    }

    /** Whether the library's policy declares purposes ({@code undeclared_purpose} at events without purposes); null without a policy. */
    static Boolean purposesDeclared(dev.tracegate.contracts.library.Library lib) {
        return lib.policy() == null ? null : !lib.policy().purposes().isEmpty();
    }

    /** As above over the atoms of the contracts and of {@code also}, with {@code undeclared_purpose} as the policy decides it. */
    static Formula axioms(List<Contract> contracts, Formula also, Boolean declared) {
        List<Atom> events = new ArrayList<>();
        for (Contract c : contracts) {
            for (Atom a : Formulas.atoms(Formulas.and(c.assume(), c.guarantee()))) {
                if (!events.contains(a)) events.add(a);
            }
        }
        for (Atom a : Formulas.atoms(also)) if (!events.contains(a)) events.add(a);
        // one G over !(e_i & (e_j | e_k | ...)) for each event atom, the e_j those after it that cannot hold with it: the
        // same as a G !(e_i & e_j) per pair, but one temporal operand instead of n(n-1)/2, whose normal forms the compiler
        // built within its bound for a few dozen atoms only (trial27 06: the consistency check of a 2-state allow-list of
        // 60 tools was skipped as needing more than 20000 states); balanced, so 500 atoms nest about 20 deep, not 125,000
        List<Formula> parts = new ArrayList<>();
        for (int i = 0; i < events.size(); i++) {
            List<Formula> apart = new ArrayList<>(), implied = new ArrayList<>();
            for (int j = 0; j < events.size(); j++) {
                if (j > i && AtomRelations.excludes(events.get(i), events.get(j), declared)) apart.add(events.get(j));
                if (j != i && AtomRelations.implies(events.get(i), events.get(j), declared)) implied.add(events.get(j));
            }
            if (!apart.isEmpty()) parts.add(Formulas.not(Formulas.and(events.get(i), balanced(apart, false, 0, apart.size()))));
            if (!implied.isEmpty()) {
                parts.add(Formulas.binary(Formula.BinOp.IMPLIES, events.get(i), balanced(implied, true, 0, implied.size())));
            }
        }
        return parts.isEmpty() ? Formula.Const.TRUE : Formulas.unary(Formula.UnOp.ALWAYS, balanced(parts, true, 0, parts.size()));
    }

    /** The conjunction ({@code and}) or disjunction of {@code fs[lo, hi)}, as a balanced tree. */
    private static Formula balanced(List<Formula> fs, boolean and, int lo, int hi) {
        if (hi - lo == 1) return fs.get(lo);
        int mid = (lo + hi) >>> 1;
        Formula l = balanced(fs, and, lo, mid), r = balanced(fs, and, mid, hi);
        return and ? Formulas.and(l, r) : Formulas.or(l, r);
    }

    /** The contracts with each tool name of {@code call}, {@code returned} and {@code failed} folded as events fold theirs. */
    static List<Contract> foldToolNames(List<Contract> cs) {
        List<Contract> out = new ArrayList<>(cs.size());
        for (Contract c : cs) {
            out.add(new Contract(c.id(), foldToolNames(c.assume()), foldToolNames(c.guarantee()), c.strategy(), c.message()));
        }
        return out;
    }

    private static Formula foldToolNames(Formula f) {
        if (f instanceof Formula.Unary u) return Formulas.unary(u.op(), foldToolNames(u.arg()));
        if (f instanceof Formula.Binary b) return Formulas.binary(b.op(), foldToolNames(b.left()), foldToolNames(b.right()));
        if (f instanceof Atom a && (a.name().equals("call") || a.name().equals("returned") || a.name().equals("failed"))
                && !a.args().isEmpty() && a.args().get(0) instanceof Term.Name n) {
            String folded = ToolName.fold(n.value());
            if (folded.equals(n.value())) return a;
            List<Term> args = new ArrayList<>(a.args());
            args.set(0, new Term.Name(folded));
            return new Atom(a.name(), args, a.comparison(), a.bound(), a.line(), a.column());
        }
        return f;
    }

    private static List<String> ids(List<Contract> cs) {
        List<String> out = new ArrayList<>();
        for (Contract c : cs) out.add(c.id());
        return out;
    }
}
