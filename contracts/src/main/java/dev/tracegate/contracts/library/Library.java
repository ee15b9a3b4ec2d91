package dev.tracegate.contracts.library;

import dev.tracegate.engine.automaton.CompileException;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.automaton.StateLimitException;
import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.engine.ltl.Formula;
import dev.tracegate.engine.ltl.Formulas;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.predicate.Grounding;
import dev.tracegate.matchers.predicate.Latch;
import dev.tracegate.matchers.predicate.Policy;
import dev.tracegate.matchers.predicate.Provenance;
import dev.tracegate.matchers.predicate.VocabularyException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One or more contract libraries compiled together: the contracts as automata, the atoms grounded
 * against the merged policy, and what each contract tells the agent. Immutable; build a
 * {@link SessionMonitor} per process (online) or a {@link Replay} per session (offline) from it.
 */
public final class Library {
    /** The built-in libraries, by name. */
    public static final List<String> BUILTINS = List.of("gdpr", "injection", "sop-refund", "temporal-classes");

    /** What a contract tells the agent and where it was defined, indexed like the contract set. */
    public record ContractInfo(String id, String library, String file, int line, String description, String strategy,
                               String message, String next, String redirectTo, String assumeText, String guaranteeText) {}

    private final List<LibrarySpec> specs;
    private final ContractSet contracts;
    private final Grounding grounding;
    private final Policy policy;
    private final List<ContractInfo> info;

    private Library(List<LibrarySpec> specs, ContractSet contracts, Grounding grounding, Policy policy, List<ContractInfo> info) {
        this.specs = List.copyOf(specs);
        this.contracts = contracts;
        this.grounding = grounding;
        this.policy = policy;
        this.info = List.copyOf(info);
    }

    /**
     * Loads libraries named by built-in name ({@code gdpr}, {@code builtin:gdpr}) or file path,
     * relative paths resolved against {@code base}.
     */
    public static Library load(List<String> sources, Path base) {
        // a list that knows where its entries were written (the agent's configuration) names the entry of a missing file
        if (sources instanceof Sources named) return load(sources, base, named::namedAt);
        return load(sources, base, s -> null);
    }

    /** Library sources that remember where each was named (a configuration entry), for the error when one names no file. */
    public interface Sources {
        /** Where {@code source} was written (file:line:col, or the setting that gave it), or null. */
        String namedAt(String source);
    }

    /**
     * Loads libraries as {@link #load(List, Path)} does; a source that names no file is reported at the place
     * {@code namedAt} gives for it (the configuration entry that names it, e.g. {@code tracegate.yaml:1:13}), when
     * it gives one.
     */
    public static Library load(List<String> sources, Path base, Function<String, String> namedAt) {
        List<LibrarySpec> specs = new ArrayList<>();
        for (String s : sources) specs.add(read(s, base, namedAt.apply(s)));
        return compile(specs);
    }

    /** Reads one library source (a built-in name or a file) without compiling it. */
    public static LibrarySpec read(String source, Path base) {
        return read(source, base, null);
    }

    private static LibrarySpec read(String source, Path base, String namedAt) {
        String name = source.startsWith("builtin:") ? source.substring("builtin:".length()) : source;
        if (BUILTINS.contains(name) || (source.startsWith("builtin:") && builtinExists(name))) {
            return LibraryReader.read("builtin:" + name, builtinText(name));
        }
        Path p = base == null ? Path.of(source) : base.resolve(source);
        try {
            // a character takes at most 4 bytes of UTF-8: a file beyond that is refused before it is read
            long bytes = Files.size(p);
            if (bytes > 4L * YamlReader.MAX_CODE_POINTS) {
                throw YamlReader.tooLong(p.toString(), String.format(java.util.Locale.ROOT, "%,d bytes", bytes));
            }
            return LibraryReader.read(p.toString(), Files.readString(p, StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            String near = nearFile(source, p);
            String relative = Path.of(source).isAbsolute() ? ""
                    : " (a relative path is read from " + (base == null || base.toString().isEmpty() ? "the working directory" : base) + ")";
            String hint = (near == null ? "" : "did you mean '" + near + "'? ") + "give a path to a .yaml file" + relative
                    + ", or a built-in name: " + String.join(", ", BUILTINS);
            if (namedAt != null) {
                throw new LibraryException(namedAt, 0, 0, "the libraries entry '" + source + "' is no file: " + p + " does not exist", hint);
            }
            throw new LibraryException(p.toString(), 0, 0, "no such library file", hint);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new LibraryException(p.toString(), 0, 0, "is not UTF-8 text (a binary or differently encoded file?)",
                    "a library is a YAML text file in UTF-8; check that the path names the right file");
        } catch (IOException e) {
            throw new LibraryException(p.toString(), 0, 0, "cannot read: " + e.getMessage(), null);
        }
    }

    /** A built-in name or a library file beside {@code missing} spelt nearly like {@code source}, or null. */
    private static String nearFile(String source, Path missing) {
        List<String> candidates = new ArrayList<>();
        if (source.indexOf('/') < 0 && source.indexOf('\\') < 0) candidates.addAll(BUILTINS);
        Path dir = missing.toAbsolutePath().getParent();
        if (dir != null && Files.isDirectory(dir)) {
            try (java.util.stream.Stream<Path> files = Files.list(dir)) {
                files.limit(1000).map(f -> f.getFileName().toString())
                        .filter(f -> f.endsWith(".yaml") || f.endsWith(".yml")).forEach(candidates::add);
            } catch (IOException | RuntimeException unreadable) {
                // no suggestion from a directory that cannot be listed
            }
        }
        String name = missing.getFileName() == null ? source : missing.getFileName().toString();
        String near = Fields.closest(name, candidates);
        if (near == null || near.equals(name)) return null;
        // the suggestion as the user would write it: the entry with its last part replaced
        int slash = Math.max(source.lastIndexOf('/'), source.lastIndexOf('\\'));
        return BUILTINS.contains(near) ? near : source.substring(0, slash + 1) + near;
    }

    /** Whether a built-in library of this name ships in the jar (the four above, and e.g. agentdojo/banking). */
    public static boolean builtinExists(String name) {
        return !name.contains("..") && Library.class.getResource("/dev/tracegate/contracts/builtin/" + name + ".yaml") != null;
    }

    /** The YAML text of a built-in library. */
    public static String builtinText(String name) {
        try (InputStream in = Library.class.getResourceAsStream("/dev/tracegate/contracts/builtin/" + name + ".yaml")) {
            if (in == null) throw new IllegalArgumentException("no built-in library " + name);
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** One library file under two spellings (d.yaml, ./d.yaml, its absolute path, a link): trial36 07. */
    private static boolean sameFile(String a, String b) {
        if (a == null || b == null) return a == b;
        if (a.equals(b)) return true;
        try {
            java.nio.file.Path pa = java.nio.file.Path.of(a), pb = java.nio.file.Path.of(b);
            return java.nio.file.Files.isRegularFile(pa) && java.nio.file.Files.isRegularFile(pb) && java.nio.file.Files.isSameFile(pa, pb);
        } catch (java.io.IOException | java.nio.file.InvalidPathException e) {
            return false;   // a built-in's name, or a file gone since it was read: not the same file
        }
    }

    /** Compiles libraries together; contract ids must be unique across them. */
    public static Library compile(List<LibrarySpec> specs) {
        if (specs.isEmpty()) throw new LibraryException(null, 0, 0, "no library given", "name at least one library file or built-in");
        List<Contract> contracts = new ArrayList<>();
        List<ContractInfo> info = new ArrayList<>();
        Map<String, ContractInfo> byId = new HashMap<>();
        Map<Atom, LibrarySpec.Position> positions = new HashMap<>();
        boolean refuse = false;
        int maxStates = 0;
        for (LibrarySpec spec : specs) {
            refuse |= spec.settings().refuseUnevaluable();
            maxStates = Math.max(maxStates, spec.settings().maxStates());
            spec.atomPositions().forEach(positions::putIfAbsent);
            for (LibrarySpec.ContractSpec c : spec.contracts()) {
                ContractInfo prev = byId.get(c.id());
                if (prev != null && sameFile(prev.file(), spec.file())) {   // not two contracts: one library named twice
                    throw new LibraryException(spec.file(), 1, 1, "library " + spec.file() + " is loaded twice ("
                            + (prev.file().equals(spec.file()) ? "" : "also as " + prev.file() + "; ") + "its contract '" + c.id()
                            + "' comes again)", "name each library once");
                }
                if (prev != null) {
                    throw new LibraryException(spec.file(), c.line(), c.column(), "contract id '" + c.id() + "' is already defined in "
                            + prev.file() + ":" + prev.line(), "contract ids must be unique across all loaded libraries; rename one");
                }
                ContractInfo ci = new ContractInfo(c.id(), spec.name(), spec.file(), c.line(), c.description(), c.strategy(),
                        c.message(), c.next(), c.redirectTo(), c.assumeText(), c.guaranteeText());
                byId.put(c.id(), ci);
                info.add(ci);
                contracts.add(new Contract(c.id(), c.assume(), c.guarantee(), c.strategy(), c.message()));
            }
        }
        if (contracts.isEmpty()) noContracts(specs);
        String override = System.getProperty("tracegate.engine.max-states");
        if (override != null) {
            try {
                maxStates = Integer.parseInt(override.trim());
            } catch (NumberFormatException e) {
                throw new LibraryException("-Dtracegate.engine.max-states", 0, 0, "'" + override + "' is not a number",
                        "give a positive integer, e.g. -Dtracegate.engine.max-states=20000");
            }
        }
        Policy policy = policy(specs, refuse);
        Map<String, java.util.Set<String>> named = new HashMap<>();
        for (LibrarySpec spec : specs) named.computeIfAbsent(spec.file(), f -> new java.util.TreeSet<>()).addAll(spec.namedAtoms());
        for (Contract c : contracts) checkAtoms(Formulas.and(c.assume(), c.guarantee()), positions, named);
        ContractSet set;
        try {
            set = ContractSet.compile(contracts, new DfaCompiler(maxStates));
        } catch (StateLimitException e) {
            ContractInfo ci = blame(info, e.formula());
            throw new LibraryException(ci == null ? null : ci.file(), ci == null ? 0 : ci.line(), 1,
                    (ci == null ? "" : "contract '" + ci.id() + "': ") + e.getMessage(), null);
        } catch (CompileException e) {
            throw new LibraryException(null, 0, 0, e.getMessage(), null);
        }
        Grounding grounding;
        try {
            grounding = Grounding.compile(set.atoms(), policy);
        } catch (VocabularyException e) {
            throw atomError(e, positions, named);
        }
        return new Library(specs, set, grounding, policy, info);
    }

    /** Only policy files (a gdpr: or injection: section) were loaded, without the built-in library that reads them. */
    private static void noContracts(List<LibrarySpec> specs) {
        for (LibrarySpec s : specs) {
            if (s.gdpr() == null && s.injection() == null) continue;
            String section = s.gdpr() != null ? "gdpr" : "injection";
            String file = s.file().startsWith("builtin:") ? s.file() : java.nio.file.Path.of(s.file()).getFileName().toString();
            throw new LibraryException(s.file(), 1, 1, "no contracts in any loaded library: the " + section + ": section of " + file
                    + " is read by the built-in library " + section + ", which is not loaded",
                    "load them together: on the command line " + section + "," + file + " (replay " + section + "," + file + " TRACE..., check "
                            + section + " " + file + "), in the agent's configuration libraries: [" + section + ", " + file + "]");
        }
    }

    private static ContractInfo blame(List<ContractInfo> info, String formula) {
        for (ContractInfo ci : info) {
            if (formula.contains(ci.guaranteeText().strip()) || formula.contains(ci.assumeText().strip())) return ci;
        }
        return info.isEmpty() ? null : info.get(0);
    }

    private static void checkAtoms(Formula f, Map<Atom, LibrarySpec.Position> positions, Map<String, java.util.Set<String>> named) {
        for (Atom a : Formulas.atoms(f)) {
            if (readsEnd(a)) {
                LibrarySpec.Position p = positions.get(a);
                throw new LibraryException(p == null ? null : p.file(), p == null ? 0 : p.line(), p == null ? 0 : p.column(),
                        "atom `" + a.key() + "`: `end` never holds, so a contract over it never acts: a session's END is where the"
                                + " finite trace ends and its reading decides, not an event the atoms are evaluated at",
                        "to require something by the end of a session, write the obligation itself: F call(notify) (reported"
                                + " unmet at the session's END when it never happened), or with its cause: G(call(refund) -> F call(notify))");
            }
            String infinite = infiniteNumber(a);
            if (infinite != null) {
                LibrarySpec.Position p = positions.get(a);
                throw new LibraryException(p == null ? null : p.file(), p == null ? 0 : p.line(), p == null ? 0 : p.column(),
                        "atom `" + a.key() + "`: the number " + infinite + " is outside the range of numbers (about ±1.8e308), where"
                                + " an event's value that large is not a number either (unevaluable)", "write a number inside the range");
            }
            try {
                Grounding.check(a);
            } catch (VocabularyException e) {
                throw atomError(e, positions, named);
            }
        }
    }

    /**
     * Whether {@code a} is the vocabulary's {@code end}, alone or as the condition of {@code since(...)}: atoms are
     * evaluated at the trace's events, and the END of a session is no event of the trace but where it stops (adding
     * one would change every X and WX formula), so {@code end} would be false wherever it is read.
     */
    static boolean readsEnd(Atom a) {
        if (a.name().equals("end") && a.args().isEmpty()) return true;
        if (!a.name().equals("since") || a.args().size() != 1) return false;
        dev.tracegate.engine.ltl.Term t = a.args().get(0);
        return t instanceof dev.tracegate.engine.ltl.Term.Name n && n.value().equals("end")
                || t instanceof dev.tracegate.engine.ltl.Term.Call c && c.name().equals("end") && c.args().isEmpty();
    }

    /**
     * The first number written in {@code a} that reads as infinite, or null: a number anywhere, and a text where it is
     * read as a number (the bound, the values of {@code arg_in}), not where it is a pattern or a path.
     */
    static String infiniteNumber(Atom a) {
        List<dev.tracegate.engine.ltl.Term> terms = new ArrayList<>(a.args());
        List<dev.tracegate.engine.ltl.Term> numeric = new ArrayList<>();
        if (a.bound() != null) numeric.add(a.bound());
        if (a.name().equals("arg_in") && !a.args().isEmpty() && a.args().get(a.args().size() - 1) instanceof dev.tracegate.engine.ltl.Term.ListOf l) {
            numeric.addAll(l.items());
        }
        terms.addAll(numeric);
        for (int i = 0; i < terms.size(); i++) {
            dev.tracegate.engine.ltl.Term t = terms.get(i);
            if (t instanceof dev.tracegate.engine.ltl.Term.Num n && Double.isInfinite(n.value())) return n.text();
            if (t instanceof dev.tracegate.engine.ltl.Term.Str q && numeric.contains(t)
                    && Double.isInfinite(dev.tracegate.matchers.number.NumberText.parse(q.value()))) {
                return t.toString();
            }
            if (t instanceof dev.tracegate.engine.ltl.Term.ListOf l) terms.addAll(l.items());
            if (t instanceof dev.tracegate.engine.ltl.Term.Call c) terms.addAll(c.args());
        }
        return null;
    }

    private static LibraryException atomError(VocabularyException e, Map<Atom, LibrarySpec.Position> positions,
                                              Map<String, java.util.Set<String>> named) {
        LibrarySpec.Position p = positions.get(e.atom());
        String forms = e.validForms().isEmpty() ? null : "valid forms: " + String.join(", ", e.validForms());
        String near = nearMisses(e.atom(), p == null ? java.util.Set.of() : named.getOrDefault(p.file(), java.util.Set.of()));
        if (near != null) forms = near + (forms == null ? "" : " " + forms);
        String foreign = e.atom().comparison() == null && e.atom().args().size() == 1
                ? (dev.tracegate.engine.ltl.Parser.foreignPastHint(e.atom().name()) != null
                    ? dev.tracegate.engine.ltl.Parser.foreignPastHint(e.atom().name())
                    : dev.tracegate.engine.ltl.Parser.gluedOperators(e.atom().name())) : null;
        if (foreign != null) forms = foreign;   // Z(call(b)): another tool's past operator, not a misspelt predicate
        return new LibraryException(p == null ? null : p.file(), p == null ? 0 : p.line(), p == null ? 0 : p.column(),
                "atom `" + e.atom().key() + "`: " + e.problem(), forms);
    }

    /**
     * "did you mean 'approved' (a named atom of this library)?" for an atom whose name is unknown but close (edit
     * distance) to a named atom of its own file (bare atoms only) or a vocabulary predicate; the best one or two.
     */
    static String nearMisses(Atom atom, java.util.Set<String> namedInFile) {
        String name = atom.name();
        if (dev.tracegate.matchers.predicate.Vocabulary.names().contains(name)) return null;
        int limit = name.length() <= 2 ? 0 : name.length() <= 5 ? 1 : 2;
        boolean bare = atom.args().isEmpty() && atom.comparison() == null;
        java.util.TreeMap<Integer, List<String>> byDistance = new java.util.TreeMap<>();
        if (bare) {
            for (String n : namedInFile) {
                int d = Spelling.distance(name.toLowerCase(java.util.Locale.ROOT), n.toLowerCase(java.util.Locale.ROOT));
                if (d <= limit) byDistance.computeIfAbsent(d, k -> new ArrayList<>()).add("'" + n + "' (a named atom of this library)");
            }
        }
        for (String n : dev.tracegate.matchers.predicate.Vocabulary.names()) {
            int d = Spelling.distance(name.toLowerCase(java.util.Locale.ROOT), n);
            if (d <= limit && !namedInFile.contains(n)) byDistance.computeIfAbsent(d, k -> new ArrayList<>()).add("'" + n + "'");
        }
        if (byDistance.isEmpty()) {
            // a bare name no form is close to: most often a tool written as if it were an atom (trial7 repro 20)
            return bare ? "did you mean call(" + name + ") or returned(" + name + ")? or define " + name + " under atoms:" : null;
        }
        int best = byDistance.firstKey();
        List<String> picks = new ArrayList<>();
        for (Map.Entry<Integer, List<String>> e : byDistance.entrySet()) {
            if (e.getKey() > best + 1) break;
            for (String c : e.getValue()) if (picks.size() < 2) picks.add(c);
        }
        return "did you mean " + String.join(" or ", picks) + "?";
    }

    /** The merged policy of all libraries. */
    static Policy policy(List<LibrarySpec> specs, boolean refuseUnevaluable) {
        Policy.Builder b = Policy.builder().refuseUnevaluable(refuseUnevaluable);
        for (LibrarySpec s : specs) {
            for (LibrarySpec.LatchSpec l : s.latches()) b.latch(latch(s, l));
            if (s.gdpr() != null) {
                LibrarySpec.GdprSpec g = s.gdpr();
                g.purposes().forEach((p, cats) -> b.purpose(p, cats.toArray(new String[0])));
                g.tools().forEach((t, ps) -> b.toolPurposes(t, ps.toArray(new String[0])));
                g.fields().forEach((t, m) -> m.forEach((f, c) -> b.fieldCategory(t, f, c)));
                g.consentTools().forEach((t, f) -> b.consentTool(t, f.get(0), f.get(1),
                        f.size() > 3 && f.get(3) != null ? List.of(f.get(3).split(",")) : null,
                        f.get(2), f.size() > 4 && f.get(4) != null ? Boolean.valueOf(f.get(4)) : null));
                g.erasureTools().forEach(b::erasureTool);
                if (g.noConsentPurposes()) b.noConsentPurposes();
                else b.consentPurposes(g.consentPurposes().toArray(new String[0]));
                g.subjectFields().forEach(b::subjectField);
                if ("session".equals(g.scope())) b.subjectScope(Policy.SubjectScope.SESSION);   // any library that says so
                if (g.registerCapacity() > 0) b.registerCapacity(g.registerCapacity());
            }
            if (s.injection() != null) {
                s.injection().sideEffecting().forEach((t, fs) -> b.sideEffecting(t, fs.toArray(new String[0])));
                if (s.injection().provenance() != null) b.provenance(provenance(s.injection().provenance()));
            }
            b.grant(s.permissions().toArray(new String[0]));
        }
        return b.build();
    }

    /**
     * The mapper for tool outputs, created when the first output is read: creating it loads about 300
     * Jackson databind classes (and the JDK's date and locale machinery), which start-up need not pay.
     */
    private static final class YamlOutputs {
        static final com.fasterxml.jackson.databind.ObjectMapper MAPPER =
                new com.fasterxml.jackson.databind.ObjectMapper(new com.fasterxml.jackson.dataformat.yaml.YAMLFactory());
    }

    /** A tool output read as YAML (JSON is YAML), or null when it is not. */
    static com.fasterxml.jackson.databind.JsonNode yamlOutput(String text) {
        try {
            return YamlOutputs.MAPPER.readTree(text);
        } catch (java.io.IOException | RuntimeException e) {
            return null;
        }
    }

    /** The matchers' provenance for a library's {@code injection.provenance} section (outputs read as YAML). */
    public static Provenance provenance(LibrarySpec.ProvenanceSpec p) {
        Provenance.Builder b = Provenance.builder().wholeFields(p.wholeFields()).labelledLines(p.labelledLines())
                .namedOwner(p.namedOwner()).endorse(Provenance.Endorse.valueOf(p.endorse().toUpperCase(java.util.Locale.ROOT)))
                .delegation(p.delegation()).maxChars(p.maxChars()).outputs(Library::yamlOutput);
        p.fetchTools().forEach(b::fetchTools);
        p.linkPayloads().forEach((t, fs) -> b.linkPayloads(t, fs.toArray(new String[0])));
        return b.build();
    }

    private static Latch latch(LibrarySpec s, LibrarySpec.LatchSpec l) {
        Latch x = Latch.on(EventKind.parse(l.kind()), l.tool());
        if (!l.success()) x = x.onFailureToo();
        switch (l.mode()) {
            case "clear" -> {
                return x.clear(l.key());
            }
            case "add" -> x = x.add(l.key());
            default -> x = x.set(l.key());
        }
        String v = l.value().strip();
        if (v.startsWith("arg(") && v.endsWith(")")) {
            String path = v.substring(4, v.length() - 1).strip();
            try {
                return x.fromArg(path);
            } catch (IllegalArgumentException e) {   // an empty path or an empty step: arg(), arg(.), arg(a..b)
                throw new LibraryException(s.file(), l.line(), l.column(), "latch value '" + v + "' names no argument: " + e.getMessage(),
                        "write arg(field) or arg(field.sub) with non-empty field names");
            }
        }
        if (v.startsWith("result(") && v.endsWith(")")) return x.fromResultField(v.substring(7, v.length() - 1).strip());
        if (v.equals("result")) return x.fromResult();
        if (v.equals("text")) return x.fromText();
        if (v.equals("subject")) return x.fromSubject();
        if (v.startsWith("\"") && v.endsWith("\"") && v.length() >= 2) return x.constant(v.substring(1, v.length() - 1));
        if (v.matches("[A-Za-z_][A-Za-z0-9_]*\\(.*")) {
            throw new LibraryException(s.file(), l.line(), l.column(), "latch value '" + v + "' is not a value source",
                    "use arg(field), result, result(field), text, subject, or a literal");
        }
        return x.constant(v);
    }

    public List<LibrarySpec> specs() { return specs; }

    public ContractSet contracts() { return contracts; }

    public Grounding grounding() { return grounding; }

    public Policy policy() { return policy; }

    /** Per contract: message, next action, strategy, source; indexed like {@link ContractSet#contracts()}. */
    public List<ContractInfo> info() { return info; }

    /** A monitor for live sessions. */
    public SessionMonitor<Event> newMonitor(SessionMonitor.Options options, Consumer<EndReport> onEvict) {
        return new SessionMonitor<>(contracts, grounding,
                new SessionMonitor.Options(options.maxSessions(), policy.refuseUnevaluable()), onEvict);
    }

    /** Offline replay of one session. */
    public Replay<Event> replay(String sessionId) {
        return new Replay<>(contracts, grounding, policy.refuseUnevaluable(), sessionId);
    }

    /**
     * Why atom {@code atom} held on {@code event} only because a scanning bound of the injection check was reached (it
     * fails closed), given the session's {@code state} before the event; null when it held on what was read, or for
     * another atom. See {@link dev.tracegate.matchers.predicate.Grounding#boundCause}.
     */
    public String boundCause(int atom, Event event, dev.tracegate.engine.monitor.SessionState state) {
        return grounding.boundCause(atom, event, state);
    }

    /**
     * Why atom {@code atom} was unevaluable on {@code event}, when the grounding can say more than "an argument it
     * reads is missing" (an {@code untrusted_target} call without any of the target arguments its policy names), with
     * the names of the library files whose {@code injection.side-effecting} names the tool (not their paths: the
     * reason of a refusal also goes to the model); null otherwise. For reports.
     */
    public String unevaluableCause(int atom, Event event) {
        return grounding.unevaluableCause(atom, event, tool -> {
            List<String> files = new ArrayList<>();
            for (LibrarySpec s : specs) {
                if (s.injection() == null) continue;
                for (String t : s.injection().sideEffecting().keySet()) {
                    if (dev.tracegate.matchers.event.ToolName.matches(tool, t)) {
                        // the file's name, not its path: the text also goes to the model, which needs no server paths
                        Path name = s.file().startsWith("builtin:") ? null : Path.of(s.file()).getFileName();
                        files.add(name == null ? s.file() : name.toString());
                        break;
                    }
                }
            }
            return files.isEmpty() ? null : "injection.side-effecting in " + String.join(", ", files);
        });
    }

    /**
     * What contract {@code contract}'s refusal of {@code event} should add to its message, or null: for a contract that
     * reads {@code consented} (gdpr.P1-consent), a call whose purpose rests on consent but which has no data subject, since
     * none of the subject fields is among its arguments (see {@link Grounding#noSubjectCause}): its message says "the data
     * subject has not consented", of a call that has none (trial19). For reports, never on the path of an event that passes.
     */
    public String refusalCause(int contract, Event event) {
        if (contract < 0 || contract >= contracts.contracts().size()) return null;
        for (int f : new int[] {contracts.assumeOf(contract), contracts.guaranteeOf(contract)}) {
            for (int atom : contracts.atomIndex(f)) {
                if (grounding.isConsentAtom(atom)) return grounding.noSubjectCause(event);
            }
        }
        return null;
    }

    /**
     * For a contract that reads {@code consented} (gdpr.P1-consent), which data subjects of {@code event} lack consent for
     * which purpose in session state {@code state} (the session before the event), named by the argument that holds each
     * ({@link Grounding#missingConsent}): "the data subject in cc, for marketing (none recorded)"; null for another
     * contract, or when the event names no subject. For reports, never on the path of an event that passes.
     */
    public String missingConsent(int contract, Event event, dev.tracegate.engine.monitor.SessionState state) {
        if (contract < 0 || contract >= contracts.contracts().size() || state == null) return null;
        for (int f : new int[] {contracts.assumeOf(contract), contracts.guaranteeOf(contract)}) {
            for (int atom : contracts.atomIndex(f)) {
                if (grounding.isConsentAtom(atom)) return grounding.missingConsent(event, state);
            }
        }
        return null;
    }

    /**
     * For a contract that reads {@code undeclared_purpose} (gdpr.P2-purpose-limitation), which personal data {@code event}
     * carries (categories, arguments; never values) and that gdpr.tools binds its tool to no purpose
     * ({@link Grounding#undeclaredPurposeCause}); null for another contract or when that is not why. For reports.
     */
    public String undeclaredPurposeCause(int contract, Event event) {
        if (contract < 0 || contract >= contracts.contracts().size()) return null;
        for (int f : new int[] {contracts.assumeOf(contract), contracts.guaranteeOf(contract)}) {
            for (int atom : contracts.atomIndex(f)) {
                if (grounding.isUndeclaredPurposeAtom(atom)) return grounding.undeclaredPurposeCause(event);
            }
        }
        return null;
    }

    /** The library files (as read: a path, or builtin:NAME) that declare {@code gdpr.subject-fields}; empty when none does. For the agent's log. */
    public List<String> subjectFieldsDeclaredIn() {
        List<String> files = new ArrayList<>();
        for (LibrarySpec s : specs) {
            if (s.gdpr() != null && s.gdpr().subjectFields() != null && !s.gdpr().subjectFields().isEmpty()) files.add(s.file());
        }
        return files;
    }

    /**
     * A digest of what the libraries define, in the order given: per library its name and settings, each contract's
     * id, formulas as written, strategy, message, next action and redirect target, the latches, and the gdpr,
     * injection and permissions sections; not where the files are nor their line numbers, so the same libraries give
     * the same digest wherever they are read from. The audit log writes it in each {@code library} record, and replay
     * tells versions of a hot reload apart by it. 16 hex digits of SHA-256.
     */
    public String digest() {
        StringBuilder b = new StringBuilder();
        for (LibrarySpec s : specs) {
            b.append("library\u0000").append(s.name()).append('\u0000').append(s.settings()).append('\n');
            for (LibrarySpec.ContractSpec c : s.contracts()) {
                b.append("contract\u0000").append(c.id()).append('\u0000').append(c.assumeText()).append('\u0000')
                        .append(c.guaranteeText()).append('\u0000').append(c.strategy()).append('\u0000').append(c.message())
                        .append('\u0000').append(c.next()).append('\u0000').append(c.redirectTo()).append('\n');
            }
            for (LibrarySpec.LatchSpec l : s.latches()) {
                b.append("latch\u0000").append(l.kind()).append('\u0000').append(l.tool()).append('\u0000').append(l.success())
                        .append('\u0000').append(l.key()).append('\u0000').append(l.value()).append('\u0000').append(l.mode()).append('\n');
            }
            b.append("gdpr\u0000").append(s.gdpr()).append('\n');
            b.append("injection\u0000").append(s.injection()).append('\n');
            b.append("permissions\u0000").append(s.permissions()).append('\n');
        }
        try {
            byte[] h = java.security.MessageDigest.getInstance("SHA-256").digest(b.toString().getBytes(StandardCharsets.UTF_8));
            return java.util.HexFormat.of().formatHex(h, 0, 8);
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Names of the loaded libraries, comma separated. */
    public String names() {
        List<String> n = new ArrayList<>();
        for (LibrarySpec s : specs) n.add(s.name());
        return String.join(", ", n);
    }

}
