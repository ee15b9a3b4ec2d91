package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.predicate.Vocabulary;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Which contracts that read no content may still replay from an audit log with personal data hashed with another verdict
 * than online, when it is replayed in enforce mode: an event is applied there as the replayed contracts decide, and those
 * that read content decide from digests, so an event may be applied in the replay and refused online (its record's
 * decision) or the other way round. Such an event changes what a content-free contract sees only when the contract can
 * observe it; this names the contract then, with the first such event, and only then.
 *
 * <p>A contract observes an event when applying it or not moves one of the contract's automata (its assumption or its
 * guarantee: the replay steps it both ways, {@code statesBefore} and {@code nextStates}) or changes a session value one of its
 * atoms reads later: the calls of T for {@code count(T)}, every call for {@code run(T)}, every event for {@code since},
 * the consents and erasures (runtime-wide) for {@code consent(p)} and {@code consented}, every event for context values
 * and any form this class does not know. Sound by induction: until the first event a contract observes differs, its automata
 * and the values its atoms read are the online ones (its atoms read no content, so digests give them their online
 * answers), so its step on that event is the online one and the replay can tell whether applying it would move it.
 * Events after it that differ are compared one by one against their own records, so a difference that a named contract
 * causes in turn (it refuses here what it let through online) is found where it happens.
 */
final class Divergence {
    private final Library lib;
    private final int n;
    /** Contracts that read content: the note names them anyway. */
    private final boolean[] content;
    /** Per contract, its automata (assumption, guarantee). */
    private final int[][] formulas;
    /** Per contract: every applied event changes a value one of its atoms reads. */
    private final boolean[] allEvents;
    /** Per contract: kinds whose every event (any tool) changes a value one of its atoms reads. */
    private final List<Set<EventKind>> kinds = new ArrayList<>();
    /** Per contract: tool names whose calls change a value one of its atoms reads ({@code count(T)}). */
    private final List<List<String>> calledTools = new ArrayList<>();
    /** Per contract: the first differing event it observes, or null. */
    private final String[] why;
    private long differing;
    private String firstDiffering;

    Divergence(Library lib) {
        this.lib = lib;
        ContractSet set = lib.contracts();
        this.n = set.contracts().size();
        this.content = new boolean[n];
        this.formulas = new int[n][];
        this.allEvents = new boolean[n];
        this.why = new String[n];
        for (int c = 0; c < n; c++) {
            formulas[c] = new int[] {set.assumeOf(c), set.guaranteeOf(c)};
            Set<EventKind> k = EnumSet.noneOf(EventKind.class);
            List<String> tools = new ArrayList<>();
            for (int f : formulas[c]) {
                for (Atom a : set.formulas().get(f).atoms()) {
                    if (Vocabulary.readsContent(a, lib.policy())) content[c] = true;
                    else allEvents[c] |= reads(a, k, tools);
                }
            }
            kinds.add(k);
            calledTools.add(tools);
        }
    }

    /**
     * Adds to {@code kinds} and {@code tools} the events whose application changes a session value that content-free
     * {@code a} reads; true when every event may (or the form is not one this knows).
     */
    static boolean reads(Atom a, Set<EventKind> kinds, List<String> tools) {
        if (a.bound() instanceof Term.Call || a.bound() instanceof Term.Name) return true;   // a context value as the bound
        switch (a.name()) {
            // what the event itself is: its kind, tool, result status, purposes, depth; no value kept between events
            case "user", "assistant", "call", "return", "end", "returned", "failed", "side_effect", "purpose",
                 "undeclared_purpose", "depth" -> {
                return false;
            }
            // 'consent' and 'erasure' without arguments say what the event is; consent(p) reads the register
            case "consent", "erasure" -> {
                if (a.args().isEmpty()) return false;
                kinds.add(EventKind.CONSENT);
                kinds.add(EventKind.ERASURE);
                kinds.add(EventKind.CALL);   // a consent or erasure tool's call
                return false;
            }
            case "consented" -> {
                kinds.add(EventKind.CONSENT);
                kinds.add(EventKind.ERASURE);
                kinds.add(EventKind.CALL);
                return false;
            }
            case "count" -> {
                String t = a.args().size() == 1 ? name(a.args().get(0)) : null;
                if (t == null) return true;
                tools.add(t);
                return false;
            }
            case "run" -> {   // a call of another tool ends the run
                kinds.add(EventKind.CALL);
                return false;
            }
            default -> {
                return true;   // since (counts events), ctx and permission (latches), and any form not listed
            }
        }
    }

    private static String name(Term t) {
        return t instanceof Term.Name nm ? nm.value() : t instanceof Term.Str s ? s.value() : null;
    }

    /** Whether applying {@code e} or not changes a session value that content-free contract {@code c}'s atoms read. */
    private boolean changesWhatItReads(int c, Event e) {
        if (allEvents[c] || kinds.get(c).contains(e.kind())) return true;
        if (e.kind() != EventKind.CALL) return false;
        for (String t : calledTools.get(c)) if (ToolName.matches(e.tool(), t)) return true;
        return false;
    }

    /**
     * One replayed event: applied here or not, and online (its record's decision); {@code before} and {@code next} the
     * automata states the replay judged it on and would move to. {@code where} names it for the note.
     */
    void event(Event e, boolean appliedHere, boolean appliedOnline, int[] before, int[] next, String where) {
        if (appliedHere == appliedOnline) return;
        String what = where + ": " + (appliedHere ? "applied here, refused online" : "refused here, applied online");
        if (differing++ == 0) firstDiffering = what;
        for (int c = 0; c < n; c++) {
            if (content[c] || why[c] != null) continue;
            boolean moves = false;
            for (int f : formulas[c]) moves |= before[f] != next[f];
            if (moves || changesWhatItReads(c, e)) why[c] = what;
        }
    }

    /** The content-free contracts named so far, each as {@code id (why)}, in library order. */
    List<String> named() {
        List<String> out = new ArrayList<>();
        for (int c = 0; c < n; c++) if (why[c] != null) out.add(lib.contracts().contracts().get(c).id() + " (" + why[c] + ")");
        return out;
    }

    /** How many replayed events were applied here and refused online, or the other way round. */
    long differing() { return differing; }

    /** The first of them, as {@code where: how}, or null. */
    String firstDiffering() { return firstDiffering; }
}
