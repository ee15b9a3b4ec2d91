package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.ToolName;
import dev.tracegate.matchers.pii.DataCategory;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * What a contract library says about its world beyond the formulas: context latches, the GDPR
 * section (purposes, tool to purpose bindings, the categories each purpose needs, per-tool field to
 * category maps, tools that record consent or erasure), side-effecting tools and their target
 * arguments, permissions held from the start, and whether unevaluable atoms refuse. Built in code
 * with {@link #builder()}; immutable.
 */
public final class Policy {
    /** A policy with nothing declared (unevaluable atoms refuse). */
    public static final Policy EMPTY = builder().build();

    final List<Latch> latches;
    final Map<String, Set<String>> necessary;          // purpose -> category keys
    final Map<String, Set<String>> toolPurposes;       // folded tool -> purposes
    final Map<String, Map<Args.Path, String>> toolFieldCategories; // folded tool -> path -> category key
    final Map<String, ConsentTool> consentTools;       // folded tool -> fields
    final Map<String, Args.Path> erasureTools;         // folded tool -> subject field
    final Map<String, List<Args.Path>> sideEffects;    // folded tool -> target fields
    final Set<String> permissions;
    final Set<String> consentPurposes;                 // empty: every purpose needs consent (unless noConsent)
    final boolean noConsent;                           // no purpose rests on consent
    final List<Args.Path> subjectFields;               // arguments that name the data subject
    final boolean refuseUnevaluable;
    final int setCapacity;
    final Provenance provenance;                       // null: identifier-hash provenance
    final SubjectScope subjectScope;
    final int registerCapacity;

    /** Where the data subjects' consents and erasures are kept, and so which sessions they count in. */
    public enum SubjectScope {
        /** In the runtime's {@link SubjectRegister}: a consent or an erasure in any session counts in every session from then on. */
        GLOBAL,
        /** In the session: a consent or an erasure counts only in the conversation it was given in, until that session ends. */
        SESSION
    }

    /**
     * A consent tool: the subject's argument; the purposes' argument, or (purposes null) the purposes every call records;
     * the granted argument, or (granted null) grantedConstant: TRUE, FALSE (every call withdraws) or null (every call grants).
     */
    record ConsentTool(Args.Path subject, Args.Path purposes, Args.Path granted, String[] purposeNames, Boolean grantedConstant) {}

    private Policy(Builder b) {
        this.latches = List.copyOf(b.latches);
        this.necessary = freeze(b.necessary);
        this.toolPurposes = freeze(b.toolPurposes);
        Map<String, Map<Args.Path, String>> tfc = new LinkedHashMap<>();
        b.toolFieldCategories.forEach((k, v) -> tfc.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        this.toolFieldCategories = Collections.unmodifiableMap(tfc);
        this.consentTools = Collections.unmodifiableMap(new LinkedHashMap<>(b.consentTools));
        this.erasureTools = Collections.unmodifiableMap(new LinkedHashMap<>(b.erasureTools));
        Map<String, List<Args.Path>> se = new LinkedHashMap<>();
        b.sideEffects.forEach((k, v) -> se.put(k, List.copyOf(v)));
        this.sideEffects = Collections.unmodifiableMap(se);
        this.permissions = Collections.unmodifiableSet(new LinkedHashSet<>(b.permissions));
        this.consentPurposes = Collections.unmodifiableSet(new LinkedHashSet<>(b.consentPurposes));
        this.noConsent = b.noConsent;
        Set<Args.Path> subjects = new LinkedHashSet<>(b.subjectFields);
        b.consentTools.values().forEach(ct -> subjects.add(ct.subject()));
        subjects.addAll(b.erasureTools.values());
        this.subjectFields = List.copyOf(subjects);
        this.refuseUnevaluable = b.refuseUnevaluable;
        this.setCapacity = b.setCapacity;
        this.provenance = b.provenance;
        this.subjectScope = b.subjectScope;
        this.registerCapacity = b.registerCapacity;
    }

    private static Map<String, Set<String>> freeze(Map<String, Set<String>> m) {
        Map<String, Set<String>> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, Collections.unmodifiableSet(new LinkedHashSet<>(v))));
        return Collections.unmodifiableMap(out);
    }

    public static Builder builder() { return new Builder(); }

    /** True when an event whose atoms cannot all be evaluated is refused (the default: fail closed). */
    public boolean refuseUnevaluable() { return refuseUnevaluable; }

    /** Declared latches in order. */
    public List<Latch> latches() { return latches; }

    /** Declared purposes (with their necessary categories), lower-cased. */
    public Set<String> purposes() { return necessary.keySet(); }

    /** Categories that {@code purpose} needs (lower-cased keys); empty when undeclared. */
    public Set<String> necessaryCategories(String purpose) {
        Set<String> s = necessary.get(norm(purpose));
        return s == null ? Set.of() : s;
    }

    /** Purposes a tool serves (from the bindings), for a tool name as events carry it. */
    public Set<String> purposesOf(String tool) {
        String k = ToolName.fold(tool);
        Set<String> s = toolPurposes.get(k);
        if (s == null) s = toolPurposes.get(ToolName.bare(k));
        return s == null ? Set.of() : s;
    }

    /** Whether a tool, named as events carry it, is declared under {@code erasure-tools}. */
    public boolean isErasureTool(String tool) {
        String k = ToolName.fold(tool);
        return erasureTools.containsKey(k) || erasureTools.containsKey(ToolName.bare(k));
    }

    /** Permissions every session holds from its start. */
    public Set<String> permissions() { return permissions; }

    /**
     * How {@code untrusted_target}, {@code untrusted(f)} and {@code user_matches} read where values
     * came from, or null for the default (identifiers a tool output introduced and the user did not name).
     */
    public Provenance provenance() { return provenance; }

    /** Side-effecting tools (folded) and their target arguments. */
    public Map<String, List<String>> sideEffecting() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        sideEffects.forEach((t, ps) -> out.put(t, ps.stream().map(Args.Path::toString).toList()));
        return Collections.unmodifiableMap(out);
    }

    /**
     * Whether processing for {@code purpose} needs the data subject's consent: every purpose does,
     * unless the policy lists the consent-based ones ({@link Builder#consentPurposes}) or says that none is
     * ({@link Builder#noConsentPurposes}); the others rest on another lawful basis (a contract, a legal obligation).
     */
    public boolean requiresConsent(String purpose) {
        return !noConsent && (consentPurposes.isEmpty() || consentPurposes.contains(norm(purpose)));
    }

    /** {@link #requiresConsent} for a purpose already trimmed and lower-cased, as the grounding holds them (no re-folding per event). */
    boolean requiresConsentFolded(String purpose) {
        return !noConsent && (consentPurposes.isEmpty() || consentPurposes.contains(purpose));
    }

    /** Where consents and erasures of data subjects are kept ({@link SubjectScope#GLOBAL} unless the policy says otherwise). */
    public SubjectScope subjectScope() { return subjectScope; }

    /** The bound on erased subjects and on consents of the runtime's {@link SubjectRegister}. */
    public int registerCapacity() { return registerCapacity; }

    /** Arguments that name an event's data subject when the event does not carry one (consent and erasure tools' subject fields, and declared ones). */
    public List<Args.Path> subjectFields() { return subjectFields; }

    static String norm(String s) { return s == null ? null : s.trim().toLowerCase(Locale.ROOT); }

    /** Normalises a category name: built-in aliases ({@code card}, {@code dob}) map to their key. */
    static String categoryKey(String s) {
        DataCategory c = DataCategory.parse(s);
        return c != null ? c.key() : norm(s);
    }

    /** Builds a {@link Policy}; every method returns this builder. */
    public static final class Builder {
        private final List<Latch> latches = new ArrayList<>();
        private final Map<String, Set<String>> necessary = new LinkedHashMap<>();
        private final Map<String, Set<String>> toolPurposes = new LinkedHashMap<>();
        private final Map<String, Map<Args.Path, String>> toolFieldCategories = new LinkedHashMap<>();
        private final Map<String, ConsentTool> consentTools = new LinkedHashMap<>();
        private final Map<String, Args.Path> erasureTools = new LinkedHashMap<>();
        private final Map<String, List<Args.Path>> sideEffects = new LinkedHashMap<>();
        private final Set<String> permissions = new LinkedHashSet<>();
        private final Set<String> consentPurposes = new LinkedHashSet<>();
        private boolean noConsent;
        private final List<Args.Path> subjectFields = new ArrayList<>();
        private boolean refuseUnevaluable = true;
        private int setCapacity = ValueSet.DEFAULT_CAPACITY;
        private Provenance provenance;
        private SubjectScope subjectScope = SubjectScope.GLOBAL;
        private int registerCapacity = SubjectRegister.DEFAULT_CAPACITY;

        private Builder() {}

        /**
         * Decides provenance with whole-word occurrence and the refinements of {@code p}; given twice
         * (two libraries), the two are merged ({@link Provenance#merge}).
         */
        public Builder provenance(Provenance p) {
            if (p == null) throw new IllegalArgumentException("provenance must not be null");
            this.provenance = provenance == null ? p : provenance.merge(p);
            return this;
        }

        /** Adds a context latch; throws IllegalArgumentException when it names no key or no value. */
        public Builder latch(Latch latch) {
            latch.validate();
            latches.add(latch);
            return this;
        }

        /** Declares a purpose and the data categories it needs (names as in {@link DataCategory#key()} or custom). */
        public Builder purpose(String purpose, String... necessaryCategories) {
            Set<String> s = necessary.computeIfAbsent(requireName(purpose, "purpose"), k -> new LinkedHashSet<>());
            for (String c : necessaryCategories) s.add(categoryKey(requireName(c, "category")));
            return this;
        }

        /** Binds a tool to the purposes its calls serve (added to the event's own purposes). */
        public Builder toolPurposes(String tool, String... purposes) {
            Set<String> s = toolPurposes.computeIfAbsent(requireTool(tool), k -> new LinkedHashSet<>());
            for (String p : purposes) s.add(requireName(p, "purpose"));
            return this;
        }

        /** Says that argument {@code field} of {@code tool} holds data of {@code category}. */
        public Builder fieldCategory(String tool, String field, String category) {
            toolFieldCategories.computeIfAbsent(requireTool(tool), k -> new LinkedHashMap<>())
                    .put(Args.Path.of(field), categoryKey(requireName(category, "category")));
            return this;
        }

        /**
         * Says that a call of {@code tool} records consent: the subject is in argument
         * {@code subjectField}, the purposes (a string or an array) in {@code purposeField}, and, if
         * {@code grantedField} is not null, a boolean there says grant (true, the default) or withdraw.
         * A withdrawal counts at the accepted CALL; a grant at that call's successful RETURN (a RETURN
         * with an error records nothing).
         */
        public Builder consentTool(String tool, String subjectField, String purposeField, String grantedField) {
            return consentTool(tool, subjectField, purposeField, null, grantedField, null);
        }

        /**
         * {@link #consentTool(String, String, String, String)} with fixed values: {@code purposes} (when not null, instead of
         * {@code purposeField}) are the purposes every call records, and {@code granted} (when not null, instead of
         * {@code grantedField}) says that every call grants (true) or withdraws (false).
         */
        public Builder consentTool(String tool, String subjectField, String purposeField, java.util.List<String> purposes,
                                   String grantedField, Boolean granted) {
            if ((purposeField == null) == (purposes == null)) {
                throw new IllegalArgumentException("consent tool " + tool + ": give either the purposes' argument or the purposes");
            }
            if (grantedField != null && granted != null) {
                throw new IllegalArgumentException("consent tool " + tool + ": give either the granted argument or a fixed granted");
            }
            String[] names = null;
            if (purposes != null) {
                if (purposes.isEmpty()) throw new IllegalArgumentException("consent tool " + tool + ": no purposes");
                names = purposes.stream().map(p -> requireName(p, "purpose")).toArray(String[]::new);
            }
            consentTools.put(requireTool(tool), new ConsentTool(Args.Path.of(subjectField),
                    purposeField == null ? null : Args.Path.of(purposeField),
                    grantedField == null ? null : Args.Path.of(grantedField), names, granted));
            return this;
        }

        /** Says that an accepted CALL of {@code tool} is an erasure request for the subject in {@code subjectField}. */
        public Builder erasureTool(String tool, String subjectField) {
            erasureTools.put(requireTool(tool), Args.Path.of(subjectField));
            return this;
        }

        /** Declares a side-effecting tool and the arguments that name its target (recipient, URL, account). */
        public Builder sideEffecting(String tool, String... targetFields) {
            List<Args.Path> l = sideEffects.computeIfAbsent(requireTool(tool), k -> new ArrayList<>());
            for (String f : targetFields) l.add(Args.Path.of(f));
            return this;
        }

        /** Permissions every session holds from its start. */
        public Builder grant(String... permissions) {
            for (String p : permissions) this.permissions.add(requireName(p, "permission"));
            return this;
        }

        /** Says that no purpose rests on consent (every purpose has another lawful basis); consent is then never required. */
        public Builder noConsentPurposes() {
            noConsent = true;
            return this;
        }

        /** Lists the purposes that rest on consent; once any is listed, the other purposes need none. */
        public Builder consentPurposes(String... purposes) {
            for (String p : purposes) consentPurposes.add(requireName(p, "purpose"));
            return this;
        }

        /** Declares an argument that names the data subject of the calls that carry it (besides consent and erasure tools' subject fields). */
        public Builder subjectField(String field) {
            subjectFields.add(Args.Path.of(field));
            return this;
        }

        /** Whether an event with unevaluable atoms is refused (default true). */
        public Builder refuseUnevaluable(boolean refuse) {
            this.refuseUnevaluable = refuse;
            return this;
        }

        /** Bound on each context set (erased subjects, consents, introduced values...); default 4096. */
        public Builder setCapacity(int capacity) {
            if (capacity < 1) throw new IllegalArgumentException("set capacity must be at least 1, was " + capacity);
            this.setCapacity = capacity;
            return this;
        }

        /** Where consents and erasures of data subjects are kept (default {@link SubjectScope#GLOBAL}). */
        public Builder subjectScope(SubjectScope scope) {
            if (scope == null) throw new IllegalArgumentException("subject scope must not be null");
            this.subjectScope = scope;
            return this;
        }

        /** Bound on the erased subjects and on the consents of the runtime's {@link SubjectRegister}; default 65536. */
        public Builder registerCapacity(int capacity) {
            if (capacity < 1) throw new IllegalArgumentException("register capacity must be at least 1, was " + capacity);
            this.registerCapacity = capacity;
            return this;
        }

        public Policy build() { return new Policy(this); }

        private static String requireName(String s, String what) {
            if (s == null || s.isBlank()) throw new IllegalArgumentException(what + " name must not be empty");
            return norm(s);
        }

        private static String requireTool(String tool) {
            if (tool == null || tool.isBlank()) throw new IllegalArgumentException("tool name must not be empty");
            return ToolName.fold(tool);
        }
    }
}
