package dev.tracegate.it.agentdojo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The online side: the LangChain4j replay application ({@code demoapp.agentdojo.AgentDojoReplay}) in a
 * forked JVM under the built agent jar, configured with a suite's libraries, and what its audit log
 * recorded per session.
 */
final class OnlineReplay {
    static final String APP = "demoapp.agentdojo.AgentDojoReplay";

    /** What one forked JVM printed and recorded. */
    record Result(int exit, String stdout, String stderr, Map<String, List<Observed>> sessions) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout ---\n" + tail(stdout) + "--- stderr ---\n" + tail(stderr);
        }

        private static String tail(String s) {
            return s.length() > 20_000 ? "..." + s.substring(s.length() - 20_000) : s;
        }
    }

    private OnlineReplay() {
    }

    /** A forked replay that is running. */
    static final class Fork {
        private final String suite;
        private final int runs;
        private final Process process;
        private final List<String> command;
        private final Path out, err, audit;

        private Fork(String suite, int runs, Process process, List<String> command, Path out, Path err, Path audit) {
            this.suite = suite;
            this.runs = runs;
            this.process = process;
            this.command = command;
            this.out = out;
            this.err = err;
            this.audit = audit;
        }

        /** Ends the JVM if it still runs (after a failed comparison). */
        void stop() {
            if (process.isAlive()) process.destroyForcibly();
        }

        /** Waits for the replay to end and reads what it printed and recorded. */
        Result finish(long timeoutSeconds) throws IOException, InterruptedException {
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new AssertionError("the replay of " + runs + " " + suite + " runs did not finish in " + timeoutSeconds + " s: "
                        + command + "\n" + Files.readString(out) + Files.readString(err));
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8),
                    Files.exists(audit) ? sessions(audit) : Map.of());
        }
    }

    /**
     * Starts replaying {@code runs} (run files of one suite) under the agent configured with
     * {@code libraries} (every other setting at its default), in a JVM of its own, with the app's
     * {@code appOptions}; its files go to {@code dir}.
     */
    static Fork start(Path dir, String suite, List<String> libraries, List<Path> runs, List<String> appOptions) throws IOException {
        Path audit = dir.resolve(suite + "-audit.jsonl");
        Path config = dir.resolve(suite + ".yaml");
        StringBuilder libs = new StringBuilder();
        for (String l : libraries) libs.append(libs.length() == 0 ? "" : ", ").append('"').append(l).append('"');
        Files.writeString(config, "libraries: [" + libs + "]\nmode: enforce\nfail: closed\naudit.path: " + audit
                + "\naudit.personal-data: clear\nview: off\n");
        Path list = dir.resolve(suite + "-runs.txt");
        List<String> lines = new ArrayList<>();
        for (Path r : runs) lines.add(r.toAbsolutePath().toString());
        Files.write(list, lines);

        // A short-lived JVM: C1 only and the serial collector halve its start-up CPU (weaving dominates);
        // neither changes anything the agent or the app decides.
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC",
                "-javaagent:" + agentJar() + "=config=" + config, "-cp", appClasspath(), APP));
        command.addAll(appOptions);
        command.add("@" + list);
        command = dev.tracegate.it.AppCds.apply(command);
        Path out = dir.resolve(suite + "-out.txt");
        Path err = dir.resolve(suite + "-err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        return new Fork(suite, runs.size(), p, command, out, err, audit);
    }

    /**
     * The audit log's event and END records, per session in the log's order (the agent records a
     * session's events in the order it decided them, so an END before the last event shows up as such).
     */
    static Map<String, List<Observed>> sessions(Path audit) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<String, List<Observed>> out = new LinkedHashMap<>();
        Map<Integer, JsonNode> libraries = new LinkedHashMap<>();   // format 3: lib number -> its latest library record
        for (String line : Files.readAllLines(audit, StandardCharsets.UTF_8)) {
            JsonNode rec = json.readTree(line);
            if ("library".equals(rec.path("rec").asText())) libraries.put(rec.path("lib").asInt(), rec);
            if (!"event".equals(rec.path("rec").asText())) continue;
            String kind = rec.path("kind").asText();
            List<String> fired = new ArrayList<>();
            rec.path("fired").forEach(f -> fired.add(f.asText()));
            List<String> atoms = new ArrayList<>();
            Map<String, String> verdicts = new LinkedHashMap<>();
            if (rec.has("lib")) {
                // format 3 (agent/CONFIG.md "The audit log"): hex digit k holds atoms 4k..4k+3, one letter per contract
                JsonNode lib = libraries.get(rec.path("lib").asInt());
                if (lib == null) throw new IllegalStateException("audit record names library " + rec.path("lib") + " before any library record: " + line);
                String hex = rec.path("atoms").asText();
                for (int k = 0; k < hex.length(); k++) {
                    int d = Character.digit(hex.charAt(k), 16);
                    for (int j = 0; j < 4; j++) if ((d & 1 << j) != 0) atoms.add(lib.path("atoms").get(4 * k + j).asText());
                }
                String letters = rec.path("verdicts").asText();
                for (int c = 0; c < letters.length(); c++) {
                    verdicts.put(lib.path("contracts").get(c).asText(), switch (letters.charAt(c)) {
                        case 'I' -> "IDLE";
                        case 'A' -> "ACTIVE";
                        case 'F' -> "FAIL";
                        default -> "UNKNOWN(" + letters.charAt(c) + ")";
                    });
                }
            } else {
                rec.path("atoms").forEach(a -> atoms.add(a.asText()));
                for (Iterator<Map.Entry<String, JsonNode>> it = rec.path("verdicts").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> v = it.next();
                    verdicts.put(v.getKey(), v.getValue().asText());
                }
            }
            atoms.sort(null);
            boolean message = kind.equals("user") || kind.equals("assistant");
            Observed o = new Observed(kind, rec.path("seq").asLong(), -1, text(rec, "tool"),
                    kind.equals("call") ? rec.get("args") : null, message ? text(rec, "text") : null,
                    kind.equals("return") ? text(rec, "result") : null, rec.path("error").asBoolean(false),
                    rec.path("decision").asText(), fired, atoms, verdicts);
            out.computeIfAbsent(rec.path("session").asText(), s -> new ArrayList<>()).add(o);
        }
        return out;
    }

    private static String text(JsonNode rec, String field) {
        JsonNode v = rec.get(field);
        return v == null || v.isNull() ? null : v.isTextual() ? v.asText() : v.toString();
    }

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("tracegate.agent.jar", "../agent/target/tracegate-agent.jar")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("agent jar " + jar + " not found: run mvn -pl it -am verify from the top");
        }
        return jar;
    }

    static String appClasspath() throws IOException {
        Path file = Path.of(System.getProperty("tracegate.app.classpath.file", "target/app-classpath.txt"));
        if (!Files.isRegularFile(file)) {
            throw new IllegalStateException("app classpath file " + file + " missing: the it module's generate-test-resources phase writes it");
        }
        return System.getProperty("tracegate.app.classes", "target/classes") + File.pathSeparator + Files.readString(file).strip();
    }
}
