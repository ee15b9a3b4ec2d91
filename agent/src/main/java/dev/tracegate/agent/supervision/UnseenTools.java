package dev.tracegate.agent.supervision;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.contracts.library.Spelling;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
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
public final class UnseenTools {
    private UnseenTools() {}

    /** At most this many tools named per line; the rest are counted. */
    private static final int SHOWN = 10;

    /**
     * One line per library file of {@code lib} (built-ins left out) whose contracts name a tool none of {@code seen} is;
     * none when {@code seen} is empty (no tool event at all says nothing about the names).
     */
    public static List<String> lines(Library lib, Collection<String> seen) {
        return lines(lib, seen, List.of(), true);
    }

    /**
     * {@link #lines(Library, Collection)}, less the tools in {@code offered} (tools a framework registered with an AI service
     * in this run, the model offered them: the application has them, so their names are not misspelt, only unused), and
     * naming the configured-method cause of a foreign tool name only when {@code configuredMethods} (the application
     * configures some; before, an application without any was sent to agent/CONFIG.md for them, trial32 04).
     */
    static List<String> lines(Library lib, Collection<String> seen, Collection<String> offered, boolean configuredMethods) {
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
        java.util.Set<String> offeredFolded = new java.util.HashSet<>();
        for (String o : offered) {
            String f = ToolName.fold(o);
            if (f != null && !f.isEmpty()) offeredFolded.add(f);
        }
        for (LibrarySpec spec : lib.specs()) {
            if (spec.file() == null || spec.file().startsWith("builtin:")) continue;
            Map<String, Named> named = toolsNamed(spec);   // folded tool -> as first written, and that line (0: unknown)
            Map<String, List<List<String>>> alternatives = alternatives(spec);
            List<String> unseen = new ArrayList<>();
            for (Map.Entry<String, Named> t : named.entrySet()) {
                if (seenFolded.containsKey(t.getKey()) || offeredFolded.contains(t.getKey())) continue;
                if (anAlternativeCame(alternatives.get(t.getKey()), seenFolded)) continue;
                Named n = t.getValue();
                unseen.add(n.written() + " (" + (n.line() > 0 ? "line " + n.line() + "; " : "") + nearest(t.getKey(), seenFolded) + ")");
            }
            if (unseen.isEmpty()) continue;
            List<String> shown = unseen.size() > SHOWN ? unseen.subList(0, SHOWN) : unseen;
            out.add(spec.file() + ": its contracts name " + (unseen.size() == 1 ? "a tool" : unseen.size() + " tools")
                    + " that no tool event of this run had, while " + count(distinct(seen), "tool") + " did: "
                    + String.join(", ", shown) + (unseen.size() > shown.size() ? " and " + (unseen.size() - shown.size()) + " more" : "")
                    + ". Tool names are compared ignoring case, otherwise letter for letter, so a misspelt one never matches and its contract never acts:"
                    + " correct it in the library (a hot reload takes it). A tool the application has but did not call in this run"
                    + " needs nothing (docs/LIBRARY.md, \"Errors\")" + cameInstead(spec, seen, seenFolded, configuredMethods));
        }
        return out;
    }

    /** At most this many characters of one tool name that came (a swapped tool-name can make it a call's argument text). */
    private static final int NAME_SHOWN = 60;

    /**
     * When some contract of {@code spec} names tools of which none came: the tool names that did come, so that the
     * operator sees what a tool's events were really called (trial30 08: a configured method whose {@code tool-name}
     * took the wrong parameter produced {@code com.vendor.Ctx@63b1d4fa} for {@code transfer}, and the WARN only said that
     * no tool that came was near). Empty when each contract has one of its tools come.
     */
    private static String cameInstead(LibrarySpec spec, Collection<String> seen, Map<String, String> seenFolded, boolean configuredMethods) {
        List<String> ids = new ArrayList<>();
        for (LibrarySpec.ContractSpec c : spec.contracts()) {
            Map<String, List<List<String>>> places = new LinkedHashMap<>();
            if (c.assume() != null) placesOf(c.assume(), places);
            if (c.guarantee() != null) placesOf(c.guarantee(), places);
            if (places.isEmpty()) continue;
            boolean came = false;
            for (String t : places.keySet()) if (seenFolded.containsKey(t)) came = true;
            if (!came) ids.add(c.id());
        }
        if (ids.isEmpty()) return "";
        java.util.TreeMap<String, String> names = new java.util.TreeMap<>();   // folded -> as it came, in folded order
        for (String n : seen) {
            String f = ToolName.fold(n);
            // as a field (AgentLog.field): a name the model, a server or the application chose prints as one quoted field
            if (f != null && !f.isEmpty()) names.putIfAbsent(f, AgentLog.field(n.length() > NAME_SHOWN ? n.substring(0, NAME_SHOWN) + "..." : n));
        }
        List<String> all = new ArrayList<>(names.values());
        List<String> shown = all.size() > SHOWN ? all.subList(0, SHOWN) : all;
        List<String> idsShown = ids.size() > 3 ? ids.subList(0, 3) : ids;
        return ". None of the tools that " + String.join(", ", idsShown) + (ids.size() > idsShown.size() ? " and " + (ids.size() - idsShown.size()) + " more" : "")
                + (ids.size() == 1 ? " names" : " name") + " came; the tools that came: " + String.join(", ", shown)
                + (all.size() > shown.size() ? " and " + (all.size() - shown.size()) + " more" : "")
                + (configuredMethods ? " (a name here that is not your tool's, such as Ctx@1b6d3586 or an argument's text, is a configured method's"
                + " tool-name taken from the wrong parameter: agent/CONFIG.md, \"Configured methods\")" : "");
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
            String shown = AgentLog.field(s.getValue());   // a name that came is what the model or a server chose
            if (d == best && !names.contains(shown)) names.add(shown);
        }
        int within = Math.max(1, Math.min(3, tool.length() / 3));
        if (best > within) return "no tool that came is within " + within + (within == 1 ? " edit" : " edits");
        return "nearest that came: " + String.join(", ", names.size() > 3 ? names.subList(0, 3) : names) + ", " + best
                + (best == 1 ? " edit" : " edits");
    }

    /** A tool name as the library first writes it (shown: the user greps the file for it), and that line (0: unknown). */
    private record Named(String written, int line) {}

    /**
     * The folded tool names the atoms of {@code spec} name in a tool's place (folded to compare, as the contracts match),
     * each with its first spelling and the line it is on.
     */
    private static Map<String, Named> toolsNamed(LibrarySpec spec) {
        List<Map.Entry<Atom, LibrarySpec.Position>> atoms = new ArrayList<>(spec.atomPositions().entrySet());
        atoms.sort(java.util.Comparator.comparingInt((Map.Entry<Atom, LibrarySpec.Position> e) -> e.getValue() == null ? 0 : e.getValue().line())
                .thenComparingInt(e -> e.getValue() == null ? 0 : e.getValue().column()));
        Map<String, Named> out = new LinkedHashMap<>();
        for (Map.Entry<Atom, LibrarySpec.Position> a : atoms) {
            List<String> tools = new ArrayList<>();
            toolsOf(a.getKey().name(), a.getKey().args(), tools);
            for (String t : tools) {
                String f = ToolName.fold(t);
                if (f != null && !f.isEmpty()) out.putIfAbsent(f, new Named(t.trim(), a.getValue() == null ? 0 : a.getValue().line()));
            }
        }
        return out;
    }

    /**
     * Per folded tool name: the alternatives of each place the contracts name it, or, for a place where it has none, an
     * empty list (a tool named nowhere in a formula, only in a latch or a section, is absent: it has no alternative).
     * Alternatives are other spellings of the same tool among the disjuncts of one {@code |} chain: names equal once case,
     * {@code _} and {@code -} and an MCP prefix are left out ({@code search: call(search_kb) | call(searchkb)}, a configured
     * method and a LangChain4j tool of one application; bench/agent/support-desk.yaml). A run has one of them, or both,
     * so the other is not a misspelling; the same pair {@code check}'s slip notes take as intended (ToolNames). Other
     * disjuncts ({@code call(refund) | call(lookup_order)}) are tools of their own, whose contract parts act apart.
     */
    static Map<String, List<List<String>>> alternatives(LibrarySpec spec) {
        Map<String, List<List<String>>> out = new LinkedHashMap<>();
        for (LibrarySpec.ContractSpec c : spec.contracts()) {
            if (c.assume() != null) placesOf(c.assume(), out);
            if (c.guarantee() != null) placesOf(c.guarantee(), out);
        }
        return out;
    }

    /** Adds each place of formula {@code f} that names a tool, with its alternatives (see {@link #alternatives}). */
    private static void placesOf(Formula f, Map<String, List<List<String>>> out) {
        if (f instanceof Formula.Binary b && b.op() == Formula.BinOp.OR) {
            List<Formula> chain = new ArrayList<>();
            disjuncts(b, chain);
            // the tools each direct disjunct names in its own place (call(T), returned(T), ...), by spelling class
            Map<String, List<String>> bySpelling = new LinkedHashMap<>();
            List<String> direct = new ArrayList<>();
            for (Formula d : chain) {
                if (!(d instanceof Atom a)) continue;
                String t = ownTool(a);
                if (t == null || direct.contains(t)) continue;
                direct.add(t);
                bySpelling.computeIfAbsent(spelling(t), k -> new ArrayList<>()).add(t);
            }
            for (String t : direct) {
                List<String> alt = new ArrayList<>(bySpelling.get(spelling(t)));
                alt.remove(t);
                out.computeIfAbsent(t, k -> new ArrayList<>()).add(alt);
            }
            for (Formula d : chain) {
                if (d instanceof Atom a) {
                    // tools nested in a direct disjunct (since(call(x)) > 3) have no alternative there
                    List<String> nested = new ArrayList<>();
                    for (Term t : a.args()) if (t instanceof Term.Call call) toolsOf(call.name(), call.args(), nested);
                    for (String t : nested) place(ToolName.fold(t), List.of(), out);
                } else {
                    placesOf(d, out);
                }
            }
            return;
        }
        if (f instanceof Atom a) {
            List<String> tools = new ArrayList<>();
            toolsOf(a.name(), a.args(), tools);
            for (String t : tools) place(ToolName.fold(t), List.of(), out);
        } else if (f instanceof Formula.Unary u) {
            placesOf(u.arg(), out);
        } else if (f instanceof Formula.Binary b) {
            placesOf(b.left(), out);
            placesOf(b.right(), out);
        }
    }

    private static void place(String tool, List<String> alternatives, Map<String, List<List<String>>> out) {
        if (tool != null && !tool.isEmpty()) out.computeIfAbsent(tool, k -> new ArrayList<>()).add(alternatives);
    }

    /** The disjuncts of an {@code |} chain, left to right, nested chains flattened. */
    private static void disjuncts(Formula f, List<Formula> out) {
        if (f instanceof Formula.Binary b && b.op() == Formula.BinOp.OR) {
            disjuncts(b.left(), out);
            disjuncts(b.right(), out);
        } else {
            out.add(f);
        }
    }

    /** The folded tool an atom names in its own tool's place ({@code call(T)}, {@code arg(T, f) > 3}), or null. */
    private static String ownTool(Atom a) {
        Vocabulary.Form f = Vocabulary.form(a.name(), a.args().size());
        if (f == null || !f.syntax().startsWith(a.name() + "(T") || a.args().isEmpty()) return null;
        String t = a.args().get(0) instanceof Term.Name n ? n.value() : a.args().get(0) instanceof Term.Str s ? s.value() : null;
        String folded = ToolName.fold(t);
        return folded == null || folded.isEmpty() ? null : folded;
    }

    /** A tool's name as its spellings share it: folded, its bare MCP name, without {@code _} and {@code -}. */
    private static String spelling(String folded) {
        return ToolName.bare(folded).replace("_", "").replace("-", "");
    }

    /**
     * Whether every place that names an unseen tool has an alternative that came ({@code places}: see {@link #alternatives};
     * null: the tool is named in no formula, so it has none).
     */
    private static boolean anAlternativeCame(List<List<String>> places, Map<String, String> seenFolded) {
        if (places == null || places.isEmpty()) return false;
        for (List<String> alternatives : places) {
            boolean came = false;
            for (String a : alternatives) if (seenFolded.containsKey(a)) came = true;
            if (!came) return false;
        }
        return true;
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

    /**
     * The line said at shutdown for tools a model asked for in a response the agent saw ({@code requested}: name -> how
     * often) of which no tool event came ({@code seen}: the run's tool names, compared folded), or null when every such
     * tool came: the framework ran them on a path the agent does not intercept, so no contract saw them (trial34 05: a
     * framework's own tool path, quarkus-langchain4j's before session 18, the application's own tool loop around a model
     * it calls itself). Names the tools (ten at most) and the workaround.
     */
    static String requestedNeverCame(Map<String, ? extends Number> requested, Collection<String> seen) {
        if (requested == null || requested.isEmpty()) return null;
        java.util.Set<String> seenFolded = new java.util.HashSet<>();
        for (String s : seen) {
            String f = ToolName.fold(s);
            if (f != null) {
                seenFolded.add(f);
                seenFolded.add(ToolName.bare(f));
            }
        }
        List<String> never = new ArrayList<>();
        for (Map.Entry<String, ? extends Number> e : new java.util.TreeMap<String, Number>(requested).entrySet()) {
            String f = ToolName.fold(e.getKey());
            if (f == null || f.isEmpty() || seenFolded.contains(f) || seenFolded.contains(ToolName.bare(f))) continue;
            long n = e.getValue().longValue();
            // the name the model chose, as a field (AgentLog.field): a plain word as it is, anything else quoted and escaped,
            // so a name holding a line break and an escape code cannot forge a line (trial47 04: a fake BLOCK decision)
            never.add(AgentLog.field(e.getKey()) + " (asked for " + n + (n == 1 ? " time)" : " times)"));
        }
        if (never.isEmpty()) return null;
        List<String> shown = never.size() > SHOWN ? never.subList(0, SHOWN) : never;
        String first = never.get(0).substring(0, never.get(0).lastIndexOf(" (asked for "));
        return "the model asked for " + (never.size() == 1 ? "a tool" : never.size() + " tools") + " that never reached tracegate: "
                + String.join(", ", shown) + (never.size() > shown.size() ? " and " + (never.size() - shown.size()) + " more" : "")
                + ". No contract saw or stopped " + (never.size() == 1 ? "it" : "them") + ": the application or its framework runs "
                + (never.size() == 1 ? "that tool" : "these tools") + " on a path the agent does not intercept (its own tool loop around"
                + " a model it calls, or a framework or version outside the support matrix, agent/README.md), or the model named a tool"
                + " the application does not have. Supervise "
                + (never.size() == 1 ? "it" : "them") + " as configured methods: configured-methods: [{class: <the class that declares "
                + first + ">, method: " + first + ", kind: tool}] (agent/CONFIG.md, \"Configured methods\").";
    }
}
