package dev.tracegate.agent.cli;

import dev.tracegate.contracts.eval.AgentDojoEvaluation;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code eval agentdojo DIR}: the prompt-injection evaluation on recorded AgentDojo runs. */
@Command(name = "eval", mixinStandardHelpOptions = true, version = Main.VERSION, description = "Evaluations on recorded data.",
        subcommands = EvalCommand.AgentDojo.class)
final class EvalCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** No subcommand given: the usage, as a usage error. */
    @Override
    public Integer call() {
        return Main.usage(spec);
    }

    @Command(name = "agentdojo", mixinStandardHelpOptions = true, version = Main.VERSION,
            description = "Replay every AgentDojo run under the injection library and report attack success and utility per suite.")
    static final class AgentDojo implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "DIR", description = "the dataset folder")
        Path dir;

        @Option(names = "--out", paramLabel = "FILE", description = "write the Markdown table here")
        Path out;

        @Option(names = "--json", paramLabel = "FILE", description = "also write the figures as JSON")
        Path json;

        @Override
        public Integer call() throws Exception {
            if (!Files.isDirectory(dir)) {
                System.err.println("tracegate eval agentdojo: " + dir + " is not a directory (give the AgentDojo dataset folder, the one that holds runs/)");
                return 2;
            }
            List<String> args = new ArrayList<>(List.of(dir.toString()));
            if (out != null) args.addAll(List.of("--out", out.toString()));
            if (json != null) args.addAll(List.of("--json", json.toString()));
            AgentDojoEvaluation.main(args.toArray(new String[0]));
            if (out != null) System.err.println("table written to " + out);
            if (json != null) System.err.println("figures written to " + json);
            return 0;
        }
    }
}
