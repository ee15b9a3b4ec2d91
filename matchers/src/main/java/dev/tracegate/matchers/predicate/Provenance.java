package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.ToolName;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;

/**
 * How a policy decides where a value came from: when a policy carries one, {@code untrusted_target}
 * and {@code untrusted(f)} read whole-word occurrences in the session's tool outputs and user
 * messages (case-insensitive, URLs without scheme, leading www. or trailing slash, IBANs compact or
 * in groups of four however separated) instead of identifier hashes,
 * with the trust refinements switched on here, and {@code user_matches} can also hold on the output
 * of a source the user handed the task to. Immutable; build it with {@link #builder()}.
 *
 * <p>A target value (each element of a list) is untrusted when it occurs in a tool output, the user
 * never wrote it, and no refinement trusts it. What a session has seen is kept in its state, bounded
 * by {@link #maxChars()} characters; past the bound the oldest texts are dropped and every value
 * counts as coming from a tool output (fail closed).
 */
public final class Provenance {
    /** Words with which a user hands the task to a document, page or message ({@link Builder#delegation}). */
    public static final String DELEGATION_WORDS =
            "(?i)\\b(follow|instructions?|to-?do|tasks|actions|specified|as (it|they|he|she) says?)\\b";
    /** Default bound on the characters of user messages and tool outputs one session keeps. */
    public static final int DEFAULT_MAX_CHARS = 1 << 20;

    /** Which tool outputs count as sources the user pointed at, so values in them are trusted like the user's words. */
    public enum Endorse {
        /** None. */
        NONE,
        /** Outputs of calls with an argument the user named in their own words. */
        DIRECT,
        /** Also outputs of calls with an argument that an endorsed output gave (transitively). */
        TRANSITIVE,
        /** One record (a YAML or JSON mapping) of an output, when one of its short fields is a value the user named. */
        RECORD
    }

    /** Created on first use: a mapper pulls ~280 databind classes into every agent start that may never read JSON here. */
    private static final class Json { static final ObjectMapper MAPPER = new ObjectMapper(); }
    /** Reads outputs as JSON only; a library loader that can read YAML passes its own reader. */
    public static final Function<String, JsonNode> JSON_OUTPUTS = s -> {
        try {
            return Json.MAPPER.readTree(s);
        } catch (Exception e) {
            return null;
        }
    };

    final boolean wholeFields;
    final boolean labelledLines;
    final boolean namedOwner;
    final Endorse endorse;
    final Map<String, List<String>> linkPayloads; // folded tool -> payload argument names
    final boolean delegation;
    final Set<String> fetchTools;                 // folded
    final int maxChars;
    final Function<String, JsonNode> outputs;

    private Provenance(Builder b) {
        this.wholeFields = b.wholeFields;
        this.labelledLines = b.labelledLines;
        this.namedOwner = b.namedOwner;
        this.endorse = b.endorse;
        Map<String, List<String>> m = new LinkedHashMap<>();
        b.linkPayloads.forEach((t, fs) -> m.put(t, List.copyOf(fs)));
        this.linkPayloads = Collections.unmodifiableMap(m);
        this.delegation = b.delegation;
        this.fetchTools = Collections.unmodifiableSet(new LinkedHashSet<>(b.fetchTools));
        this.maxChars = b.maxChars;
        this.outputs = b.outputs;
    }

    public static Builder builder() { return new Builder(); }

    /** A value that is a whole structured field of an output (scalar, list item, mapping key) is trusted. */
    public boolean wholeFields() { return wholeFields; }

    /** The value of a {@code Label: value} line of an output counts as a whole field. */
    public boolean labelledLines() { return labelledLines; }

    /** An e-mail address whose local part holds (as a word of 3+ letters) a name the user wrote is trusted. */
    public boolean namedOwner() { return namedOwner; }

    /** Which outputs are trusted like the user's words. */
    public Endorse endorse() { return endorse; }

    /** Folded tool -> payload arguments whose links and e-mail addresses are checked like targets. */
    public Map<String, List<String>> linkPayloads() { return linkPayloads; }

    /** The output of a source the user handed the task to counts as the user's request for {@code user_matches}. */
    public boolean delegation() { return delegation; }

    /** Folded names of tools that only fetch: they may open a link inside a record the user named. */
    public Set<String> fetchTools() { return fetchTools; }

    /** Bound on the characters a session keeps. */
    public int maxChars() { return maxChars; }

    /** This configuration with another reader for structured outputs. */
    public Provenance withOutputs(Function<String, JsonNode> reader) {
        Builder b = toBuilder();
        b.outputs = reader;
        return b.build();
    }

    /** A builder holding this configuration. */
    public Builder toBuilder() {
        Builder b = new Builder().wholeFields(wholeFields).labelledLines(labelledLines).namedOwner(namedOwner)
                .endorse(endorse).delegation(delegation).maxChars(maxChars).outputs(outputs);
        linkPayloads.forEach((t, fs) -> b.linkPayloads(t, fs.toArray(new String[0])));
        fetchTools.forEach(b::fetchTools);
        return b;
    }

    /**
     * This configuration merged with another (two libraries of one set): switches and lists are
     * joined; the endorsement of {@code o} wins when this one has none.
     */
    public Provenance merge(Provenance o) {
        Builder b = toBuilder();
        b.wholeFields |= o.wholeFields;
        b.labelledLines |= o.labelledLines;
        b.namedOwner |= o.namedOwner;
        b.delegation |= o.delegation;
        if (endorse == Endorse.NONE) b.endorse = o.endorse;
        o.linkPayloads.forEach((t, fs) -> b.linkPayloads(t, fs.toArray(new String[0])));
        o.fetchTools.forEach(b::fetchTools);
        b.maxChars = Math.min(maxChars, o.maxChars);
        if (outputs == JSON_OUTPUTS) b.outputs = o.outputs;
        return b.build();
    }

    @Override public String toString() {
        return "Provenance{wholeFields=" + wholeFields + ", labelledLines=" + labelledLines + ", namedOwner=" + namedOwner
                + ", endorse=" + endorse + ", linkPayloads=" + linkPayloads + ", delegation=" + delegation
                + ", fetchTools=" + fetchTools + ", maxChars=" + maxChars + "}";
    }

    /** Builds a {@link Provenance}; every refinement is off by default. */
    public static final class Builder {
        private boolean wholeFields, labelledLines, namedOwner, delegation;
        private Endorse endorse = Endorse.NONE;
        private final Map<String, List<String>> linkPayloads = new LinkedHashMap<>();
        private final Set<String> fetchTools = new LinkedHashSet<>();
        private int maxChars = DEFAULT_MAX_CHARS;
        private Function<String, JsonNode> outputs = JSON_OUTPUTS;

        private Builder() {}

        /** See {@link Provenance#wholeFields()}. */
        public Builder wholeFields(boolean on) { wholeFields = on; return this; }

        /** See {@link Provenance#labelledLines()}. */
        public Builder labelledLines(boolean on) { labelledLines = on; return this; }

        /** See {@link Provenance#namedOwner()}. */
        public Builder namedOwner(boolean on) { namedOwner = on; return this; }

        /** See {@link Provenance#endorse()}. */
        public Builder endorse(Endorse e) {
            if (e == null) throw new IllegalArgumentException("endorse must not be null; use Endorse.NONE");
            endorse = e;
            return this;
        }

        /** See {@link Provenance#delegation()}. */
        public Builder delegation(boolean on) { delegation = on; return this; }

        /** Adds payload arguments of an outbound-message tool whose links and e-mail addresses are checked like targets. */
        public Builder linkPayloads(String tool, String... fields) {
            List<String> l = linkPayloads.computeIfAbsent(requireTool(tool), k -> new ArrayList<>());
            for (String f : fields) {
                if (f == null || f.isBlank()) throw new IllegalArgumentException("payload argument name must not be empty");
                if (!l.contains(f)) l.add(f);
            }
            return this;
        }

        /** Adds tools that only fetch (outbound requests). */
        public Builder fetchTools(String... tools) {
            for (String t : tools) fetchTools.add(requireTool(t));
            return this;
        }

        /** Bound on the characters of user messages and tool outputs one session keeps (at least 1024). */
        public Builder maxChars(int chars) {
            if (chars < 1024) throw new IllegalArgumentException("provenance max-chars must be at least 1024, was " + chars);
            maxChars = chars;
            return this;
        }

        /** How structured outputs are read (a tree, or null when the output is plain text); default JSON. */
        public Builder outputs(Function<String, JsonNode> reader) {
            if (reader == null) throw new IllegalArgumentException("output reader must not be null");
            outputs = reader;
            return this;
        }

        public Provenance build() { return new Provenance(this); }

        private static String requireTool(String tool) {
            if (tool == null || tool.isBlank()) throw new IllegalArgumentException("tool name must not be empty");
            return ToolName.fold(tool);
        }
    }
}
