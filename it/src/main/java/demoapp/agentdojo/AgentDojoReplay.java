package demoapp.agentdojo;

import demoapp.Console;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import dev.langchain4j.service.tool.ToolExecutor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Replays recorded AgentDojo runs through a real LangChain4j AI service: a scripted model emits each
 * run's recorded turns, and every tool the runs call exists and returns its recorded result (or
 * throws its recorded error). The chat memory id is the run id. Usage:
 * {@code AgentDojoReplay [--slow-turn-ms=N] RUN.json... | DIR... | @LIST}, where a directory stands for
 * its run files in name order and a list file holds one path per line; {@code --slow-turn-ms} makes the
 * model take N ms over each run's second turn, as a real model sometimes does.
 */
public final class AgentDojoReplay {

    interface Assistant {
        String chat(@MemoryId String run, @UserMessage String request);
    }

    /** The recorded outcomes of the run that is playing, handed out call by call. */
    static final class RecordedTools {
        private volatile RecordedRun run;
        private final List<RecordedRun.Call> unanswered = new ArrayList<>();
        private int ran;

        synchronized void play(RecordedRun run) {
            this.run = run;
            unanswered.clear();
            unanswered.addAll(run.calls());
        }

        /** Runs one call: the oldest recorded call of this id and tool not yet answered. */
        synchronized String execute(ToolExecutionRequest request, Object memoryId) {
            RecordedRun r = run;
            if (!r.id().equals(String.valueOf(memoryId))) {
                throw new IllegalStateException("tool " + request.name() + " called for " + memoryId + " while run " + r.id() + " plays");
            }
            for (int i = 0; i < unanswered.size(); i++) {
                RecordedRun.Call c = unanswered.get(i);
                if (c.id().equals(request.id()) && c.tool().equals(request.name())) {
                    unanswered.remove(i);
                    ran++;
                    Console.line("TOOL RAN run=" + r.id() + " call=" + c.ordinal() + " tool=" + c.tool());
                    if (c.error() != null) throw new RecordedToolError(c.error());
                    return c.result();
                }
            }
            throw new IllegalStateException("run " + r.id() + " recorded no unanswered call " + request.id() + " of " + request.name());
        }

        synchronized int ran() {
            return ran;
        }
    }

    /** A tool failure as the benchmark recorded it; its message is what the model reads. */
    static final class RecordedToolError extends RuntimeException {
        RecordedToolError(String message) {
            super(message, null, false, false);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length == 0) {
            System.err.println("usage: AgentDojoReplay [--slow-turn-ms=N] RUN.json... | DIR... | @LIST");
            System.exit(2);
        }
        long slowTurnMillis = 0;
        List<String> inputs = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("--slow-turn-ms=")) slowTurnMillis = Long.parseLong(a.substring("--slow-turn-ms=".length()));
            else inputs.add(a);
        }
        List<RecordedRun> runs = new ArrayList<>();
        for (Path file : files(inputs)) runs.add(RecordedRun.read(file));
        Map<String, RecordedRun> byId = new HashMap<>();
        for (RecordedRun r : runs) {
            RecordedRun before = byId.put(r.id(), r);
            if (before != null) throw new IllegalArgumentException("runs " + before.file() + " and " + r.file() + " have the same id " + r.id());
        }

        ScriptedModel model = new ScriptedModel(slowTurnMillis);
        RecordedTools recorded = new RecordedTools();
        TreeSet<String> names = new TreeSet<>();
        for (RecordedRun r : runs) for (RecordedRun.Call c : r.calls()) names.add(c.tool());
        Map<ToolSpecification, ToolExecutor> tools = new LinkedHashMap<>();
        for (String name : names) {
            tools.put(ToolSpecification.builder().name(name).description("AgentDojo tool " + name + " (recorded results)").build(),
                    recorded::execute);
        }
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(model)
                .tools(tools)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(10_000))
                .systemMessageProvider(id -> byId.get(String.valueOf(id)).system())
                .build();

        int calls = 0;
        int failed = 0;
        for (RecordedRun r : runs) {
            model.play(r);
            recorded.play(r);
            calls += r.calls().size();
            try {
                String answer = assistant.chat(r.id(), r.user());
                Console.line("ANSWER run=" + r.id() + ": " + ScriptedModel.oneLine(answer));
            } catch (RuntimeException e) {
                failed++;
                Console.line("RUN FAILED run=" + r.id() + " (" + r.file() + ")");
                Console.exception(e);
            }
        }
        Console.line("REPLAYED runs=" + runs.size() + " calls=" + calls + " ran=" + recorded.ran() + " failed=" + failed);
        if (failed > 0) System.exit(1);
    }

    private static List<Path> files(List<String> args) throws IOException {
        List<Path> out = new ArrayList<>();
        for (String a : args) {
            if (a.startsWith("@")) {
                for (String line : Files.readAllLines(Path.of(a.substring(1)))) if (!line.isBlank()) out.add(Path.of(line.strip()));
            } else if (Files.isDirectory(Path.of(a))) {
                try (Stream<Path> s = Files.walk(Path.of(a))) {
                    s.filter(p -> p.toString().endsWith(".json") && Files.isRegularFile(p)).sorted().forEach(out::add);
                }
            } else {
                out.add(Path.of(a));
            }
        }
        return out;
    }
}
