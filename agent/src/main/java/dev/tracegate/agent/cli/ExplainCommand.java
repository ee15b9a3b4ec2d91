package dev.tracegate.agent.cli;

import dev.tracegate.contracts.analysis.English;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.automaton.Dfa;
import dev.tracegate.engine.monitor.Contract;
import dev.tracegate.engine.monitor.ContractSet;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code explain LIB... [--dot DIR]}: each contract in English, each automaton as Graphviz DOT. */
@Command(name = "explain", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = {"Print every contract's formulas back in English; with --dot, write each automaton as Graphviz DOT.",
                "Exit status: 0 done, 2 a library that does not load."})
final class ExplainCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "LIB", description = "built-in library name or YAML file; several are separated by spaces or commas")
    List<String> libraries;

    @Option(names = "--dot", paramLabel = "DIR", description = "write <contract>.assume.dot and <contract>.guarantee.dot into DIR")
    Path dot;

    @Override
    public Integer call() throws IOException {
        Library lib = LibraryOptions.load(libraries);
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
        if (dot != null) System.out.println("DOT files written to " + dot + " (render: dot -Tsvg FILE.dot > FILE.svg)");
        return 0;
    }
}
