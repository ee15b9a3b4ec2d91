package dev.tracegate.agent.cli;

import dev.tracegate.matchers.imports.AgentDojoImporter;
import dev.tracegate.matchers.imports.MessageLogException;
import dev.tracegate.matchers.imports.OpenAiMessagesImporter;
import dev.tracegate.matchers.imports.RunInfo;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code import openai-messages FILE} and {@code import agentdojo DIR}: recorded conversations to tracegate traces. */
@Command(name = "import", mixinStandardHelpOptions = true, version = Main.VERSION, description = "Convert recorded agent conversations to JSONL traces.",
        subcommands = {ImportCommand.OpenAiMessages.class, ImportCommand.AgentDojo.class})
final class ImportCommand implements Callable<Integer> {
    @Spec CommandSpec spec;

    /** No subcommand given: the usage, as a usage error. */
    @Override
    public Integer call() {
        return Main.usage(spec);
    }

    @Command(name = "openai-messages", mixinStandardHelpOptions = true, version = Main.VERSION,
            description = "An OpenAI-style message log (a JSON array of messages, or {\"messages\": [...]}; AgentDojo's schema too) "
                    + "to one session of a JSONL trace.")
    static final class OpenAiMessages implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "FILE", description = "the message log (JSON)")
        Path file;

        @Option(names = "--session", description = "session id for the events (default: the file name)")
        String session;

        @Option(names = "--out", paramLabel = "FILE", description = "write here, only when the whole log converts (default: standard output)")
        Path out;

        @Override
        public Integer call() throws IOException {
            if (!Files.isRegularFile(file)) {
                System.err.println("tracegate import openai-messages: " + file + " is not a file (give the JSON message log to convert)");
                return 2;
            }
            String id = session != null ? session : file.getFileName().toString().replaceFirst("\\.json$", "");
            if (out == null) {
                try (TraceWriter w = new TraceWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))) {
                    convert(file, id, w);
                } catch (MessageLogException e) {
                    System.err.println(e.getMessage());
                    return 2;
                }
                return 0;
            }
            // the trace goes to a file beside --out and replaces it only once the whole log converted: a log that fails
            // half way would otherwise leave a partial trace that replay reads as a whole session
            boolean existed = Files.exists(out);
            Path tmp = temporaryBeside(out);
            boolean done = false;
            try {
                try (TraceWriter w = new TraceWriter(Files.newBufferedWriter(tmp, StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE))) {
                    convert(file, id, w);
                }
                moveIntoPlace(tmp, out);
                done = true;
            } catch (MessageLogException e) {
                System.err.println(e.getMessage());
                System.err.println("tracegate import openai-messages: " + (existed ? out + " is left as it was"
                        : "nothing was written to " + out) + " (a trace is written only when the whole message log converts)");
                return 2;
            } finally {
                if (!done) Files.deleteIfExists(tmp);
            }
            return 0;
        }

        /**
         * The log's events, then an {@code end} line: a message log is one whole conversation, so its session ends there
         * and a later log imported under the same id (two runs' chat.json) replays as a session of its own, not as the
         * continuation of this one (trial27 03). A log without events gives no line at all.
         */
        static void convert(Path file, String id, TraceWriter w) throws IOException {
            Event[] last = new Event[1];
            new OpenAiMessagesImporter().read(file, id, e -> {
                w.write(e);
                last[0] = e;
            });
            if (last[0] != null) {
                w.write(Event.builder(EventKind.END).session(id).seq(last[0].seq() + 1).ts(last[0].ts()).build());
            }
        }

        /** A fresh name in --out's folder (a move within one folder is atomic and cannot fail for lack of space). */
        static Path temporaryBeside(Path out) {
            Path abs = out.toAbsolutePath();
            return abs.resolveSibling("." + abs.getFileName() + "." + ProcessHandle.current().pid() + "."
                    + Long.toHexString(System.nanoTime()) + ".tmp");
        }

        private static void moveIntoPlace(Path tmp, Path out) throws IOException {
            try {
                Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, out, StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    @Command(name = "agentdojo", mixinStandardHelpOptions = true, version = Main.VERSION,
            description = "Recorded AgentDojo runs (DIR: the dataset folder or its runs/ folder) to <suite>.jsonl traces and a runs.jsonl index.")
    static final class AgentDojo implements Callable<Integer> {
        @Parameters(index = "0", paramLabel = "DIR", description = "the AgentDojo dataset folder, or its runs/ folder")
        Path dir;

        @Option(names = "--out", paramLabel = "DIR", required = true, description = "output folder (written only when every run converts)")
        Path out;

        @Override
        public Integer call() throws IOException {
            if (!Files.isDirectory(dir)) {
                System.err.println("tracegate import agentdojo: " + dir + " is not a directory");
                return 2;
            }
            // as openai-messages: the traces and the index are written into a staging folder beside --out and moved
            // into it only once every run converted, so a run that fails halfway leaves no suite trace without its index
            Path staging = OpenAiMessages.temporaryBeside(out);
            boolean moved = false;
            try {
                List<RunInfo> runs = new AgentDojoImporter(dir).importTo(staging);
                Files.createDirectories(out);
                try (java.util.stream.Stream<Path> files = Files.list(staging)) {
                    for (Path f : (Iterable<Path>) files::iterator) {
                        Files.move(f, out.resolve(f.getFileName().toString()), StandardCopyOption.REPLACE_EXISTING);
                    }
                }
                moved = true;
                long events = runs.stream().mapToLong(RunInfo::events).sum();
                System.out.println("imported " + runs.size() + " runs (" + events + " events) into " + out);
                return 0;
            } catch (MessageLogException e) {
                System.err.println(e.getMessage());
                System.err.println("tracegate import agentdojo: nothing was written to " + out
                        + " (traces and index are written only when every run converts)");
                return 2;
            } finally {
                if (!moved) deleteTree(staging);
                else Files.deleteIfExists(staging);
            }
        }

        private static void deleteTree(Path p) {
            if (!Files.exists(p)) return;
            try (java.util.stream.Stream<Path> all = Files.walk(p)) {
                all.sorted(java.util.Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
            } catch (IOException ignored) {
                // a staging folder left behind is named after --out with a dot: harmless, and the message says nothing was written
            }
        }
    }
}
