package dev.tracegate.matchers.imports;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.imports.OpenAiMessagesImporter.EventSink;
import dev.tracegate.matchers.trace.TraceFormatException;
import dev.tracegate.matchers.trace.TraceWriter;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Imports recorded AgentDojo runs ({@code runs/<model>/<suite>/<task>/<attack>/<injection>.json})
 * as tracegate sessions, one per run, each with its labels in a {@link RunInfo}.
 *
 * <p>{@link #importTo(Path)} writes one JSONL trace per suite ({@code <suite>.jsonl}, the runs in
 * natural order of their paths) and an index {@value #INDEX} with one {@link RunInfo} per line, which
 * {@link #readIndex(Path)} reads back. The session id comes from the file's path and is checked
 * against the labels inside the file, so a misplaced file is an error, not a mislabelled trace.
 * Instances are immutable; one import runs on the calling thread.
 */
public final class AgentDojoImporter {
    /** File name of the run index that {@link #importTo(Path)} writes. */
    public static final String INDEX = "runs.jsonl";

    private static final JsonFactory FACTORY = OpenAiMessagesImporter.JSON.getFactory();

    private final Path runsDir;
    private final String model;
    private final OpenAiMessagesImporter messages = new OpenAiMessagesImporter();

    /**
     * Runs under {@code dir}: the dataset directory (holding {@code runs/}) or the {@code runs}
     * directory itself; all models.
     */
    public AgentDojoImporter(Path dir) { this(dir, null); }

    /** As {@link #AgentDojoImporter(Path)}, only the runs of {@code model} (a directory under runs/), or all when null. */
    public AgentDojoImporter(Path dir, String model) {
        Path runs = Files.isDirectory(dir.resolve("runs")) ? dir.resolve("runs") : dir;
        if (!Files.isDirectory(runs)) {
            throw new IllegalArgumentException("AgentDojo directory " + dir + " does not exist; "
                    + "pass the dataset directory (the one holding runs/) or its runs/ directory");
        }
        if (model != null && !Files.isDirectory(runs.resolve(model))) {
            throw new IllegalArgumentException("no model directory " + runs.resolve(model) + "; pick one of " + models(runs));
        }
        this.runsDir = runs;
        this.model = model;
    }

    /** The directory run files are found under. */
    public Path runsDir() { return runsDir; }

    /** The run files, {@code <model>/<suite>/<task>/<attack>/<file>.json} under {@link #runsDir()}, in natural order. */
    public List<Path> runFiles() throws IOException {
        Path base = model == null ? runsDir : runsDir.resolve(model);
        int depth = model == null ? 5 : 4;
        List<Path> out = new ArrayList<>();
        try (Stream<Path> s = Files.walk(base, depth)) {
            s.filter(p -> base.relativize(p).getNameCount() == depth && p.getFileName().toString().endsWith(".json")
                    && Files.isRegularFile(p)).forEach(out::add);
        }
        out.sort(Comparator.comparing(p -> runsDir.relativize(p).toString(), AgentDojoImporter::natural));
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no run files <model>/<suite>/<task>/<attack>/<file>.json under " + runsDir);
        }
        return out;
    }

    /** Imports every run, streaming each run's events to {@code sink}; returns the runs' labels in the same order. */
    public List<RunInfo> importAll(EventSink sink) throws IOException {
        List<RunInfo> runs = new ArrayList<>();
        Map<String, Path> seen = new HashMap<>();
        for (Path f : runFiles()) {
            RunInfo run = importRun(f, sink);
            Path before = seen.put(run.session(), f);
            if (before != null) throw duplicate(before, f, run.session());
            runs.add(run);
        }
        return runs;
    }

    /** Receives one imported run with its events, in order. */
    @FunctionalInterface
    public interface RunSink {
        void accept(RunInfo run, List<Event> events) throws IOException;
    }

    /**
     * Imports every run and hands each to {@code sink} with its events (one run is held in memory at a
     * time), as an evaluation that replays run by run wants them; returns the runs' labels.
     */
    public List<RunInfo> forEachRun(RunSink sink) throws IOException {
        List<RunInfo> runs = new ArrayList<>();
        Map<String, Path> seen = new HashMap<>();
        List<Event> events = new ArrayList<>();
        for (Path f : runFiles()) {
            events.clear();
            RunInfo run = importRun(f, events::add);
            Path before = seen.put(run.session(), f);
            if (before != null) throw duplicate(before, f, run.session());
            sink.accept(run, List.copyOf(events));
            runs.add(run);
        }
        return runs;
    }

    private static IllegalArgumentException duplicate(Path before, Path f, String session) {
        return new IllegalArgumentException("runs " + before + " and " + f + " both map to session " + session
                + "; import one model at a time (new AgentDojoImporter(dir, \"<model>\"))");
    }

    /**
     * Writes {@code <suite>.jsonl} traces and the {@value #INDEX} index into {@code outDir} (created
     * when missing; existing files of those names are replaced). Returns the runs' labels.
     */
    public List<RunInfo> importTo(Path outDir) throws IOException {
        Files.createDirectories(outDir);
        Map<String, TraceWriter> writers = new LinkedHashMap<>();
        List<RunInfo> runs;
        try {
            runs = importAll(e -> {
                String suite = e.session().substring(0, e.session().indexOf('/'));
                TraceWriter w = writers.get(suite);
                if (w == null) {
                    w = TraceWriter.open(outDir.resolve(suite + ".jsonl"));
                    writers.put(suite, w);
                }
                w.write(e);
            });
        } finally {
            IOException first = null;
            for (TraceWriter w : writers.values()) {
                try {
                    w.close();
                } catch (IOException e) {
                    if (first == null) first = e;
                }
            }
            if (first != null) throw first;
        }
        writeIndex(outDir.resolve(INDEX), runs);
        return runs;
    }

    /** Imports one run file (which must lie under {@link #runsDir()} as the layout says). */
    public RunInfo importRun(Path file, EventSink sink) throws IOException {
        Path absRuns = runsDir.toAbsolutePath().normalize();
        Path absFile = file.toAbsolutePath().normalize();
        Path rel = absRuns.relativize(absFile);
        String source = file.toString();
        if (!absFile.startsWith(absRuns) || rel.getNameCount() != 5) {
            throw new MessageLogException(source, 0, 0, "$", "run file is not at <model>/<suite>/<task>/<attack>/<file>.json under "
                    + runsDir, "keep the dataset's directory layout");
        }
        String model = rel.getName(0).toString();
        String suite = rel.getName(1).toString();
        String task = rel.getName(2).toString();
        String attack = rel.getName(3).toString();
        String stem = rel.getName(4).toString().replaceFirst("\\.json$", "");
        String attackType = RunInfo.NONE.equals(attack) ? null : attack;
        String injection = RunInfo.NONE.equals(stem) ? null : stem;
        String session = RunInfo.sessionId(suite, task, attackType, injection);

        try (Reader in = Files.newBufferedReader(file, StandardCharsets.UTF_8); JsonParser p = FACTORY.createParser(in)) {
            OpenAiMessagesImporter.Session s = messages.open(source, session, sink);
            Labels labels = new Labels();
            try {
                if (p.nextToken() != JsonToken.START_OBJECT) {
                    throw s.fail(p, "$", "a run file must hold one JSON object", "use the benchmark's run files unchanged");
                }
                JsonToken t;
                while ((t = p.nextToken()) == JsonToken.FIELD_NAME) {
                    String name = p.currentName();
                    JsonToken v = p.nextToken();
                    JsonLocation at = p.currentTokenLocation();
                    if (name.equals("messages")) {
                        if (v != JsonToken.START_ARRAY) {
                            throw s.fail(at, "$.messages", "\"messages\" must be an array, found "
                                    + OpenAiMessagesImporter.describe(v), "use the benchmark's run files unchanged");
                        }
                        OpenAiMessagesImporter.readMessages(p, s, "$.messages");
                        labels.messages = true;
                    } else if (labels.wants(name)) {
                        JsonNode value = OpenAiMessagesImporter.JSON.readTree(p);
                        labels.put(name, value, s, at);
                    } else {
                        p.skipChildren();
                    }
                }
                if (t != JsonToken.END_OBJECT) throw s.fail(p, "$", "unexpected " + OpenAiMessagesImporter.describe(t), "close the object");
            } catch (StreamReadException e) {
                JsonLocation loc = e.getLocation();
                throw new MessageLogException(source, loc == null ? 0 : loc.getLineNr(), loc == null ? 0 : loc.getColumnNr(),
                        OpenAiMessagesImporter.path(p.getParsingContext()), "not valid JSON: " + TraceFormatException.jsonProblem(e, "file"),
                        "use the benchmark's run files unchanged");
            }
            labels.check(s, suite, task, attackType, injection);
            return new RunInfo(session, model, suite, task, injection, attackType, labels.utility, labels.security,
                    rel.toString().replace('\\', '/'), s.events());
        }
    }

    /** The labels a run file carries, checked against the file's place in the layout. */
    private static final class Labels {
        final Map<String, JsonNode> values = new HashMap<>();
        final Map<String, JsonLocation> where = new HashMap<>();
        boolean messages;
        boolean utility;
        boolean security;

        boolean wants(String name) {
            return switch (name) {
                case "suite_name", "user_task_id", "injection_task_id", "attack_type", "utility", "security" -> true;
                default -> false;
            };
        }

        void put(String name, JsonNode value, OpenAiMessagesImporter.Session s, JsonLocation at) {
            where.put(name, at);
            if (values.put(name, value) != null) {
                throw s.fail(at, "$." + name, "field \"" + name + "\" appears twice", "keep one of them");
            }
        }

        void check(OpenAiMessagesImporter.Session s, String suite, String task, String attack, String injection) {
            if (!messages) throw s.fail((JsonLocation) null, "$", "run has no \"messages\" array", "use the benchmark's run files unchanged");
            expect(s, "suite_name", suite);
            expect(s, "user_task_id", task);
            expect(s, "attack_type", attack);
            expect(s, "injection_task_id", injection);
            utility = bool(s, "utility");
            security = bool(s, "security");
        }

        private void expect(OpenAiMessagesImporter.Session s, String field, String fromPath) {
            JsonNode v = values.get(field);
            String found = v == null || v.isNull() ? null : v.isTextual() ? v.asText() : v.toString();
            if (v == null && fromPath != null) {
                throw s.fail((JsonLocation) null, "$." + field, "label \"" + field + "\" is missing",
                        "add \"" + field + "\":\"" + fromPath + "\"");
            }
            if (found == null ? fromPath != null : !found.equals(fromPath)) {
                throw s.fail(where.get(field), "$." + field, "label \"" + field + "\" is " + (found == null ? "null" : "\"" + found + "\"")
                                + " but the file's path says " + (fromPath == null ? "none" : "\"" + fromPath + "\""),
                        "move the file to the directory its labels name");
            }
        }

        private boolean bool(OpenAiMessagesImporter.Session s, String field) {
            JsonNode v = values.get(field);
            if (v == null || !v.isBoolean()) {
                throw s.fail(where.get(field), "$." + field, "label \"" + field + "\" must be true or false, found "
                        + OpenAiMessagesImporter.describe(v), "use the benchmark's run files unchanged");
            }
            return v.asBoolean();
        }
    }

    /** Writes the run index: one JSON object per line with the fields of {@link RunInfo}. */
    public static void writeIndex(Path file, List<RunInfo> runs) throws IOException {
        try (Writer out = Files.newBufferedWriter(file, StandardCharsets.UTF_8);
             JsonGenerator g = FACTORY.createGenerator(out)) {
            g.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
            g.setRootValueSeparator(null);
            for (RunInfo r : runs) {
                g.writeStartObject();
                g.writeStringField("session", r.session());
                g.writeStringField("model", r.model());
                g.writeStringField("suite", r.suite());
                g.writeStringField("user_task_id", r.userTaskId());
                g.writeStringField("injection_task_id", r.injectionTaskId());
                g.writeStringField("attack_type", r.attackType());
                g.writeBooleanField("utility", r.utility());
                g.writeBooleanField("security", r.security());
                g.writeStringField("file", r.file());
                g.writeNumberField("events", r.events());
                g.writeEndObject();
                g.flush();
                out.write('\n');
            }
        }
    }

    /** Reads a run index written by {@link #importTo(Path)}. */
    public static List<RunInfo> readIndex(Path file) throws IOException {
        List<RunInfo> out = new ArrayList<>();
        try (BufferedReader in = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            String line;
            int n = 0;
            while ((line = in.readLine()) != null) {
                n++;
                if (line.isBlank()) continue;
                JsonNode o;
                try {
                    o = OpenAiMessagesImporter.JSON.readTree(line);
                } catch (IOException e) {
                    throw new MessageLogException(file.toString(), n, 1, "$", "not valid JSON", "re-create the index with import agentdojo");
                }
                try {
                    out.add(new RunInfo(text(o, "session"), text(o, "model"), text(o, "suite"), text(o, "user_task_id"),
                            text(o, "injection_task_id"), text(o, "attack_type"), o.path("utility").asBoolean(),
                            o.path("security").asBoolean(), text(o, "file"), o.path("events").asLong()));
                } catch (NullPointerException e) {
                    throw new MessageLogException(file.toString(), n, 1, "$", "index line lacks " + e.getMessage(),
                            "re-create the index with import agentdojo");
                }
            }
        }
        return out;
    }

    private static String text(JsonNode o, String field) {
        JsonNode v = o.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }

    private static List<String> models(Path runs) {
        try (Stream<Path> s = Files.list(runs)) {
            return s.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    /** Compares strings with digit runs compared as numbers, so user_task_2 sorts before user_task_10. */
    static int natural(String a, String b) {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            char x = a.charAt(i), y = b.charAt(j);
            if (Character.isDigit(x) && Character.isDigit(y)) {
                int si = i, sj = j;
                while (i < a.length() && Character.isDigit(a.charAt(i))) i++;
                while (j < b.length() && Character.isDigit(b.charAt(j))) j++;
                String na = a.substring(si, i).replaceFirst("^0+(?=.)", "");
                String nb = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
                int c = na.length() != nb.length() ? Integer.compare(na.length(), nb.length()) : na.compareTo(nb);
                if (c != 0) return c;
            } else {
                if (x != y) return Character.compare(x, y);
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }
}
