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
import java.util.Iterator;
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
 * output. Occurrence and naming are whole-word and case-insensitive, URLs without their scheme.
 */
public final class Provenance implements Grounder<Event> {

    /**
     * Which refinements are on.
     *
     * @param wholeFields a value that is a whole structured field of a tool output (YAML scalar,
     *                    list item or mapping key) is trusted; only values inside free text are not
     * @param endorsed    the output of a call with an argument the user named (or that an endorsed
     *                    output gave) is endorsed: the user pointed at that source, so values in it
     *                    are trusted like the user's own words
     */
    public record Rules(boolean wholeFields, boolean endorsed) {}

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    private final Grounder<Event> inner;
    private final Rules rules;
    private final int slot;
    private final int[] atoms;
    private final Map<String, List<String>> targets = new HashMap<>();

    /** Wraps {@code lib}'s grounding. */
    public Provenance(Library lib, Rules rules) {
        this.inner = lib.grounding();
        this.rules = rules;
        this.slot = inner.refs();
        List<Integer> idx = new ArrayList<>();
        List<Atom> all = lib.grounding().atoms();
        for (int g = 0; g < all.size(); g++) if (all.get(g).name().equals("untrusted_target")) idx.add(g);
        this.atoms = idx.stream().mapToInt(Integer::intValue).toArray();
        for (LibrarySpec s : lib.specs()) {
            if (s.injection() == null) continue;
            s.injection().sideEffecting().forEach((t, fs) -> targets.computeIfAbsent(ToolName.fold(t), k -> new ArrayList<>()).addAll(fs));
        }
    }

    /** What the session has seen: the user's texts, and the tool outputs as free text and as whole fields. */
    private record Seen(List<String> userTexts, List<String> outputs, Set<String> fields, List<String> endorsed,
                        Map<String, Boolean> pending) {
        static final Seen EMPTY = new Seen(List.of(), List.of(), Set.of(), List.of(), Map.of());
    }

    @Override public int words() { return inner.words(); }

    @Override public int refs() { return slot + 1; }

    @Override public void init(SessionState state) {
        inner.init(state);
        state.refs[slot] = Seen.EMPTY;
    }

    @Override public int ground(Event event, SessionState state, long[] valuation, long[] unevaluable) {
        int u = inner.ground(event, state, valuation, unevaluable);
        if (atoms.length == 0) return u;
        int value = untrustedTarget(event, (Seen) state.refs[slot]);
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
            st.refs[slot] = new Seen(List.copyOf(u), s.outputs(), s.fields(), s.endorsed(), s.pending());
        } else if (e.kind() == EventKind.CALL && rules.endorsed()) {
            Map<String, Boolean> p = new HashMap<>(s.pending());
            p.put(String.valueOf(e.callId()), endorses(e, s));
            st.refs[slot] = new Seen(s.userTexts(), s.outputs(), s.fields(), s.endorsed(), Map.copyOf(p));
        } else if (e.kind() == EventKind.RETURN && e.result() != null && !e.error()) {
            List<String> o = new ArrayList<>(s.outputs());
            o.add(fold(e.result()));
            Set<String> f = new HashSet<>(s.fields());
            fields(e.result(), f);
            List<String> en = s.endorsed();
            if (Boolean.TRUE.equals(s.pending().get(String.valueOf(e.callId())))) {
                List<String> x = new ArrayList<>(en);
                x.add(fold(e.result()));
                en = List.copyOf(x);
            }
            st.refs[slot] = new Seen(s.userTexts(), List.copyOf(o), Set.copyOf(f), en, s.pending());
        }
    }

    /** True when some argument of the call names a value the user named, or one an endorsed output gave. */
    private boolean endorses(Event e, Seen s) {
        Args a = e.args();
        for (int i = 0; i < a.leafCount(); i++) {
            String v = fold(a.leafValue(i).asText());
            if (v.length() < 3) continue;
            if (named(v, s)) return true;
        }
        return false;
    }

    private static boolean named(String v, Seen s) {
        for (String u : s.userTexts()) if (containsWord(u, v)) return true;
        for (String u : s.endorsed()) if (containsWord(u, v)) return true;
        return false;
    }

    /** 1 when a target of this side-effecting call is untrusted, 0 otherwise. */
    int untrustedTarget(Event e, Seen seen) {
        if (e.kind() != EventKind.CALL) return 0;
        List<String> fs = targets.get(ToolName.fold(e.tool()));
        if (fs == null && e.toolBare() != null) fs = targets.get(ToolName.fold(e.toolBare()));
        if (fs == null) return 0;
        for (String f : fs) {
            JsonNode v = e.args().get(Args.Path.field(f));
            if (v == null || v.isNull()) continue;
            if (v.isArray()) {
                for (JsonNode x : v) if (untrusted(x.asText(), seen)) return 1;
            } else if (untrusted(v.asText(), seen)) {
                return 1;
            }
        }
        return 0;
    }

    boolean untrusted(String value, Seen seen) {
        String v = fold(value);
        if (v.isEmpty()) return false;
        boolean fromTool = false;
        for (String o : seen.outputs()) if (containsWord(o, v)) { fromTool = true; break; }
        if (!fromTool) return false;
        for (String u : seen.userTexts()) if (containsWord(u, v)) return false;
        if (rules.endorsed()) for (String u : seen.endorsed()) if (containsWord(u, v)) return false;
        return !(rules.wholeFields() && seen.fields().contains(v));
    }

    /** Lower case, a URL's scheme dropped and trailing slashes cut (so {@code http://a.com/} is {@code a.com}). */
    static String fold(String s) {
        String t = s.strip().toLowerCase(Locale.ROOT);
        t = t.replace("https://", "").replace("http://", "");
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
    static void fields(String result, Set<String> out) {
        JsonNode n;
        try {
            n = YAML.readTree(result);
        } catch (IOException | RuntimeException e) {
            out.add(fold(result));
            return;
        }
        if (n == null) return;
        walk(n, out);
    }

    private static void walk(JsonNode n, Set<String> out) {
        if (n.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                Map.Entry<String, JsonNode> e = it.next();
                out.add(fold(e.getKey()));
                walk(e.getValue(), out);
            }
        } else if (n.isArray()) {
            for (JsonNode x : n) walk(x, out);
        } else if (!n.isNull()) {
            out.add(fold(n.asText()));
        }
    }

    @Override public void writeRefs(Object[] refs, DataOutput out) throws IOException {
        throw new UnsupportedOperationException("the AgentDojo provenance wrapper is for offline replay; its context is not serialised");
    }
}
