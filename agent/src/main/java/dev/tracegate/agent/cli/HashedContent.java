package dev.tracegate.agent.cli;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.engine.monitor.ContractSet;

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
 * and provenance (whether a value occurred in an earlier result or user text).
 */
final class HashedContent {
    private HashedContent() {}

    /** Whether an atom reads the content of a text, an argument value or a result (see the class comment). */
    static boolean readsContent(Atom a) {
        int n = a.args().size();
        switch (a.name()) {
            case "call":
                return n == 2; // call(T, "re"): a pattern over the arguments
            case "arg": case "arg_matches": case "arg_in": case "path_within": case "len":
            case "result_matches": case "user_matches": case "output_matches": case "arg_eq_ctx":
            case "flow": case "untrusted": case "untrusted_target": case "named_link":
            case "category": case "personal_data": case "excess_data": case "mentions_erased":
            case "sum": case "context_len": case "output_chars": case "tokens":
                return true;
            case "ctx":
                return a.comparison() != null; // a context value compared with a bound; that it holds is structure
            case "since": {
                Term t = a.args().get(0);
                Atom inner = t instanceof Term.Call c ? Atom.of(c.name(), c.args().toArray(new Term[0]))
                        : t instanceof Term.Name nm ? Atom.of(nm.value()) : null;
                return inner == null || readsContent(inner);
            }
            default:
                return false;
        }
    }

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
                for (Atom a : set.formulas().get(f).atoms()) if (readsContent(a)) content.add(a.key());
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
