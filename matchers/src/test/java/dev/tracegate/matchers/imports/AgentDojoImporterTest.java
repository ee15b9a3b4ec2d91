package dev.tracegate.matchers.imports;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

class AgentDojoImporterTest {
    /** The shared dataset; override with -Dtracegate.agentdojo=DIR. */
    static final Path DATASET = Path.of(System.getProperty("tracegate.agentdojo", "../../shared/datasets/agentdojo"));

    private static String run(String suite, String task, String injection, String attack, boolean utility, boolean security) {
        return "{\"suite_name\":\"" + suite + "\",\"pipeline_name\":\"m\",\"user_task_id\":\"" + task + "\","
                + "\"injection_task_id\":" + (injection == null ? "null" : "\"" + injection + "\"") + ","
                + "\"attack_type\":" + (attack == null ? "null" : "\"" + attack + "\"") + ",\"injections\":{},"
                + "\"messages\":[{\"role\":\"system\",\"content\":\"sys\"},{\"role\":\"user\",\"content\":\"go " + task + "\"},"
                + "{\"role\":\"assistant\",\"content\":null,\"tool_calls\":[{\"function\":\"get_balance\",\"args\":{},\"id\":\"c1\"}]},"
                + "{\"role\":\"tool\",\"content\":\"10\",\"tool_call_id\":\"c1\",\"tool_call\":{\"function\":\"get_balance\",\"args\":{},\"id\":\"c1\"},\"error\":null},"
                + "{\"role\":\"assistant\",\"content\":\"ok\",\"tool_calls\":null}],"
                + "\"error\":null,\"utility\":" + utility + ",\"security\":" + security + ",\"duration\":1.0}";
    }

    private static void put(Path runs, String rel, String json) throws IOException {
        Path f = runs.resolve(rel);
        Files.createDirectories(f.getParent());
        Files.writeString(f, json);
    }

    @Test
    void writesOneTracePerSuiteAndAnIndexThatReadsBack(@TempDir Path dir) throws IOException {
        Path runs = dir.resolve("data/runs");
        put(runs, "m/slack/user_task_10/none/none.json", run("slack", "user_task_10", null, null, true, true));
        put(runs, "m/banking/user_task_2/important_instructions/injection_task_1.json",
                run("banking", "user_task_2", "injection_task_1", "important_instructions", false, true));
        put(runs, "m/banking/user_task_2/none/none.json", run("banking", "user_task_2", null, null, true, true));
        put(runs, "m/banking/injection_task_3/none/none.json", run("banking", "injection_task_3", null, null, true, true));
        put(runs, "m/banking/user_task_10/none/none.json", run("banking", "user_task_10", null, null, false, true));

        Path out = dir.resolve("out");
        List<RunInfo> infos = new AgentDojoImporter(dir.resolve("data")).importTo(out);

        assertThat(infos).extracting(RunInfo::session).containsExactly(
                "banking/injection_task_3/none/none",
                "banking/user_task_2/important_instructions/injection_task_1",
                "banking/user_task_2/none/none",
                "banking/user_task_10/none/none",
                "slack/user_task_10/none/none");
        RunInfo attacked = infos.get(1);
        assertThat(attacked).isEqualTo(new RunInfo("banking/user_task_2/important_instructions/injection_task_1", "m", "banking",
                "user_task_2", "injection_task_1", "important_instructions", false, true,
                "m/banking/user_task_2/important_instructions/injection_task_1.json", 4));
        assertThat(attacked.attacked()).isTrue();
        assertThat(attacked.attackSucceeded()).isTrue();
        assertThat(infos.get(0).injectionTaskAsUser()).isTrue();
        assertThat(infos.get(0).benign()).isFalse();
        assertThat(infos.get(2).benign()).isTrue();
        assertThat(infos.get(2).attackSucceeded()).as("security is meaningless without an attack").isFalse();

        assertThat(AgentDojoImporter.readIndex(out.resolve(AgentDojoImporter.INDEX))).isEqualTo(infos);
        try (Stream<Path> files = Files.list(out)) {
            assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("banking.jsonl", "slack.jsonl", "runs.jsonl");
        }
        List<Event> banking = TraceReader.readAll(out.resolve("banking.jsonl"), TraceReader.Mode.STRICT);
        assertThat(banking).hasSize(16);
        assertThat(banking.subList(4, 8)).extracting(Event::session).containsOnly("banking/user_task_2/important_instructions/injection_task_1");
        assertThat(banking.subList(4, 8)).extracting(Event::seq).containsExactly(1L, 2L, 3L, 4L);
        assertThat(banking.subList(4, 8)).extracting(Event::kind)
                .containsExactly(EventKind.USER, EventKind.CALL, EventKind.RETURN, EventKind.ASSISTANT);
        assertThat(banking.get(4).text()).isEqualTo("go user_task_2");

        // run by run: the same labels, each with exactly its own session's events
        Map<String, List<Event>> byRun = new java.util.LinkedHashMap<>();
        List<RunInfo> again = new AgentDojoImporter(runs).forEachRun((r, events) -> byRun.put(r.session(), events));
        assertThat(again).isEqualTo(infos);
        assertThat(byRun.get(attacked.session())).isEqualTo(banking.subList(4, 8));
        assertThat(byRun.values()).allSatisfy(events -> assertThat(events).hasSize(4));
    }

    @Test
    void labelsThatContradictTheFilesPlaceAreAnError(@TempDir Path dir) throws IOException {
        put(dir, "m/banking/user_task_1/none/none.json", run("banking", "user_task_0", null, null, true, true));
        assertThatThrownBy(() -> new AgentDojoImporter(dir).importAll(e -> { }))
                .isInstanceOfSatisfying(MessageLogException.class, e -> {
                    assertThat(e.source()).endsWith("user_task_1/none/none.json");
                    assertThat(e.jsonPath()).isEqualTo("$.user_task_id");
                    assertThat(e.problem()).contains("\"user_task_0\"").contains("\"user_task_1\"");
                });
    }

    @Test
    void missingVerdictIsAnError(@TempDir Path dir) throws IOException {
        put(dir, "m/banking/user_task_1/none/none.json",
                run("banking", "user_task_1", null, null, true, true).replace("\"utility\":true,", ""));
        assertThatThrownBy(() -> new AgentDojoImporter(dir).importAll(e -> { }))
                .isInstanceOfSatisfying(MessageLogException.class, e -> assertThat(e.jsonPath()).isEqualTo("$.utility"));
    }

    @Test
    void twoModelsWithTheSameRunsMustBeImportedOneAtATime(@TempDir Path dir) throws IOException {
        put(dir, "m1/banking/user_task_1/none/none.json", run("banking", "user_task_1", null, null, true, true));
        put(dir, "m2/banking/user_task_1/none/none.json", run("banking", "user_task_1", null, null, false, true));
        assertThatThrownBy(() -> new AgentDojoImporter(dir).importAll(e -> { }))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("one model at a time");
        assertThat(new AgentDojoImporter(dir, "m2").importAll(e -> { })).singleElement()
                .satisfies(r -> assertThat(r.utility()).isFalse());
    }

    @Test
    void naturalOrderComparesNumbersByValue() {
        assertThat(AgentDojoImporter.natural("user_task_2", "user_task_10")).isNegative();
        assertThat(AgentDojoImporter.natural("user_task_10", "user_task_9")).isPositive();
        assertThat(AgentDojoImporter.natural("a/b", "a/b")).isZero();
        assertThat(AgentDojoImporter.natural("a1", "a1b")).isNegative();
    }

    /** The whole recorded dataset imports without error and with the counts its README states. */
    @Test
    void wholeDatasetImportsWithTheReadmeCounts(@TempDir Path out) throws IOException {
        assumeTrue(Files.isDirectory(DATASET.resolve("runs")),
                "AgentDojo dataset not found at " + DATASET.toAbsolutePath() + "; set -Dtracegate.agentdojo=DIR");
        List<RunInfo> runs = new AgentDojoImporter(DATASET).importTo(out);

        assertThat(runs).hasSize(753);
        assertThat(runs.stream().filter(RunInfo::attacked)).hasSize(629);
        assertThat(runs.stream().filter(RunInfo::attackSucceeded)).hasSize(300);
        assertThat(runs.stream().filter(r -> r.attacked() && r.utility())).hasSize(315);
        assertThat(runs.stream().filter(RunInfo::benign)).hasSize(97);
        assertThat(runs.stream().filter(r -> r.benign() && r.utility())).hasSize(67);
        assertThat(runs.stream().filter(RunInfo::injectionTaskAsUser)).hasSize(27);
        assertThat(runs.stream().filter(r -> r.injectionTaskAsUser() && r.utility())).hasSize(23);
        Map<String, int[]> perSuite = new TreeMap<>();
        for (RunInfo r : runs) {
            int[] c = perSuite.computeIfAbsent(r.suite(), k -> new int[5]);
            if (r.attacked()) c[0]++;
            if (r.attackSucceeded()) c[1]++;
            if (r.benign()) c[2]++;
            if (r.benign() && r.utility()) c[3]++;
            if (r.injectionTaskAsUser()) c[4]++;
        }
        assertThat(perSuite).containsOnlyKeys("banking", "slack", "travel", "workspace");
        assertThat(perSuite.get("banking")).containsExactly(144, 90, 16, 12, 9);
        assertThat(perSuite.get("slack")).containsExactly(105, 97, 21, 17, 5);
        assertThat(perSuite.get("travel")).containsExactly(140, 16, 20, 13, 7);
        assertThat(perSuite.get("workspace")).containsExactly(240, 97, 40, 25, 6);

        // Oracle: count messages and tool calls with a plain tree walk of the run files.
        ObjectMapper json = new ObjectMapper();
        Map<String, Long> expected = new HashMap<>();
        Path runsDir = DATASET.resolve("runs");
        for (RunInfo r : runs) {
            JsonNode file = json.readTree(runsDir.resolve(r.file()).toFile());
            long n = 0;
            for (JsonNode m : file.get("messages")) {
                String role = m.get("role").asText();
                switch (role) {
                    case "user" -> { expected.merge("USER", 1L, Long::sum); n++; }
                    case "tool" -> {
                        expected.merge("RETURN", 1L, Long::sum);
                        if (!m.get("error").isNull()) expected.merge("ERROR", 1L, Long::sum);
                        n++;
                    }
                    case "assistant" -> {
                        if (m.get("content").isTextual() && !m.get("content").asText().isBlank()) {
                            expected.merge("ASSISTANT", 1L, Long::sum);
                            n++;
                        }
                        if (m.get("tool_calls").isArray()) {
                            expected.merge("CALL", (long) m.get("tool_calls").size(), Long::sum);
                            n += m.get("tool_calls").size();
                        }
                    }
                    default -> { }
                }
            }
            assertThat(r.events()).as(r.session()).isEqualTo(n);
        }
        assertThat(expected.get("USER")).isEqualTo(753L);
        assertThat(expected.get("CALL")).as("figure quoted in AGENTDOJO.md").isEqualTo(3247L);
        assertThat(expected.get("ASSISTANT")).as("figure quoted in AGENTDOJO.md").isEqualTo(894L);
        assertThat(expected.get("RETURN")).isEqualTo(expected.get("CALL"));
        assertThat(expected.get("ERROR")).as("failed calls, per the README").isEqualTo(160L);

        Map<String, Long> found = new HashMap<>();
        List<Event> all = new ArrayList<>();
        for (String suite : perSuite.keySet()) all.addAll(TraceReader.readAll(out.resolve(suite + ".jsonl"), TraceReader.Mode.STRICT));
        for (Event e : all) {
            found.merge(e.kind().name(), 1L, Long::sum);
            if (e.error()) found.merge("ERROR", 1L, Long::sum);
        }
        assertThat(found).isEqualTo(expected);
        // every RETURN answers an earlier CALL of its session with the same id, and carries its tool and arguments
        Map<String, Event> lastCall = new HashMap<>();
        for (Event e : all) {
            if (e.kind() == EventKind.CALL) lastCall.put(e.session() + "#" + e.callId(), e);
            if (e.kind() == EventKind.RETURN) {
                Event c = lastCall.get(e.session() + "#" + e.callId());
                assertThat(c).as("call of " + e).isNotNull();
                assertThat(e.tool()).isEqualTo(c.tool());
                assertThat(e.args()).isEqualTo(c.args());
                assertThat(e.seq()).isGreaterThan(c.seq());
            }
        }
        assertThat(AgentDojoImporter.readIndex(out.resolve(AgentDojoImporter.INDEX))).isEqualTo(runs);
    }
}
