package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.predicate.Latch;
import dev.tracegate.matchers.predicate.Policy;
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
 * the consents and erasures (runtime-wide) for {@code consent(p)} and {@code consented}, for a context key ({@code ctx(k)},
 * a bound {@code ctx(k)}, {@code permission(p)} for the key {@code permissions}) the events of the latches that write it
 * (a latch of a RETURN of T that takes {@code arg(f)} also the calls of T, whose argument it reads), and every event for
 * any form this class does not know. Sound by induction: until the first event a contract observes differs, its automata
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
    /**
     * Per contract: the events of a kind and tool (null: any) that change a value one of its atoms reads: the calls of T
     * for {@code count(T)}, a latch's events for a context key.
     */
    private final List<List<Trigger>> triggers = new ArrayList<>();

    /** Events of {@code kind} of {@code tool} (null: of any tool). */
    record Trigger(EventKind kind, String tool) {
        boolean matches(Event e) {
            return e.kind() == kind && (tool == null || e.tool() != null && ToolName.matches(e.tool(), tool));
        }
    }
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
            List<Trigger> t = new ArrayList<>();
            for (int f : formulas[c]) {
                for (Atom a : set.formulas().get(f).atoms()) {
                    if (Vocabulary.readsContent(a, lib.policy())) content[c] = true;
                    else allEvents[c] |= reads(a, lib.policy(), k, t);
                }
            }
            kinds.add(k);
            triggers.add(t);
        }
    }

    /**
     * Adds to {@code kinds} and {@code tools} the events whose application changes a session value that content-free
     * {@code a} reads; true when every event may (or the form is not one this knows).
     */
    static boolean reads(Atom a, Policy policy, Set<EventKind> kinds, List<Trigger> triggers) {
        if (a.bound() instanceof Term.Call || a.bound() instanceof Term.Name) {
            // a context value as the bound (count(T) <= ctx(limit)): the latches of its key, then the atom compared with it
            String key = contextKey(a.bound());
            if (key == null) return true;   // a bound of another form
            written(policy, key, triggers);
            return reads(new Atom(a.name(), a.args(), null, null, a.line(), a.column()), policy, kinds, triggers);
        }
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
                triggers.add(new Trigger(EventKind.CALL, t));
                return false;
            }
            // a context key holds what the latches that write it wrote: their events (permission(p): the key permissions;
            // the policy's own permissions are the same both ways)
            case "ctx", "permission" -> {
                String key = a.name().equals("permission") ? PERMISSIONS : a.args().size() == 1 ? key(a.args().get(0)) : null;
                if (key == null) return true;
                written(policy, key, triggers);
                return false;
            }
            case "run" -> {   // a call of another tool ends the run
                kinds.add(EventKind.CALL);
                return false;
            }
            default -> {
                return true;   // since (counts events), and any form not listed
            }
        }
    }

    /** The context key the grounding keeps permissions under ({@code permission(p)} reads it). */
    private static final String PERMISSIONS = "permissions";

    /**
     * Adds the events that change what context key {@code key} holds: each latch that writes it (sets, adds to or clears
     * it) fires on its events; a latch of a RETURN of T that takes {@code arg(f)} reads it from the accepted CALL of T
     * it answers (a refused call feeds none), so the calls of T too.
     */
    private static void written(Policy policy, String key, List<Trigger> triggers) {
        for (Latch l : policy.latches()) {
            if (!l.key().trim().equals(key)) continue;
            triggers.add(new Trigger(l.kind(), l.tool()));
            if (l.kind() == EventKind.RETURN && l.source() == Latch.Source.ARG && l.tool() != null) triggers.add(new Trigger(EventKind.CALL, l.tool()));
        }
    }

    /** The key of a context bound ({@code ctx(k)} or {@code ctx.k}), else null. */
    private static String contextKey(Term b) {
        if (b instanceof Term.Call c && c.name().equals("ctx") && c.args().size() == 1) return key(c.args().get(0));
        if (b instanceof Term.Name n && n.value().startsWith("ctx.")) return n.value().substring(4).trim();
        return null;
    }

    /** A context key as {@code ctx}'s argument (a name or a text, {@code ctx.} dropped), as the grounding reads it; else null. */
    private static String key(Term t) {
        String k = name(t);
        if (k == null) return null;
        k = k.trim();
        return k.startsWith("ctx.") ? k.substring(4) : k;
    }

    private static String name(Term t) {
        return t instanceof Term.Name nm ? nm.value() : t instanceof Term.Str s ? s.value() : null;
    }

    /** Whether applying {@code e} or not changes a session value that content-free contract {@code c}'s atoms read. */
    private boolean changesWhatItReads(int c, Event e) {
        if (allEvents[c] || kinds.get(c).contains(e.kind())) return true;
        for (Trigger t : triggers.get(c)) if (t.matches(e)) return true;
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
