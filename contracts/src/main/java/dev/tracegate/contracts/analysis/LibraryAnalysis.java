package dev.tracegate.contracts.analysis;

import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.Contract;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.Deque;
import java.util.List;
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
 * of one tool. The analysis adds that knowledge as axioms (two {@code call}/{@code returned} atoms
 * naming different tools or kinds never hold together), so it does not report conflicts that no
 * real trace could show.
 */
public final class LibraryAnalysis {

    /** One finding; {@code witness} is a trace (each step the atoms that hold) where that helps. */
    public record Finding(Kind kind, List<String> contracts, String explanation, List<List<String>> witness) {}

    /** What a finding says. */
    public enum Kind { INCONSISTENT, INCOMPATIBLE, CONFLICT, DEAD_END, TOO_LARGE }

    private final DfaCompiler compiler;

    public LibraryAnalysis(DfaCompiler compiler) { this.compiler = compiler; }

    /** All findings for the contracts; empty when the library is consistent, compatible and conflict-free. */
    public List<Finding> analyse(List<Contract> contracts) {
        List<Finding> out = new ArrayList<>();
        Formula axioms = axioms(contracts);
        for (Contract c : contracts) {
            Formula both = Formulas.and(axioms, Formulas.and(c.assume(), c.guarantee()));
            Boolean empty = emptyOrNull(both, out, List.of(c.id()));
            if (Boolean.TRUE.equals(empty)) {
                out.add(new Finding(Kind.INCONSISTENT, List.of(c.id()),
                        "no non-empty trace satisfies both the assumption and the guarantee of '" + c.id() + "'", List.of()));
            }
        }
        Formula allA = Formula.Const.TRUE;
        for (Contract c : contracts) allA = Formulas.and(allA, c.assume());
        if (Boolean.TRUE.equals(emptyOrNull(Formulas.and(axioms, allA), out, ids(contracts)))) {
            out.add(new Finding(Kind.INCOMPATIBLE, ids(contracts), "the assumptions cannot all hold on one trace", List.of()));
        }
        List<Contract> consistent = new ArrayList<>();
        for (Contract c : contracts) {
            boolean bad = out.stream().anyMatch(f -> f.kind() == Kind.INCONSISTENT && f.contracts().contains(c.id()));
            if (!bad) consistent.add(c);
        }
        if (Boolean.TRUE.equals(emptyOrNull(conjunction(consistent, axioms), out, ids(consistent)))) {
            List<Contract> core = minimalConflict(consistent, axioms);
            out.add(new Finding(Kind.CONFLICT, ids(core),
                    "these contracts cannot all be kept on any non-empty trace; removing any one of them resolves it", List.of()));
        } else {
            deadEnd(consistent, out);
        }
        return out;
    }

    private Formula conjunction(List<Contract> cs, Formula axioms) {
        Formula f = axioms;
        for (Contract c : cs) f = Formulas.and(f, Formulas.and(c.assume(), c.guarantee()));
        return f;
    }

    /** Deletion-based minimal unsatisfiable core: drop each contract that is not needed for the conflict. */
    private List<Contract> minimalConflict(List<Contract> cs, Formula axioms) {
        List<Contract> core = new ArrayList<>(cs);
        for (int i = 0; i < core.size(); ) {
            List<Contract> without = new ArrayList<>(core);
            without.remove(i);
            Boolean empty;
            try {
                empty = emptyNonEmptyTraces(compiler.compile(conjunction(without, axioms)));
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
            found = new DeadEnds(cs, compiler).search();
        } catch (StateLimitException e) {
            out.add(new Finding(Kind.TOO_LARGE, ids(cs), "dead-end check skipped: " + e.getMessage(), List.of()));
            return;
        } catch (DeadEnds.TooLarge e) {
            out.add(new Finding(Kind.TOO_LARGE, ids(cs), e.getMessage(), List.of()));
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
                        + "of these contracts" + (open.isEmpty() ? "" : "; ending now leaves unmet: " + String.join(", ", open)),
                witness));
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
                DeadEnds p = new DeadEnds(without, compiler);
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
            return new DeadEnds(core, compiler);
        } catch (DeadEnds.TooLarge e) {
            throw new IllegalStateException("a subset of a product that was built cannot be too large", e);
        }
    }

    private Boolean emptyOrNull(Formula f, List<Finding> out, List<String> ids) {
        try {
            return emptyNonEmptyTraces(compiler.compile(f));
        } catch (StateLimitException e) {
            out.add(new Finding(Kind.TOO_LARGE, ids, "check skipped: " + e.getMessage(), List.of()));
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

    /** G(!(a & b)) for every two event atoms that name different kinds or tools. */
    static Formula axioms(List<Contract> contracts) {
        List<Atom> events = new ArrayList<>();
        for (Contract c : contracts) {
            for (Atom a : Formulas.atoms(Formulas.and(c.assume(), c.guarantee()))) {
                if (eventKey(a) != null && !events.contains(a)) events.add(a);
            }
        }
        Formula ax = Formula.Const.TRUE;
        for (int i = 0; i < events.size(); i++) {
            for (int j = i + 1; j < events.size(); j++) {
                String ki = eventKey(events.get(i));
                String kj = eventKey(events.get(j));
                if (!ki.equals(kj)) {
                    ax = Formulas.and(ax, Formulas.unary(Formula.UnOp.ALWAYS,
                            Formulas.not(Formulas.and(events.get(i), events.get(j)))));
                }
            }
        }
        return ax;
    }

    /** "kind/tool" for a plain event atom ({@code call(T)}, {@code returned(T)}, {@code user}...), else null. */
    static String eventKey(Atom a) {
        if (a.comparison() != null) return null;
        switch (a.name()) {
            case "call", "returned" -> {
                if (a.args().size() != 1 || !(a.args().get(0) instanceof Term.Name n)) return null;
                return a.name() + "/" + n.value().trim().toLowerCase();
            }
            case "user", "assistant", "consent_event", "erasure" -> {
                return a.args().isEmpty() ? a.name() : null;
            }
            default -> {
                return null;
            }
        }
    }

    private static List<String> ids(List<Contract> cs) {
        List<String> out = new ArrayList<>();
        for (Contract c : cs) out.add(c.id());
        return out;
    }
}
