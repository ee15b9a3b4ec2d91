package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.matchers.predicate.Vocabulary;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which atoms and contracts read content that an audit log with personal data hashed keeps only as digests
 * (texts, argument values, results), so that replaying such a log cannot reproduce their online verdicts.
 *
 * <p>A hashed log keeps the event kinds, tool names, argument field names, order, purposes, the consent
 * tools' clear fields, declared depth, and equality of two values within one log segment (equal values get
 * equal digests). Every predicate that looks inside a value does not get the online answer from a digest:
 * patterns, comparisons with a bound, lengths and character counts, sums, data categories found in a text,
 * provenance (whether a value occurred in an earlier result or user text), and context values that the library's
 * latches take from such content. Which atoms those are, each vocabulary form declares itself
 * ({@link Vocabulary.Form#reads()}), so a new form cannot be forgotten here.
 */
final class HashedContent {
    private HashedContent() {}

    /**
     * For each contract of the library that has a content atom in its assumption or guarantee: its id and those
     * atoms, as {@code id (atom, atom)}, in library order.
     */
    static List<String> contracts(Library lib) {
        ContractSet set = lib.contracts();
        List<String> out = new ArrayList<>();
        for (int c = 0; c < set.contracts().size(); c++) {
            Set<String> content = new LinkedHashSet<>();
            for (int f : new int[] {set.assumeOf(c), set.guaranteeOf(c)}) {
                for (Atom a : set.formulas().get(f).atoms()) if (Vocabulary.readsContent(a, lib.policy())) content.add(a.key());
            }
            if (!content.isEmpty()) out.add(set.contracts().get(c).id() + " (" + String.join(", ", content) + ")");
        }
        return out;
    }

    /**
     * The ids of the contracts that read no content themselves but whose verdicts from a hashed log may still differ
     * when it is replayed in enforce mode: an event a content-reading contract refuses there is not applied (as online
     * a refused event is not), so which events the others see, count and sum follows the content-reading ones'
     * verdicts from digests. Empty in shadow mode (every event is applied) or when no contract reads content.
     */
    static List<String> followers(Library lib, boolean enforce) {
        List<String> out = new ArrayList<>();
        if (!enforce || contracts(lib).isEmpty()) return out;
        ContractSet set = lib.contracts();
        for (int c = 0; c < set.contracts().size(); c++) {
            boolean content = false;
            for (int f : new int[] {set.assumeOf(c), set.guaranteeOf(c)}) {
                for (Atom a : set.formulas().get(f).atoms()) content |= Vocabulary.readsContent(a, lib.policy());
            }
            if (!content) out.add(set.contracts().get(c).id());
        }
        return out;
    }

    /**
     * The note replay prints for a hashed log {@code name} written with personal data {@code mode}, replayed in enforce
     * mode or not. {@code div}: what the replay found, in enforce mode, about the events it applied or refused unlike the
     * log's decisions (the contracts that observe one are named, each with the first such event); null in enforce mode
     * when the log's decisions cannot tell (a log written in shadow mode applied every event): then every contract that
     * reads no content is named.
     */
    static String note(String name, String mode, Library lib, boolean enforce, Divergence div) {
        List<String> affected = contracts(lib);
        String head = "note: " + name + " is an audit log with personal data hashed (" + mode + "): ";
        if (affected.isEmpty()) {
            return head + "none of the replayed contracts reads content it holds only as digests (texts, argument values,"
                    + " results), so their verdicts are the online ones";
        }
        return head + "these contracts read content it holds only as digests (texts, argument values, results), so their"
                + " verdicts from it are not the online ones (an atom may come out false, not only unevaluable): "
                + String.join("; ", affected) + "." + followersNote(lib, enforce, div)
                + " Write the log with audit.personal-data: clear to replay them";
    }

    private static String followersNote(Library lib, boolean enforce, Divergence div) {
        if (!enforce) return "";
        String lead = " Replayed in enforce mode, whether an event is applied follows their verdicts from digests (a refused"
                + " event is not applied)";
        if (div == null) {
            List<String> followers = followers(lib, true);
            return followers.isEmpty() ? "" : lead + ", and the log, written in shadow mode, applied every event, so its"
                    + " decisions cannot show which events the online run would have refused: the events the other contracts"
                    + " see, count and sum may differ from the online ones, and so may their verdicts: " + String.join(", ", followers) + ".";
        }
        if (div.differing() == 0) {
            return lead + ": every event was applied or refused here as the log's decision says it was online, so the other"
                    + " contracts' verdicts are the online ones.";
        }
        String events = div.differing() == 1 ? "1 event was" : div.differing() + " events were";
        List<String> named = div.named();
        if (named.isEmpty()) {
            return lead + ": " + events + " applied here and refused online or the other way round (first " + div.firstDiffering()
                    + "), and none of the other contracts observes " + (div.differing() == 1 ? "it" : "them")
                    + " (neither its automata nor a count, run or context value it reads would change), so their verdicts are the online ones.";
        }
        return lead + ": " + events + " applied here and refused online or the other way round, so these other contracts,"
                + " which observe such an event (their automata or a count, run or context value they read changes with it),"
                + " may differ too, each with the first one: " + String.join("; ", named) + ".";
    }
}
