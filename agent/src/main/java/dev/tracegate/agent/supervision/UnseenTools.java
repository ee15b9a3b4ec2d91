package dev.tracegate.agent.supervision;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.contracts.library.Spelling;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Term;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.predicate.Vocabulary;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The tools a library's contracts name that no tool event of the run had, while others did: said at shutdown, one WARN
 * line per library file, with the nearest tool names that did come. A misspelt tool name ({@code call(reset_pasword)}
 * for {@code reset_password}) loads, since a library cannot know the application's tools, and then never matches, so
 * its contract never acts and nothing said so (docs/LIBRARY.md, "Errors").
 *
 * <p>At shutdown, not at a session's end: a session calls a few of the application's tools, so a tool a contract names
 * is missing from most sessions without being misspelt, and a note at the first session's end would judge the name on
 * that session alone; the whole run's tools are known only at its end, and said once there. Built-in libraries are left
 * out (their tool names are tracegate's, for a known tool set, not the user's spelling). What counts as seen is every
 * tool name of an audit record (a call, a result, a refused call) and the tool of a call that was redirected (whose record
 * carries its target); a name is seen for a contract's tool as the contracts match names: folded, or its bare MCP name.
 */
final class UnseenTools {
    private UnseenTools() {}

    /** At most this many tools named per line; the rest are counted. */
    private static final int SHOWN = 10;

    /**
     * One line per library file of {@code lib} (built-ins left out) whose contracts name a tool none of {@code seen} is;
     * none when {@code seen} is empty (no tool event at all says nothing about the names).
     */
    static List<String> lines(Library lib, Collection<String> seen) {
        List<String> out = new ArrayList<>();
        if (seen.isEmpty()) return out;
        Map<String, String> seenFolded = new LinkedHashMap<>();   // folded name (and bare MCP name) -> the name as it came
        for (String s : seen) {
            String f = ToolName.fold(s);
            if (f == null || f.isEmpty()) continue;
            seenFolded.putIfAbsent(f, s);
            seenFolded.putIfAbsent(ToolName.bare(f), s);
        }
        if (seenFolded.isEmpty()) return out;
        for (LibrarySpec spec : lib.specs()) {
            if (spec.file() == null || spec.file().startsWith("builtin:")) continue;
            Map<String, Integer> named = toolsNamed(spec);   // folded tool -> the first line that names it (0: unknown)
            List<String> unseen = new ArrayList<>();
            for (Map.Entry<String, Integer> t : named.entrySet()) {
                if (seenFolded.containsKey(t.getKey())) continue;
                unseen.add(t.getKey() + " (" + (t.getValue() > 0 ? "line " + t.getValue() + "; " : "") + nearest(t.getKey(), seenFolded) + ")");
            }
            if (unseen.isEmpty()) continue;
            List<String> shown = unseen.size() > SHOWN ? unseen.subList(0, SHOWN) : unseen;
            out.add(spec.file() + ": its contracts name " + (unseen.size() == 1 ? "a tool" : unseen.size() + " tools")
                    + " that no tool event of this run had, while " + count(distinct(seen), "tool") + " did: "
                    + String.join(", ", shown) + (unseen.size() > shown.size() ? " and " + (unseen.size() - shown.size()) + " more" : "")
                    + ". Tool names are compared exactly (case aside), so a misspelt one never matches and its contract never acts:"
                    + " correct it in the library (a hot reload takes it). A tool the application has but did not call in this run"
                    + " needs nothing (docs/LIBRARY.md, \"Errors\")");
        }
        return out;
    }

    /** The nearest names that came, by edit distance, when within a few edits of {@code tool}; else says there is none. */
    private static String nearest(String tool, Map<String, String> seenFolded) {
        int best = Integer.MAX_VALUE;
        List<String> names = new ArrayList<>();
        for (Map.Entry<String, String> s : seenFolded.entrySet()) {
            int d = Spelling.distance(tool, s.getKey());
            if (d < best) {
                best = d;
                names.clear();
            }
            if (d == best && !names.contains(s.getValue())) names.add(s.getValue());
        }
        int within = Math.max(1, Math.min(3, tool.length() / 3));
        if (best > within) return "no tool that came is within " + within + (within == 1 ? " edit" : " edits");
        return "nearest that came: " + String.join(", ", names.size() > 3 ? names.subList(0, 3) : names) + ", " + best
                + (best == 1 ? " edit" : " edits");
    }

    /** The folded tool names the atoms of {@code spec} name in a tool's place, with the first line each is named on. */
    private static Map<String, Integer> toolsNamed(LibrarySpec spec) {
        List<Map.Entry<Atom, LibrarySpec.Position>> atoms = new ArrayList<>(spec.atomPositions().entrySet());
        atoms.sort(java.util.Comparator.comparingInt((Map.Entry<Atom, LibrarySpec.Position> e) -> e.getValue() == null ? 0 : e.getValue().line())
                .thenComparingInt(e -> e.getValue() == null ? 0 : e.getValue().column()));
        Map<String, Integer> out = new LinkedHashMap<>();
        for (Map.Entry<Atom, LibrarySpec.Position> a : atoms) {
            List<String> tools = new ArrayList<>();
            toolsOf(a.getKey().name(), a.getKey().args(), tools);
            for (String t : tools) {
                String f = ToolName.fold(t);
                if (f != null && !f.isEmpty()) out.putIfAbsent(f, a.getValue() == null ? 0 : a.getValue().line());
            }
        }
        return out;
    }

    /** The tool names an atom (or one nested in it: since(call(x)), len(arg(T, f))) names in a tool's place. */
    private static void toolsOf(String name, List<Term> args, List<String> out) {
        Vocabulary.Form f = Vocabulary.form(name, args.size());
        if (f != null && f.syntax().startsWith(name + "(T") && !args.isEmpty()) {
            if (args.get(0) instanceof Term.Name n) out.add(n.value());
            else if (args.get(0) instanceof Term.Str s) out.add(s.value());
        }
        for (Term t : args) if (t instanceof Term.Call c) toolsOf(c.name(), c.args(), out);
    }

    private static int distinct(Collection<String> seen) {
        java.util.Set<String> folded = new java.util.HashSet<>();
        for (String s : seen) if (s != null && !s.isBlank()) folded.add(ToolName.fold(s));
        return folded.size();
    }

    private static String count(int n, String what) {
        return n + " " + what + (n == 1 ? "" : "s");
    }
}
