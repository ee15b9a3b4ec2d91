package dev.tracegate.contracts.library;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;

import java.util.List;
import java.util.Map;

/**
 * A contract library as read from its file, checked for structure and with every formula parsed
 * and its named atoms expanded; not yet compiled.
 *
 * @param name        library name ({@code library:})
 * @param description what it is for
 * @param file        where it came from (a path, or {@code builtin:<name>})
 * @param settings    library settings
 * @param contracts   contracts in file order
 * @param latches     context latches
 * @param gdpr        the GDPR policy section, or null
 * @param injection   the prompt-injection section, or null
 * @param permissions permissions every session holds from the start
 * @param atomPositions where each atom first occurs in the file (for errors found when compiling)
 * @param namedAtoms  the names under {@code atoms:} (already expanded in the formulas; kept for did-you-mean)
 */
public record LibrarySpec(String name, String description, String file, Settings settings, List<ContractSpec> contracts,
                          List<LatchSpec> latches, GdprSpec gdpr, InjectionSpec injection, List<String> permissions,
                          Map<Atom, Position> atomPositions, java.util.Set<String> namedAtoms) {

    /** A spec without named atoms. */
    public LibrarySpec(String name, String description, String file, Settings settings, List<ContractSpec> contracts,
                       List<LatchSpec> latches, GdprSpec gdpr, InjectionSpec injection, List<String> permissions,
                       Map<Atom, Position> atomPositions) {
        this(name, description, file, settings, contracts, latches, gdpr, injection, permissions, atomPositions, java.util.Set.of());
    }

    /** Where something is in a library file. */
    public record Position(String file, int line, int column) {}

    /** {@code settings:}: what to do with unevaluable atoms, and the automaton state bound. */
    public record Settings(boolean refuseUnevaluable, int maxStates) {
        public static final Settings DEFAULT = new Settings(true, 10_000);
    }

    /**
     * One contract.
     *
     * @param strategy   block | redirect | escalate | redact | suppress
     * @param next       the suggested next action, told to the agent with the message
     * @param redirectTo for strategy redirect: the tool to run instead
     */
    public record ContractSpec(String id, String description, Formula assume, Formula guarantee, String strategy,
                               String message, String next, String redirectTo, String assumeText, String guaranteeText,
                               int line, int column) {}

    /**
     * A context latch: when an event of {@code kind} (and {@code tool}, if given; successful only,
     * unless {@code success} is false) is applied, {@code key} takes {@code value} (mode set),
     * {@code value} is added to the set {@code key} (mode add), or {@code key} is cleared (mode clear).
     *
     * @param value an argument reference {@code arg(field)}, {@code result(field)}, {@code result},
     *              {@code subject}, {@code purpose} or a literal
     */
    public record LatchSpec(String kind, String tool, boolean success, String key, String value, String mode,
                            int line, int column) {}

    /**
     * The GDPR section.
     *
     * @param purposes      declared purpose -> the data categories that purpose needs
     * @param tools         tool -> the purposes its calls serve
     * @param fields        tool -> (argument field -> category), on top of detection
     * @param consentTools  tool whose call records consent -> (subject field, purposes field or null, granted field or null,
     *                      the purposes every call records joined by commas or null, "true" / "false" for every call or null);
     *                      exactly one of the purposes field and the listed purposes is set
     * @param erasureTools  tool whose call requests erasure -> subject field
     * @param consentPurposes the purposes that rest on consent (empty: all of them, unless {@code noConsentPurposes})
     * @param subjectFields argument names that name the data subject of a call
     * @param noConsentPurposes {@code consent-purposes: none}: no purpose rests on consent
     * @param scope         {@code global} or {@code session}: where consents and erasures of data subjects count; null when not said (global)
     * @param registerCapacity the bound on erased subjects and on consents of the runtime's register; 0 when not said
     */
    public record GdprSpec(Map<String, List<String>> purposes, Map<String, List<String>> tools,
                           Map<String, Map<String, String>> fields, Map<String, List<String>> consentTools,
                           Map<String, String> erasureTools, List<String> consentPurposes, List<String> subjectFields,
                           boolean noConsentPurposes, String scope, int registerCapacity) {}

    /**
     * The prompt-injection section.
     *
     * @param sideEffecting tool -> its target arguments (recipient, IBAN, URL, ...)
     * @param provenance    how untrusted values are recognised ({@code provenance:}), or null for the
     *                      default (identifiers a tool output introduced and the user did not name)
     */
    public record InjectionSpec(Map<String, List<String>> sideEffecting, ProvenanceSpec provenance) {
        /** A section without {@code provenance:}. */
        public InjectionSpec(Map<String, List<String>> sideEffecting) { this(sideEffecting, null); }
    }

    /**
     * The {@code injection.provenance:} section: whole-word provenance and its trust refinements
     * (see {@link dev.tracegate.matchers.predicate.Provenance}).
     *
     * @param wholeFields   a whole structured field of an output (scalar, list item, key) is trusted
     * @param labelledLines the value of a {@code Label: value} line counts as a whole field
     * @param namedOwner    an e-mail address whose local part holds a name the user wrote is trusted
     * @param endorse       none, direct, transitive or record: outputs trusted like the user's words
     * @param delegation    the output of a source the user handed the task to counts as the request
     * @param fetchTools    tools that only fetch: may open a link inside a record the user named
     * @param linkPayloads  tool -> payload arguments whose links and e-mail addresses are checked like targets
     * @param maxChars      bound on the characters one session keeps
     */
    public record ProvenanceSpec(boolean wholeFields, boolean labelledLines, boolean namedOwner, String endorse,
                                 boolean delegation, List<String> fetchTools, Map<String, List<String>> linkPayloads,
                                 int maxChars) {}
}
