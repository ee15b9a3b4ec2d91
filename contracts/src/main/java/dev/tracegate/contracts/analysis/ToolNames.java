package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.contracts.library.Spelling;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.predicate.Vocabulary;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Tool names of one library that are one slip apart ({@code issue_refnd} in one atom, {@code issue_refund} in
 * others; a latch on {@code lookup_ordr} beside {@code failed(lookup_order)}; {@code send_emial} under
 * {@code injection.side-effecting} beside {@code call(send_email)}). A library cannot know the application's tools,
 * but when it names both spellings itself one of them is very likely a typo, and a typo in a tool name loads and
 * silently never acts (tool names are compared ignoring case, otherwise letter for letter). {@code check} prints one note per such pair.
 */
public final class ToolNames {
    private ToolNames() {}

    /** Where a tool name occurs: the place to show, whether a contract's formula names it, how often. */
    private static final class Uses {
        final String spelling;
        String where;
        int line = Integer.MAX_VALUE;
        boolean inFormula;
        int count;
        final java.util.Set<Integer> formulaLines = new java.util.HashSet<>();

        Uses(String spelling) { this.spelling = spelling; }

        void add(String what, int line, boolean formula) {
            count++;
            inFormula |= formula;
            if (formula && line > 0) formulaLines.add(line);
            if (line > 0 && line < this.line || where == null) {
                this.line = line > 0 ? line : this.line;
                where = what;
            }
        }
    }

    /** One note per pair of near-identical tool names within one library file, in file order. */
    public static List<String> notes(List<LibrarySpec> specs) {
        List<String> out = new ArrayList<>();
        for (LibrarySpec s : specs) {
            if (s.file().startsWith("builtin:")) continue;
            Map<String, Uses> tools = new LinkedHashMap<>();
            List<Map.Entry<Atom, LibrarySpec.Position>> atoms = new ArrayList<>(s.atomPositions().entrySet());
            atoms.sort(java.util.Comparator.comparingInt((Map.Entry<Atom, LibrarySpec.Position> e) -> e.getValue() == null ? 0 : e.getValue().line())
                    .thenComparingInt(e -> e.getValue() == null ? 0 : e.getValue().column()));
            for (Map.Entry<Atom, LibrarySpec.Position> a : atoms) {
                List<String> named = new ArrayList<>();
                toolsOf(a.getKey().name(), a.getKey().args(), named);
                for (String t : named) use(tools, t, a.getKey().key(), a.getValue() == null ? 0 : a.getValue().line(), true);
            }
            for (LibrarySpec.LatchSpec l : s.latches()) {
                if (l.tool() != null) use(tools, l.tool(), "the latch on " + l.kind() + " of " + l.tool(), l.line(), false);
            }
            if (s.injection() != null) {
                for (String t : s.injection().sideEffecting().keySet()) use(tools, t, "injection.side-effecting", 0, false);
                if (s.injection().provenance() != null) {
                    for (String t : s.injection().provenance().fetchTools()) use(tools, t, "injection.provenance.fetch-tools", 0, false);
                    for (String t : s.injection().provenance().linkPayloads().keySet()) use(tools, t, "injection.provenance.link-payloads", 0, false);
                }
            }
            if (s.gdpr() != null) {
                for (String t : s.gdpr().tools().keySet()) use(tools, t, "gdpr.tools", 0, false);
                for (String t : s.gdpr().fields().keySet()) use(tools, t, "gdpr.fields", 0, false);
                for (String t : s.gdpr().consentTools().keySet()) use(tools, t, "gdpr.consent-tools", 0, false);
                for (String t : s.gdpr().erasureTools().keySet()) use(tools, t, "gdpr.erasure-tools", 0, false);
            }
            List<String> names = new ArrayList<>(tools.keySet());
            int before = out.size();
            List<String> pairs = new ArrayList<>();
            for (int i = 0; i < names.size(); i++) {
                for (int j = i + 1; j < names.size(); j++) {
                    String a = names.get(i);
                    String b = names.get(j);
                    if (!near(a, b) || numbered(a, b)) continue;
                    Uses ua = tools.get(a);
                    Uses ub = tools.get(b);
                    // a snake_case and a camelCase spelling side by side on one line of formulas (search: call(search_kb) |
                    // call(searchkb), a configured method and a LangChain4j tool): on purpose
                    if (!java.util.Collections.disjoint(ua.formulaLines, ub.formulaLines)
                            && a.replace("_", "").replace("-", "").equals(b.replace("_", "").replace("-", ""))) {
                        continue;
                    }
                    // the likelier typo: the name used less often; on a tie, the one no contract's formula names
                    boolean aIsTypo = ua.count != ub.count ? ua.count < ub.count : !ua.inFormula && ub.inFormula;
                    Uses typo = aIsTypo ? ua : ub;
                    Uses other = aIsTypo ? ub : ua;
                    pairs.add("'" + typo.spelling + "'/'" + other.spelling + "'");
                    out.add(place(s, typo) + ": tool '" + typo.spelling + "' (" + typo.where + ") is one slip away from tool '"
                            + other.spelling + "', which " + (other.count == 1 ? "one other place" : other.count + " other places")
                            + " of this library name" + (other.count == 1 ? "s" : "") + " (" + (other.line == Integer.MAX_VALUE ? ""
                            : "line " + other.line + ": ") + other.where + "); tool names are compared ignoring case, otherwise letter for letter, so"
                            + " what names the wrong one never acts. Did you mean '" + other.spelling + "'? (If both tools exist,"
                            + " ignore this note.)");
                }
            }
            // many pairs in one file are a naming scheme (t100/u100, ...), not typos: the first few, then one note for the rest
            if (pairs.size() > SHOWN) {
                out.subList(before + SHOWN, out.size()).clear();
                out.add(s.file() + ": and " + (pairs.size() - SHOWN) + " more pairs of tool names one slip apart ("
                        + String.join(", ", pairs.subList(SHOWN, Math.min(pairs.size(), SHOWN + 3)))
                        + (pairs.size() > SHOWN + 3 ? ", ..." : "") + "), each noted as the " + SHOWN + " above: so many alike"
                        + " are most likely a naming scheme, not typos");
            }
        }
        return out;
    }

    /** The slip notes shown per library file before the rest are summed up in one. */
    static final int SHOWN = 5;

    private static String place(LibrarySpec s, Uses u) {
        return s.file() + (u.line == Integer.MAX_VALUE ? "" : ":" + u.line);
    }

    private static void use(Map<String, Uses> tools, String tool, String what, int line, boolean formula) {
        String folded = ToolName.fold(tool);
        if (folded == null || folded.isEmpty()) return;
        tools.computeIfAbsent(folded, k -> new Uses(tool)).add(what, line, formula);
    }

    /**
     * Names that differ only in their numbers ({@code tool_0} and {@code tool_1}, {@code get_v1} and {@code get_v12}):
     * a numbered series, named on purpose (trial27 06: tool_0 ... tool_59 gave about 400 notes that buried the analysis).
     */
    static boolean numbered(String a, String b) {
        String na = a.replaceAll("[0-9]+", "#");
        return na.indexOf('#') >= 0 && na.equals(b.replaceAll("[0-9]+", "#"));
    }

    /** One edit apart (a swap counts as one), for names of four characters or more; two for names of ten or more. */
    static boolean near(String a, String b) {
        int shorter = Math.min(a.length(), b.length());
        if (shorter < 4) return false;
        int d = Spelling.distance(a.toLowerCase(Locale.ROOT), b.toLowerCase(Locale.ROOT));
        return d == 1 || d == 2 && shorter >= 10;
    }

    /** The tool names an atom (or a nested one, as in since(call(x)) or len(arg(T, f))) names in a tool's place. */
    private static void toolsOf(String name, List<Term> args, List<String> out) {
        Vocabulary.Form f = Vocabulary.form(name, args.size());
        if (f != null && f.syntax().startsWith(name + "(T") && !args.isEmpty() && args.get(0) instanceof Term.Name n) {
            out.add(n.value());
        }
        for (Term t : args) if (t instanceof Term.Call c) toolsOf(c.name(), c.args(), out);
    }
}
