package dev.tracegate.contracts.analysis;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibraryException;
import dev.tracegate.contracts.library.LibrarySpec;

import java.nio.file.Path;
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

    /** One note per built-in library among {@code specs} whose section no spec carries (none: empty). */
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
     * The notes for libraries named as in a configuration ({@code gdpr}, {@code builtin:gdpr}, file paths read from
     * {@code base}), for the agent's start: reads the other libraries only when the built-in gdpr or injection is
     * among them (and never the plain built-ins, which carry neither section), and says nothing when one does not
     * load (loading them reports that).
     */
    public static List<String> notes(List<String> sources, Path base) {
        boolean gdpr = false;
        boolean injection = false;
        for (String s : sources) {
            String name = s.startsWith("builtin:") ? s.substring("builtin:".length()) : s;
            gdpr |= name.equals("gdpr");
            injection |= name.equals("injection");
        }
        if (!gdpr && !injection) return List.of();
        boolean gdprSection = false;
        boolean injectionSection = false;
        try {
            for (String s : sources) {
                if (Library.BUILTINS.contains(s.startsWith("builtin:") ? s.substring("builtin:".length()) : s)) continue;
                LibrarySpec spec = Library.read(s, base);
                gdprSection |= spec.gdpr() != null;
                injectionSection |= spec.injection() != null;
            }
        } catch (LibraryException | IllegalArgumentException unreadable) {
            return List.of();
        }
        return notes(gdpr && !gdprSection, injection && !injectionSection);
    }

    private static List<String> notes(boolean gdpr, boolean injection) {
        List<String> notes = new ArrayList<>();
        if (gdpr) notes.add(GDPR);
        if (injection) notes.add(INJECTION);
        return notes;
    }
}
