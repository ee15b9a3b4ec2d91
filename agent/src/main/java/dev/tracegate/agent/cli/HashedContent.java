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

    /** The note replay prints for a hashed log {@code name} written with personal data {@code mode}. */
    static String note(String name, String mode, Library lib) {
        List<String> affected = contracts(lib);
        String head = "note: " + name + " is an audit log with personal data hashed (" + mode + "): ";
        if (affected.isEmpty()) {
            return head + "none of the replayed contracts reads content it holds only as digests (texts, argument values,"
                    + " results), so their verdicts are the online ones";
        }
        return head + "these contracts read content it holds only as digests (texts, argument values, results), so their"
                + " verdicts from it are not the online ones (an atom may come out false, not only unevaluable): "
                + String.join("; ", affected) + ". Write the log with audit.personal-data: clear to replay them";
    }
}
