package dev.tracegate.agent.cli;

import dev.tracegate.contracts.analysis.English;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.contracts.library.LibrarySpec;
import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;

/**
 * {@code explain LIB... [--dot DIR]}: each contract in English, each automaton as Graphviz DOT, and what each library's
 * {@code gdpr:} section says (which tool serves which purpose, which purposes rest on consent, the subject fields).
 */
@Command(name = "explain", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = {"Print every contract's formulas back in English, and what a library's gdpr: section means;"
                + " with --dot, write each automaton as Graphviz DOT.",
                "Exit status: 0 done, 2 a library that does not load."})
final class ExplainCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "LIB", description = "built-in library name or YAML file; several are separated by spaces or commas")
    List<String> libraries;

    @Option(names = "--dot", paramLabel = "DIR", description = "write <contract>.assume.dot and <contract>.guarantee.dot into DIR")
    Path dot;

    @Override
    public Integer call() throws IOException {
        Library lib = LibraryOptions.load(libraries, "explain", " ", "");
        if (lib == null) return LibraryOptions.BAD_INPUT;
        ContractSet set = lib.contracts();
        if (dot != null && Files.exists(dot) && !Files.isDirectory(dot)) {
            System.err.println("tracegate explain: --dot " + dot + " is a file; name a directory (it is created if missing)");
            return LibraryOptions.BAD_INPUT;
        }
        if (dot != null) Files.createDirectories(dot);
        for (int c = 0; c < set.contracts().size(); c++) {
            Contract k = set.contracts().get(c);
            Library.ContractInfo info = lib.info().get(c);
            Dfa a = set.formulas().get(set.assumeOf(c));
            Dfa g = set.formulas().get(set.guaranteeOf(c));
            System.out.println(k.id() + "  (" + info.library() + ", strategy " + info.strategy() + ")");
            if (!info.description().isEmpty()) System.out.println("  " + info.description());
            if (!(k.assume() instanceof dev.tracegate.engine.ltl.Formula.Const t && t.value())) {
                System.out.println("  assume:    " + info.assumeText().strip());
                System.out.println("             " + English.of(k.assume()) + "  [" + a.stateCount() + " states]");
            }
            System.out.println("  guarantee: " + info.guaranteeText().strip());
            System.out.println("             " + English.of(k.guarantee()) + "  [" + g.stateCount() + " states]");
            if (dot != null) {
                Files.writeString(dot.resolve(k.id() + ".assume.dot"), a.toDot());
                Files.writeString(dot.resolve(k.id() + ".guarantee.dot"), g.toDot());
            }
        }
        for (LibrarySpec s : lib.specs()) {
            if (s.gdpr() != null) printGdpr(s);
        }
        if (dot != null) System.out.println("DOT files written to " + dot + " (render: dot -Tsvg FILE.dot > FILE.svg)");
        return 0;
    }

    /** A library's gdpr: section as the gdpr contracts read it. */
    private static void printGdpr(LibrarySpec s) {
        LibrarySpec.GdprSpec g = s.gdpr();
        System.out.println();
        System.out.println("gdpr: section of " + s.file() + " (library " + s.name() + ")");
        Set<String> consent = new LinkedHashSet<>(g.noConsentPurposes() ? List.of()
                : g.consentPurposes().isEmpty() ? g.purposes().keySet() : g.consentPurposes());
        System.out.println("  purposes (the data categories each needs):");
        if (g.purposes().isEmpty()) System.out.println("    none declared");
        for (Map.Entry<String, List<String>> p : g.purposes().entrySet()) {
            System.out.println("    " + p.getKey() + ": " + (p.getValue().isEmpty() ? "no category" : String.join(", ", p.getValue()))
                    + (consent.contains(p.getKey()) ? "   (rests on consent)" : ""));
        }
        if (g.noConsentPurposes()) {
            System.out.println("  consent: no purpose rests on consent (consent-purposes: none), so P1 never asks");
        } else if (g.consentPurposes().isEmpty()) {
            System.out.println("  consent: every purpose rests on consent (consent-purposes is left out): P1 asks the data subject's"
                    + " consent for each");
        } else {
            List<String> other = new ArrayList<>(g.purposes().keySet());
            other.removeAll(consent);
            System.out.println("  consent: P1 asks the data subject's consent for " + String.join(", ", consent)
                    + (other.isEmpty() ? "" : "; " + String.join(", ", other) + " rest" + (other.size() == 1 ? "s" : "")
                    + " on another lawful basis"));
        }
        System.out.println("  tools (the purposes each call serves):");
        if (g.tools().isEmpty()) System.out.println("    none bound");
        for (Map.Entry<String, List<String>> t : g.tools().entrySet()) {
            List<String> asks = new ArrayList<>(t.getValue());
            asks.retainAll(consent);
            System.out.println("    " + t.getKey() + " -> " + String.join(", ", t.getValue())
                    + (asks.isEmpty() ? "" : "   (P1: needs consent for " + String.join(", ", asks) + ")")
                    + (g.fields().containsKey(t.getKey()) ? "   fields: " + fields(g.fields().get(t.getKey())) : ""));
        }
        for (Map.Entry<String, Map<String, String>> f : g.fields().entrySet()) {
            if (!g.tools().containsKey(f.getKey())) System.out.println("    " + f.getKey() + " (no purpose)   fields: " + fields(f.getValue()));
        }
        System.out.println("    any other tool: no declared purpose, so P2 refuses a call of it that carries personal data"
                + (g.consentTools().isEmpty() && g.erasureTools().isEmpty() ? "" : " (the consent and erasure tools aside)"));
        Set<String> subjects = new LinkedHashSet<>(g.subjectFields());
        g.consentTools().values().forEach(c -> subjects.add(c.get(0)));
        subjects.addAll(g.erasureTools().values());
        System.out.println("  subject fields (each names a data subject of the calls that carry it; P1 asks every one's consent): "
                + (subjects.isEmpty() ? "none, so a call has no data subject and P1 counts only a consent given for the whole session"
                : String.join(", ", subjects)
                + (subjects.size() > g.subjectFields().size() ? " (with the consent and erasure tools' subject fields)" : "")));
        System.out.println("  consent tools:" + (g.consentTools().isEmpty() ? " none" : ""));
        for (Map.Entry<String, List<String>> c : g.consentTools().entrySet()) {
            List<String> f = c.getValue();
            String fixedPurposes = f.size() > 3 ? f.get(3) : null;
            String fixedGranted = f.size() > 4 ? f.get(4) : null;
            System.out.println("    " + c.getKey() + ": subject in " + f.get(0)
                    + (fixedPurposes != null ? ", always for " + fixedPurposes.replace(",", ", ") : ", purposes in " + f.get(1))
                    + ("false".equals(fixedGranted) ? ", always a withdrawal (at its call)"
                    : f.get(2) == null ? ", always a grant (at its call's successful return)"
                    : ", granted (or withdrawn) in " + f.get(2) + " (a grant at its call's successful return, a withdrawal at its call)"));
        }
        System.out.println("  erasure tools:" + (g.erasureTools().isEmpty() ? " none" : ""));
        g.erasureTools().forEach((t, f) -> System.out.println("    " + t + ": subject in " + f));
        if (g.consentTools().isEmpty() && g.erasureTools().isEmpty()) {
            System.out.println("    (consent and erasure can also come from configured methods of kind consent / erasure, set in the"
                    + " agent's configuration, not here)");
        }
        System.out.println("  scope: " + ("session".equals(g.scope()) ? "session (a consent or an erasure counts only in its own conversation)"
                : "global (a consent or an erasure counts in every conversation)")
                + "; register capacity " + (g.registerCapacity() > 0 ? g.registerCapacity()
                : dev.tracegate.matchers.predicate.SubjectRegister.DEFAULT_CAPACITY + " (default)"));
    }

    private static String fields(Map<String, String> m) {
        List<String> out = new ArrayList<>();
        m.forEach((f, c) -> out.add(f + " = " + c));
        return String.join(", ", out);
    }
}
