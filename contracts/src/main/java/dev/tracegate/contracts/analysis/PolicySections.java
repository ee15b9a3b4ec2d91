package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;

import java.util.ArrayList;
import java.util.List;

/**
 * Notes for the built-in {@code gdpr} and {@code injection} libraries loaded without the policy section
 * ({@code gdpr:} / {@code injection:}) of one of the user's libraries, which they read: legal, but then
 * they act on almost nothing, so {@code check} and the agent's start say so.
 */
public final class PolicySections {
    private PolicySections() {}

    /** The note for the built-in gdpr library without a {@code gdpr:} section. */
    static final String GDPR = "the built-in library gdpr reads the gdpr: section of one of your libraries, and none of the"
            + " loaded libraries has one, so P1 consent, P2 purpose limitation and P3 minimisation have nothing to check"
            + " (only P4 erasure acts). Add a gdpr: section to one of your libraries with purposes (purpose -> data"
            + " categories), tools (tool -> purposes), consent-purposes and subject-fields; see docs/LIBRARY.md,"
            + " \"The GDPR section and the gdpr library\"";

    /** The note for the built-in injection library without an {@code injection:} section. */
    static final String INJECTION = "the built-in library injection reads the injection: section of one of your libraries,"
            + " and none of the loaded libraries has one, so no tool is side-effecting and injection.untrusted-target never"
            + " acts. Add an injection: section to one of your libraries with side-effecting (tool -> its target arguments,"
            + " e.g. send_money: [recipient]); see docs/LIBRARY.md, \"A complete example\" (the injection: block) and"
            + " \"Provenance (injection.provenance)\"";

    /**
     * One note per built-in library among {@code specs} whose section no spec carries (none: empty); {@code check}
     * and the agent's start pass the specs of the libraries they loaded ({@code Library#specs()}).
     */
    public static List<String> notes(List<LibrarySpec> specs) {
        boolean gdpr = false;
        boolean injection = false;
        boolean gdprSection = false;
        boolean injectionSection = false;
        for (LibrarySpec s : specs) {
            gdpr |= s.file().equals("builtin:gdpr");
            injection |= s.file().equals("builtin:injection");
            gdprSection |= s.gdpr() != null;
            injectionSection |= s.injection() != null;
        }
        return notes(gdpr && !gdprSection, injection && !injectionSection);
    }

    /**
     * One note per data category that a {@code gdpr.purposes} entry names, that is no built-in category and that no
     * {@code gdpr.fields} map assigns to a field (usually a typo: {@code marketing: [emial]} loads as a category of the
     * library's own, which no built-in detector finds, so every e-mail in a marketing call is excess data), with the
     * nearest built-in name when one is close.
     */
    public static List<String> categoryNotes(List<LibrarySpec> specs) {
        java.util.Set<String> builtin = new java.util.LinkedHashSet<>();
        for (dev.tracegate.matchers.pii.DataCategory c : dev.tracegate.matchers.pii.DataCategory.values()) builtin.add(c.key());
        java.util.Set<String> mapped = new java.util.HashSet<>();
        for (LibrarySpec s : specs) {
            if (s.gdpr() == null) continue;
            for (java.util.Map<String, String> m : s.gdpr().fields().values()) mapped.addAll(m.values());
        }
        List<String> out = new ArrayList<>();
        java.util.Set<String> said = new java.util.HashSet<>();
        for (LibrarySpec s : specs) {
            if (s.gdpr() == null) continue;
            for (java.util.Map.Entry<String, List<String>> p : s.gdpr().purposes().entrySet()) {
                for (String c : p.getValue()) {
                    String key = c.toLowerCase(java.util.Locale.ROOT);
                    if (builtin.contains(key) || mapped.contains(c) || !said.add(s.file() + " " + c)) continue;
                    String near = null;
                    int best = 3;   // at most two edits away
                    for (String b : builtin) {
                        int d = dev.tracegate.contracts.library.Spelling.distance(key, b);
                        if (d < best) {
                            best = d;
                            near = b;
                        }
                    }
                    out.add(s.file() + ": gdpr.purposes." + p.getKey() + " names category '" + c + "', which is no built-in category ("
                            + String.join(", ", builtin) + ") and which no gdpr.fields map gives a field, so it is a category of the"
                            + " library's own that only an event's declared categories can carry; a call of a tool for purpose '"
                            + p.getKey() + "' whose arguments hold a built-in category is excess data (P3)"
                            + (near != null ? ". Did you mean '" + near + "'?" : ""));
                }
            }
        }
        return out;
    }

    /** Atoms that read a library's {@code gdpr:} section. */
    private static final java.util.Set<String> GDPR_ATOMS = java.util.Set.of("consent", "erasure", "excess_data", "purpose", "consented",
            "undeclared_purpose", "mentions_erased");
    /** Atoms that read a library's {@code injection:} section. */
    private static final java.util.Set<String> INJECTION_ATOMS = java.util.Set.of("untrusted", "untrusted_target", "side_effect", "named_link");

    /**
     * The converse of {@link #notes(List)}: a {@code gdpr:} or {@code injection:} section that no loaded contract reads,
     * because the built-in library that reads it is not loaded (and no contract of the user's reads it either): the
     * policy is written but nothing enforces it (trial5: an injection: section without the injection library let every
     * injected payment through, silently).
     */
    public static List<String> unread(Library lib) {
        String gdprFile = null;
        String injectionFile = null;
        for (LibrarySpec s : lib.specs()) {
            if (s.gdpr() != null && gdprFile == null) gdprFile = s.file();
            if (s.injection() != null && injectionFile == null) injectionFile = s.file();
        }
        if (gdprFile == null && injectionFile == null) return List.of();
        boolean gdprRead = false;
        boolean injectionRead = false;
        for (dev.tracegate.engine.ltl.Atom a : lib.contracts().atoms()) {
            gdprRead |= GDPR_ATOMS.contains(a.name());
            injectionRead |= INJECTION_ATOMS.contains(a.name());
        }
        List<String> notes = new ArrayList<>();
        if (gdprFile != null && !gdprRead) {
            notes.add("the gdpr: section of " + gdprFile + " is read by the built-in library gdpr, which is not loaded (and no loaded"
                    + " contract reads it), so nothing enforces consent, purposes, minimisation or erasure; add gdpr to the"
                    + " libraries (libraries: [gdpr, " + gdprFile + "]); see docs/LIBRARY.md, \"The GDPR section and the gdpr library\"");
        }
        if (injectionFile != null && !injectionRead) {
            notes.add("the injection: section of " + injectionFile + " is read by the built-in library injection, which is not loaded (and no"
                    + " loaded contract reads it), so no side-effecting call is checked for untrusted targets; add injection to the"
                    + " libraries (libraries: [injection, " + injectionFile + "]); see docs/LIBRARY.md, \"A complete example\"");
        }
        return notes;
    }

    private static List<String> notes(boolean gdpr, boolean injection) {
        List<String> notes = new ArrayList<>();
        if (gdpr) notes.add(GDPR);
        if (injection) notes.add(INJECTION);
        return notes;
    }
}
