package dev.tracegate.contracts.eval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.monitor.Grounder;
import dev.tracegate.engine.monitor.SessionState;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.event.ToolName;

import java.io.DataOutput;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * A grounding wrapper that decides the {@code untrusted_target} atom with a finer provenance than
 * the matchers' identifier sets (the refinements the AgentDojo data study asks for), leaving every
 * other atom to the library's own grounding. Offline only: its session context cannot be serialised.
 *
 * <p>A target value (each element of a list) is untrusted when it occurs in a tool output, the user
 * never named it, and (with {@link Rules#wholeFields}) it is not a whole structured field of an
 * output; a value that occurs whole in no output and no user text is untrusted when an identifier
 * inside it is. Occurrence and naming are whole-word and case-insensitive, URLs without their scheme.
 */
public final class OfflineProvenance implements Grounder<Event> {

    /**
     * Which refinements are on.
     *
     * @param wholeFields a value that is a whole structured field of a tool output (YAML scalar,
     *                    list item or mapping key) is trusted; only values inside free text are not
     * @param labelledLines also trusted: the value of a {@code Label: value} line inside a text
     *                    output (a document's own field notation, e.g. {@code IBAN: ...} in a bill)
     * @param namedOwner  also trusted: an e-mail address whose local part holds a name the user named
     *                    as a whole word ({@code dora@...} when the user wrote "invite Dora")
     * @param linkPayloads tool -> payload arguments (of outbound messages) in which a link or e-mail
     *                    address counts like a target: sending on a link that only a tool output's
     *                    free text gave makes the call's target untrusted too (empty: off)
     * @param delegation  when the user's message hands the task to a source ("follow the instructions
     *                    in ...", "do the tasks on my list at ...") and a call reads a source the user
     *                    named, that output counts as the user's request for {@code user_matches}
     *                    atoms (the request rules); targets stay checked as before
     * @param fetchTools  tools that only fetch (outbound requests): their target may also be a value
     *                    inside a record (YAML mapping) of an output one of whose short fields the user
     *                    named, such as a link in a message of the channel the user named; such a link
     *                    may then also be quoted in an outbound payload (when non-empty)
     * @param endorse     which outputs are endorsed: the user pointed at their source, so values in
     *                    them are trusted like the user's own words
     */
    public record Rules(boolean wholeFields, boolean labelledLines, boolean namedOwner, Endorse endorse,
                        Map<String, List<String>> linkPayloads, boolean delegation, Set<String> fetchTools) {
        /** Whole fields only. */
        public Rules(boolean wholeFields, Endorse endorse) { this(wholeFields, false, false, endorse, Map.of(), false, Set.of()); }

        /** Without fetch tools. */
        public Rules(boolean wholeFields, boolean labelledLines, boolean namedOwner, Endorse endorse,
                     Map<String, List<String>> linkPayloads, boolean delegation) {
            this(wholeFields, labelledLines, namedOwner, endorse, linkPayloads, delegation, Set.of());
        }

        public Rules {
            Set<String> folded = new HashSet<>();
            fetchTools.forEach(x -> folded.add(ToolName.fold(x)));
            fetchTools = Set.copyOf(folded);
            Map<String, List<String>> m = new HashMap<>();
            linkPayloads.forEach((t, fs) -> m.put(ToolName.fold(t), List.copyOf(fs)));
            linkPayloads = Map.copyOf(m);
        }
    }

    /** Which tool outputs count as sources the user pointed at. */
    public enum Endorse {
        /** None. */
        NONE,
        /** Outputs of calls with an argument the user named in their own words. */
        DIRECT,
        /** Also outputs of calls with an argument that an endorsed output gave (transitively). */
        TRANSITIVE,
        /**
         * Not whole outputs: one record (a YAML mapping) of an output, when one of its short fields
         * is a value the user named (the message whose sender or channel the user gave).
         */
        RECORD
    }

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Grounder<Event> inner;
    private final Rules rules;
    private final int slot;
    private final int[] atoms;
    private final int[] requestAtoms;
    private final java.util.regex.Pattern[] requestPatterns;
    /** Words with which a user hands the task to a document, page or message. */
    static final java.util.regex.Pattern DELEGATION = java.util.regex.Pattern.compile(
            "(?i)\\b(follow|instructions?|to-?do|tasks|actions|specified|as (it|they|he|she) says?)\\b");
    private final Map<String, List<String>> targets = new HashMap<>();

    /** Wraps {@code lib}'s grounding. */
    public OfflineProvenance(Library lib, Rules rules) {
        this.inner = lib.grounding();
        this.rules = rules;
        this.slot = inner.refs();
        List<Integer> idx = new ArrayList<>();
        List<Atom> all = lib.grounding().atoms();
        for (int g = 0; g < all.size(); g++) if (all.get(g).name().equals("untrusted_target")) idx.add(g);
        this.atoms = idx.stream().mapToInt(Integer::intValue).toArray();
        List<Integer> req = new ArrayList<>();
        List<java.util.regex.Pattern> pats = new ArrayList<>();
        for (int g = 0; g < all.size(); g++) {
            Atom a = all.get(g);
            if (a.name().equals("user_matches") && a.args().size() == 1
                    && a.args().get(0) instanceof dev.tracegate.engine.ltl.Term.Str str) {
                req.add(g);
                pats.add(java.util.regex.Pattern.compile(str.value()));
            }
        }
        this.requestAtoms = req.stream().mapToInt(Integer::intValue).toArray();
        this.requestPatterns = pats.toArray(new java.util.regex.Pattern[0]);
        for (LibrarySpec s : lib.specs()) {
            if (s.injection() == null) continue;
            s.injection().sideEffecting().forEach((t, fs) -> targets.computeIfAbsent(ToolName.fold(t), k -> new ArrayList<>()).addAll(fs));
        }
    }

    /** What the session has seen: the user's texts, and the tool outputs as free text and as whole fields. */
    private record Seen(List<String> userTexts, List<String> outputs, Set<String> fields, List<String> endorsed,
                        Map<String, Boolean> pending, List<String> records, List<String> delegated, Set<String> names) {
        static final Seen EMPTY = new Seen(List.of(), List.of(), Set.of(), List.of(), Map.of(), List.of(), List.of(), Set.of());
    }

    @Override public int words() { return inner.words(); }

    @Override public int refs() { return slot + 1; }

    @Override public void init(SessionState state) {
        inner.init(state);
        state.refs[slot] = Seen.EMPTY;
    }

    @Override public int ground(Event event, SessionState state, long[] valuation, long[] unevaluable) {
        int u = inner.ground(event, state, valuation, unevaluable);
        Seen seen = (Seen) state.refs[slot];
        if (rules.delegation() && event.kind() == EventKind.RETURN && event.result() != null
                && Boolean.TRUE.equals(seen.pending().get(String.valueOf(event.callId()))) && delegated(seen)) {
            for (int i = 0; i < requestAtoms.length; i++) {
                if (requestPatterns[i].matcher(event.result()).find()) valuation[requestAtoms[i] >>> 6] |= 1L << requestAtoms[i];
            }
        }
        if (atoms.length == 0) return u;
        int value = untrustedTarget(event, seen);
        for (int g : atoms) {
            long bit = 1L << g;
            if (unevaluable != null && (unevaluable[g >>> 6] & bit) != 0) {
                unevaluable[g >>> 6] &= ~bit;
                u--;
            }
            valuation[g >>> 6] &= ~bit;
            if (value > 0) valuation[g >>> 6] |= bit;
        }
        return u;
    }

    @Override public void apply(Event e, long[] valuation, SessionState st) {
        inner.apply(e, valuation, st);
        Seen s = (Seen) st.refs[slot];
        if (e.kind() == EventKind.USER && e.text() != null) {
            List<String> u = new ArrayList<>(s.userTexts());
            u.add(fold(e.text()));
            Set<String> nm = new HashSet<>(s.names());
            names(e.text(), nm);
            st.refs[slot] = new Seen(List.copyOf(u), s.outputs(), s.fields(), s.endorsed(), s.pending(), s.records(), s.delegated(),
                    Set.copyOf(nm));
        } else if (e.kind() == EventKind.CALL && (rules.endorse() != Endorse.NONE || rules.delegation())) {
            Map<String, Boolean> p = new HashMap<>(s.pending());
            p.put(String.valueOf(e.callId()), endorses(e, s));
            st.refs[slot] = new Seen(s.userTexts(), s.outputs(), s.fields(), s.endorsed(), Map.copyOf(p), s.records(), s.delegated(),
                    s.names());
        } else if (e.kind() == EventKind.RETURN && e.result() != null && !e.error()) {
            List<String> o = new ArrayList<>(s.outputs());
            o.add(fold(e.result()));
            Set<String> f = new HashSet<>(s.fields());
            JsonNode tree = parse(e.result());
            fields(e.result(), tree, f, rules.labelledLines());
            List<String> en = s.endorsed();
            if (rules.endorse() == Endorse.RECORD) {
                List<String> x = new ArrayList<>(en);
                if (tree != null) records(tree, s.userTexts(), s.names(), List.of(), x);
                en = x.size() == en.size() ? en : List.copyOf(x);
            } else if (Boolean.TRUE.equals(s.pending().get(String.valueOf(e.callId())))) {
                List<String> x = new ArrayList<>(en);
                x.add(fold(e.result()));
                en = List.copyOf(x);
            }
            List<String> del = s.delegated();
            if (rules.delegation() && Boolean.TRUE.equals(s.pending().get(String.valueOf(e.callId()))) && delegated(s)) {
                List<String> x = new ArrayList<>(del);
                x.add(fold(e.result()));
                del = List.copyOf(x);
            }
            List<String> rec = s.records();
            if (!rules.fetchTools().isEmpty()) {
                List<String> x = new ArrayList<>(rec);
                // a source the user handed the task to names records too
                if (tree != null) records(tree, s.userTexts(), s.names(), s.delegated(), x);
                rec = x.size() == rec.size() ? rec : List.copyOf(x);
            }
            st.refs[slot] = new Seen(s.userTexts(), List.copyOf(o), Set.copyOf(f), en, s.pending(), rec, del, s.names());
        }
    }

    private static boolean delegated(Seen s) {
        for (String u : s.userTexts()) if (DELEGATION.matcher(u).find()) return true;
        return false;
    }

    /** True when some argument of the call names a value the user named, or one an endorsed output gave. */
    private boolean endorses(Event e, Seen s) {
        Args a = e.args();
        for (int i = 0; i < a.leafCount(); i++) {
            String v = fold(a.leafValue(i).asText());
            if (v.length() < 3) continue;
            if (named(v, s, rules.endorse() == Endorse.TRANSITIVE)) return true;
        }
        return false;
    }

    private static boolean named(String v, Seen s, boolean endorsedToo) {
        for (String u : s.userTexts()) if (mentions(u, v)) return true;
        if (endorsedToo) for (String u : s.endorsed()) if (mentions(u, v)) return true;
        return false;
    }

    /** 1 when a target of this side-effecting call is untrusted, 0 otherwise. */
    int untrustedTarget(Event e, Seen seen) {
        if (e.kind() != EventKind.CALL) return 0;
        List<String> fs = targets.get(ToolName.fold(e.tool()));
        if (fs == null && e.toolBare() != null) fs = targets.get(ToolName.fold(e.toolBare()));
        if (fs == null) return 0;
        List<String> links = rules.linkPayloads().get(ToolName.fold(e.tool()));
        if (links != null) {
            for (String f : links) {
                JsonNode v = e.args().get(Args.Path.field(f));
                if (v == null || v.isNull()) continue;
                for (String id : dev.tracegate.matchers.predicate.Identifiers.find(v.isTextual() ? v.textValue() : v.toString())) {
                    if ((id.contains("www.") || id.contains("://") || id.indexOf('@') > 0) && untrusted(id, seen)
                            && !(!rules.fetchTools().isEmpty() && inRecord(id, seen))) {
                        return 1;
                    }
                }
            }
        }
        boolean fetch = rules.fetchTools().contains(ToolName.fold(e.tool()));
        for (String f : fs) {
            JsonNode v = e.args().get(Args.Path.field(f));
            if (v == null || v.isNull()) continue;
            for (String x : scalars(v, new ArrayList<>())) if (untrustedTargetValue(x, seen, fetch)) return 1;
        }
        return 0;
    }

    /** Every scalar of a target: itself, each element of a list, each field of an object (a record parameter), at any depth. */
    private static List<String> scalars(JsonNode v, List<String> out) {
        if (v.isContainerNode()) for (JsonNode x : v) scalars(x, out);
        else if (!v.isNull()) out.add(v.asText());
        return out;
    }

    /**
     * One target value: untrusted as a whole, or, when the model composed it (it occurs whole in no output and no user
     * text), through an identifier inside it that is untrusted (trial14 provenance-decorated-target: "IBAN: DE89...").
     */
    private boolean untrustedTargetValue(String value, Seen seen, boolean fetch) {
        if (untrusted(value, seen) && !(fetch && inRecord(value, seen))) return true;
        String v = fold(value);
        if (v.isEmpty()) return false;
        for (String o : seen.outputs()) if (mentions(o, v)) return false;
        for (String u : seen.userTexts()) if (mentions(u, v)) return false;
        // a composed target past the documented bound (65,536 characters, 64 distinct identifiers) is not checked: untrusted
        List<String> all = dev.tracegate.matchers.predicate.Identifiers.distinct(value);
        if (all == null) return true;
        for (String id : all) {
            if (!fold(id).equals(v) && untrusted(id, seen) && !(fetch && inRecord(id, seen))) return true;
        }
        return false;
    }

    private static boolean inRecord(String value, Seen seen) {
        String v = fold(value);
        for (String r : seen.records()) if (containsWord(r, v)) return true;
        return false;
    }

    boolean untrusted(String value, Seen seen) {
        String v = fold(value);
        if (v.isEmpty()) return false;
        boolean fromTool = false;
        for (String o : seen.outputs()) if (mentions(o, v)) { fromTool = true; break; }
        if (!fromTool) return false;
        for (String u : seen.userTexts()) if (mentions(u, v)) return false;
        if (rules.namedOwner() && ownerNamed(v, seen.names())) return false;
        if (rules.endorse() != Endorse.NONE) {
            for (String u : seen.endorsed()) if (mentions(u, v)) return false;
        }
        if (!rules.wholeFields()) return true;
        String c = compactIban(v);
        for (String f : seen.fields()) if (f.equals(v) || (c != null && c.equals(compactIban(f)))) return false;
        return true;
    }

    private static final String IBAN = "[a-z]{2}[0-9]{2}[a-z0-9]{11,30}";
    /** What people put between an IBAN's groups of four. */
    private static final String IBAN_SEP = "[ \\t\u00A0-]+";

    /** An IBAN compact, or in groups of four with or without separators at each boundary, as its compact form; else null. */
    static String compactIban(String v) {
        if (!v.matches("[a-z0-9]{4}((" + IBAN_SEP + ")?[a-z0-9]{4})*((" + IBAN_SEP + ")?[a-z0-9]{1,4})?")) return null;
        String c = v.replaceAll(IBAN_SEP, "");
        return c.matches(IBAN) ? c : null;
    }

    /** {@link #containsWord} for {@code v}; for an IBAN, its groups with optional separators between them, as a pattern. */
    static boolean mentions(String text, String v) {
        String c = compactIban(v);
        if (c == null) return containsWord(text, v);
        StringBuilder re = new StringBuilder("(?<![\\p{L}\\p{Nd}])");
        for (int i = 0; i < c.length(); i += 4) {
            if (i > 0) re.append("(?:").append(IBAN_SEP).append(")?");
            re.append(java.util.regex.Pattern.quote(c.substring(i, Math.min(i + 4, c.length()))));
        }
        return java.util.regex.Pattern.compile(re.append("(?![\\p{L}\\p{Nd}])").toString()).matcher(text).find();
    }

    /** True when {@code v} is an e-mail address and a word of its local part (3+ letters) is a name the user wrote. */
    static boolean ownerNamed(String v, Set<String> names) {
        int at = v.indexOf('@');
        if (at <= 0) return false;
        for (String w : v.substring(0, at).split("[^\\p{L}]+")) {
            if (w.length() >= 3 && names.contains(w)) return true;
        }
        return false;
    }

    private static final java.util.regex.Pattern NAME_RUN =
            java.util.regex.Pattern.compile("(?<![\\p{L}])(?:\\p{Lu}\\p{L}+ )+\\p{Lu}\\p{L}+(?!\\p{L})");
    private static final java.util.regex.Pattern QUOTED = java.util.regex.Pattern.compile(
            "(?<![\\p{L}\\p{Nd}])(?:'([^'\\n]{1,64})'|\"([^\"\\n]{1,64})\"|`([^`\\n]{1,64})`|\u2018([^\u2019\\n]{1,64})\u2019|\u201c([^\u201d\\n]{1,64})\u201d|\u00ab([^\u00bb\\n]{1,64})\u00bb)(?![\\p{L}\\p{Nd}])");

    /** The names a user message wrote (docs/LIBRARY.md, named-owner), folded. */
    static void names(String text, Set<String> out) {
        java.util.Set<Integer> starts = new HashSet<>();
        java.util.regex.Matcher w = java.util.regex.Pattern.compile("\\p{L}+").matcher(text);
        boolean sentence = true;
        int last = 0;
        while (w.find()) {
            for (char c : text.substring(last, w.start()).toCharArray()) {
                if (".!?:\n\r\u3002\uff01\uff1f\uff1a".indexOf(c) >= 0) sentence = true;
                else if (Character.isDigit(c)) sentence = false;
            }
            if (!sentence && w.group().length() >= 2 && Character.isUpperCase(w.group().charAt(0))) {
                out.add(fold(w.group()));
                starts.add(w.start());
            }
            sentence = false;
            last = w.end();
        }
        java.util.regex.Matcher r = NAME_RUN.matcher(text);
        for (int from = 0; from < text.length() && r.find(from); ) {
            // a run of name words: every word must be a name (not at a sentence start)
            int s0 = r.start();
            java.util.regex.Matcher ws = java.util.regex.Pattern.compile("\\p{L}+").matcher(r.group());
            StringBuilder cur = new StringBuilder();
            while (ws.find()) {
                if (starts.contains(s0 + ws.start())) cur.append(cur.length() > 0 ? " " : "").append(ws.group());
                else { if (cur.indexOf(" ") >= 0) out.add(fold(cur.toString())); cur.setLength(0); }
            }
            if (cur.indexOf(" ") >= 0) out.add(fold(cur.toString()));
            from = r.end();
        }
        java.util.regex.Matcher q = QUOTED.matcher(text);
        for (int from = 0; from < text.length() && q.find(from); ) {
            for (int g = 1; g <= q.groupCount(); g++) if (q.group(g) != null) out.add(fold(q.group(g)));
            from = q.start() + 1;
        }
        out.remove("");
    }

    /** Lower case, a URL's scheme and a leading www. (when a dot follows in the host) dropped, trailing slashes cut. */
    static String fold(String s) {
        String t = s.replaceAll("\\p{Cf}", "").strip().toLowerCase(Locale.ROOT); // invisible format chars dropped
        t = t.replace("https://", "").replace("http://", "");
        t = t.replaceFirst("^www\\.(?=[^/\\p{javaWhitespace}]*\\.)", "");
        while (t.endsWith("/")) t = t.substring(0, t.length() - 1);
        return t;
    }

    /** True when {@code word} occurs in {@code text} not preceded or followed by a letter or digit. */
    static boolean containsWord(String text, String word) {
        for (int i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + 1)) {
            int end = i + word.length();
            boolean before = i == 0 || !Character.isLetterOrDigit(text.charAt(i - 1));
            boolean after = end == text.length() || !Character.isLetterOrDigit(text.charAt(end));
            if (before && after) return true;
        }
        return false;
    }

    /** Adds every scalar, list item and mapping key of a YAML (or JSON) output, folded; plain text adds itself. */
    static void fields(String result, Set<String> out, boolean labelledLines) {
        fields(result, parse(result), out, labelledLines);
    }

    /** The output read as YAML (JSON is YAML), or null when it is not; recent outputs are parsed once for all wrappers. */
    static JsonNode parse(String result) {
        synchronized (PARSED) {
            if (PARSED.containsKey(result)) return PARSED.get(result);
        }
        JsonNode n;
        try {
            n = YAML.readTree(result);
        } catch (IOException | RuntimeException e) {
            n = null;
        }
        synchronized (PARSED) {
            PARSED.put(result, n);
        }
        return n;
    }

    /** Parsed outputs, least recently used evicted: an evaluation replays each run under many wrappers in turn. */
    private static final Map<String, JsonNode> PARSED = new java.util.LinkedHashMap<>(512, 0.75f, true) {
        @Override protected boolean removeEldestEntry(Map.Entry<String, JsonNode> eldest) { return size() > 256; }
    };

    private static void fields(String result, JsonNode tree, Set<String> out, boolean labelledLines) {
        if (labelledLines) labelled(result, out); // also text that YAML reads differently (tabs, "---" lines)
        if (tree == null) add(result, out, labelledLines);
        else walk(tree, out, labelledLines);
    }

    private static void walk(JsonNode n, Set<String> out, boolean labelledLines) {
        if (n.isObject()) {
            for (Map.Entry<String, JsonNode> e : n.properties()) {
                out.add(fold(e.getKey()));
                walk(e.getValue(), out, labelledLines);
            }
        } else if (n.isArray()) {
            for (JsonNode x : n) walk(x, out, labelledLines);
        } else if (!n.isNull()) {
            add(n.asText(), out, labelledLines);
        }
    }

    /**
     * Adds the text of each record (YAML mapping) of an output that has a short field the user named: a name the user
     * wrote, or a field not only of letters and spaces that a user text holds as a whole word; or that a delegated output holds.
     */
    private static void records(JsonNode n, List<String> userTexts, Set<String> names, List<String> delegated, List<String> out) {
        if (n.isArray()) {
            for (JsonNode x : n) records(x, userTexts, names, delegated, out);
            return;
        }
        if (!n.isObject()) return;
        boolean named = false;
        StringBuilder text = new StringBuilder();
        for (Map.Entry<String, JsonNode> field : n.properties()) {
            JsonNode v = field.getValue();
            if (v.isContainerNode()) {
                records(v, userTexts, names, delegated, out);
                continue;
            }
            String t = fold(v.asText());
            text.append(t).append('\n');
            if (t.length() >= 3 && t.length() <= 64 && t.indexOf('\n') < 0) {
                if (names.contains(t)) named = true;
                if (!t.matches("[\\p{L} ]+")) for (String u : userTexts) if (containsWord(u, t)) { named = true; break; }
                for (String u : delegated) if (containsWord(u, t)) { named = true; break; }
            }
        }
        if (named) out.add(text.toString());
    }

    private static final java.util.regex.Pattern LABELLED =
            java.util.regex.Pattern.compile("(?m)^[ \\t]*[A-Za-z][A-Za-z0-9 _-]{0,30}:[ \\t]+(\\S[^\\n]*?)[ \\t]*$");

    private static void add(String scalar, Set<String> out, boolean labelledLines) {
        out.add(fold(scalar));
        if (labelledLines && scalar.indexOf('\n') >= 0) labelled(scalar, out);
    }

    private static void labelled(String text, Set<String> out) {
        java.util.regex.Matcher m = LABELLED.matcher(text);
        while (m.find()) out.add(fold(m.group(1)));
    }

    @Override public void writeRefs(Object[] refs, DataOutput out) throws IOException {
        throw new UnsupportedOperationException("the AgentDojo provenance wrapper is for offline replay; its context is not serialised");
    }
}
