package dev.tracegate.agent.cli;

import dev.tracegate.contracts.analysis.LibraryAnalysis;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.automaton.DfaCompiler;
import dev.tracegate.engine.ltl.Formula;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.util.List;
import java.util.concurrent.Callable;

/** {@code check LIB...}: loads libraries together and analyses them. Exit 0 clean, 1 findings, 2 a malformed library. */
@Command(name = "check", mixinStandardHelpOptions = true,
        description = {"Load contract libraries (built-in names or files) and analyse them together: consistency, "
                + "compatibility, conflicts (with a minimal conflicting subset) and dead ends.",
                "Exit status: 0 no findings, 1 findings, 2 a library that does not load (its error names file:line:column)."})
final class CheckCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "LIB", description = "built-in library name or YAML file")
    List<String> libraries;

    @Option(names = "--max-states", description = "state bound for the analysis' product automata (default ${DEFAULT-VALUE})")
    int maxStates = 20_000;

    @Override
    public Integer call() {
        Library lib = LibraryOptions.load(libraries);
        if (lib == null) return LibraryOptions.BAD_INPUT;
        System.out.println("loaded " + lib.names() + ": " + lib.contracts().contracts().size() + " contracts, "
                + lib.contracts().formulas().size() + " automata, " + lib.contracts().atoms().size() + " atoms");
        for (int f = 0; f < lib.contracts().formulas().size(); f++) {
            var d = lib.contracts().formulas().get(f);
            System.out.println("  automaton " + f + ": " + d.stateCount() + " states, " + d.atoms().size() + " atoms  "
                    + dev.tracegate.engine.ltl.Formulas.print(d.formula()));
        }
        List<LibraryAnalysis.Finding> findings = new LibraryAnalysis(new DfaCompiler(maxStates)).analyse(lib.contracts().contracts());
        if (findings.isEmpty()) {
            System.out.println("analysis: consistent, compatible, conflict-free, no dead ends");
        }
        for (LibraryAnalysis.Finding f : findings) {
            System.out.println("analysis: " + f.kind() + " " + f.contracts() + ": " + f.explanation());
            if (!f.witness().isEmpty()) System.out.println("  witness trace (atoms that hold per event): " + f.witness());
        }
        for (String note : notes(lib)) System.out.println(note);
        boolean onlyTooLarge = findings.stream().allMatch(f -> f.kind() == LibraryAnalysis.Kind.TOO_LARGE);
        return onlyTooLarge ? 0 : 1;
    }

    /**
     * What loads but will puzzle at run time, one line each (they do not change the exit status): a
     * contract that can act but has no {@code message}, whose block tells the agent only the contract id.
     */
    static List<String> notes(Library lib) {
        List<String> notes = new java.util.ArrayList<>();
        for (int c = 0; c < lib.info().size(); c++) {
            Library.ContractInfo info = lib.info().get(c);
            boolean canFail = !(lib.contracts().contracts().get(c).guarantee() instanceof Formula.Const k && k.value());
            if (canFail && info.message().isBlank()) {
                notes.add("note: " + info.file() + ":" + info.line() + ": contract " + info.id() + " has no message, so a refused agent"
                        + " is told only the contract id; add 'message:' (why) and 'next:' (what to do instead)");
            }
        }
        return notes;
    }
}
