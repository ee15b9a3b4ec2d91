package dev.tracegate.agent.cli;

import dev.tracegate.matchers.imports.AgentDojoImporter;
import dev.tracegate.matchers.imports.MessageLogException;
import dev.tracegate.matchers.imports.OpenAiMessagesImporter;
import dev.tracegate.matchers.imports.RunInfo;
import dev.tracegate.matchers.trace.TraceWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code import openai-messages FILE} and {@code import agentdojo DIR}: recorded conversations to tracegate traces. */
@Command(name = "import", mixinStandardHelpOptions = true, description = "Convert recorded agent conversations to JSONL traces.",
        subcommands = {ImportCommand.OpenAiMessages.class, ImportCommand.AgentDojo.class})
final class ImportCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** No subcommand given: the usage, as a usage error. */
    @Override
    public Integer call() {
        return Main.usage(spec);
    }

    @Command(name = "openai-messages", mixinStandardHelpOptions = true,
            description = "An OpenAI-style message log (a JSON array of messages, or {\"messages\": [...]}; AgentDojo's schema too) "
                    + "to one session of a JSONL trace.")
    static final class OpenAiMessages implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the message log (JSON)")
        Path file;

        @Option(names = "--session", description = "session id for the events (default: the file name)")
        String session;

        @Option(names = "--out", paramLabel = "FILE", description = "write here (default: standard output)")
        Path out;

        @Override
        public Integer call() throws IOException {
            if (!Files.isRegularFile(file)) {
                System.err.println("tracegate import openai-messages: " + file + " is not a file (give the JSON message log to convert)");
                return 2;
            }
            String id = session != null ? session : file.getFileName().toString().replaceFirst("\\.json$", "");
            try (TraceWriter w = out == null ? new TraceWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))
                    : TraceWriter.open(out)) {
                new OpenAiMessagesImporter().read(file, id, w::write);
            } catch (MessageLogException e) {
                System.err.println(e.getMessage());
                return 2;
            }
            return 0;
        }
    }

    @Command(name = "agentdojo", mixinStandardHelpOptions = true,
            description = "Recorded AgentDojo runs (DIR: the dataset folder or its runs/ folder) to <suite>.jsonl traces and a runs.jsonl index.")
    static final class AgentDojo implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "DIR", description = "the AgentDojo dataset folder, or its runs/ folder")
        Path dir;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "output folder")
        Path out;

        @Override
        public Integer call() throws IOException {
            if (!Files.isDirectory(dir)) {
                System.err.println("tracegate import agentdojo: " + dir + " is not a directory");
                return 2;
            }
            try {
                List<RunInfo> runs = new AgentDojoImporter(dir).importTo(out);
                long events = runs.stream().mapToLong(RunInfo::events).sum();
                System.out.println("imported " + runs.size() + " runs (" + events + " events) into " + out);
                return 0;
            } catch (MessageLogException e) {
                System.err.println(e.getMessage());
                return 2;
            }
        }
    }
}
