package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.contracts.eval.AgentDojoEvaluation;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.imports.AgentDojoImporter;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The AgentDojo evaluation and {@code replay --mode enforce} decide every recorded run alike, results of refused calls
 * included: the evaluation's steps of the recommended row ({@link AgentDojoEvaluation#steps}) against what the command
 * line's {@code replay} reports for the imported traces (per session and contract, the events it was violated on, the
 * first of them and the events withheld; per session the results of refused calls not applied). Before the evaluation
 * shared replay's rule ({@code RefusedCalls}), it applied those results, and 4 attacked slack runs disagreed (a later
 * call blocked by the evaluation only, because its value came from a refused fetch's recorded page).
 */
class AgentDojoReplayOracleTest {
    @TempDir Path dir;

    /** The dataset: -Dtracegate.agentdojo=DIR, else ../shared/datasets/agentdojo beside the checkout; the test is skipped without it. */
    private static Path dataset() {
        String p = System.getProperty("tracegate.agentdojo");
        Path d = p != null ? Path.of(p) : Path.of("..", "..", "shared", "datasets", "agentdojo");
        boolean present = Files.isDirectory(d.resolve("runs")) && Files.isRegularFile(d.resolve("injection_targets.json"));
        if (!present) System.out.println("SKIPPED: AgentDojo dataset not found at " + d.toAbsolutePath().normalize());
        Assumptions.assumeTrue(present, "AgentDojo dataset not found at " + d.toAbsolutePath().normalize() + " (pass -Dtracegate.agentdojo=DIR)");
        return d;
    }

    @Test
    void theEvaluationDecidesEveryRunAsReplayInEnforceModeDoes() throws Exception {
        Path data = dataset();
        Path traces = dir.resolve("traces");
        assertThat(CliRun.of("import", "agentdojo", data.toString(), "--out", traces.toString()).code()).isZero();
        ObjectMapper json = new ObjectMapper();
        Map<String, JsonNode> replayed = new HashMap<>();
        for (String suite : List.of("banking", "slack", "travel", "workspace")) {
            CliRun r = CliRun.of("replay", "injection,builtin:agentdojo/" + suite, traces.resolve(suite + ".jsonl").toString(),
                    "--format", "json", "--no-progress");
            assertThat(r.code()).as(r.err()).isEqualTo(1);   // contracts fail on these runs
            for (JsonNode s : json.readTree(r.out()).get("sessions")) replayed.put(s.get("session").asText(), s);
        }
        AgentDojoEvaluation.Defence row = AgentDojoEvaluation.recommended();
        Map<String, Library> libs = new HashMap<>();
        List<String> differences = new ArrayList<>();
        int[] runs = {0}, notApplied = {0}, runsWithNotApplied = {0}, fired = {0};
        new AgentDojoImporter(data, null).forEachRun((run, events) -> {
            runs[0]++;
            Library lib = libs.computeIfAbsent(run.suite(), s -> AgentDojoEvaluation.library(s, row));
            List<Replay.Step> steps = AgentDojoEvaluation.steps(lib, run.session(), events);
            int n = lib.contracts().contracts().size();
            int[] fires = new int[n], withheld = new int[n];
            long[] first = new long[n];
            int skipped = 0;
            for (int i = 0; i < steps.size(); i++) {
                Replay.Step s = steps.get(i);
                if (s == null) {
                    skipped++;
                    continue;
                }
                for (int c : s.contracts()) {
                    if (s.decision() == Decision.Kind.SUPPRESS) withheld[c]++;
                    else if (fires[c]++ == 0) first[c] = events.get(i).seq();
                }
            }
            JsonNode r = replayed.get(run.session());
            if (r == null) {
                differences.add(run.session() + ": not in replay's report");
                return;
            }
            notApplied[0] += r.get("resultsNotApplied").asInt();
            if (r.get("resultsNotApplied").asInt() > 0) runsWithNotApplied[0]++;
            if (r.get("resultsNotApplied").asInt() != skipped) {
                differences.add(run.session() + ": results not applied: evaluation " + skipped + ", replay " + r.get("resultsNotApplied"));
            }
            for (JsonNode c : r.get("contracts")) {
                int k = lib.contracts().indexOf(c.get("id").asText());
                String firstSeq = c.get("firstViolation").isNull() ? null
                        : c.get("firstViolation").asText().replaceAll(".*\\(seq (\\d+),.*", "$1");
                String want = fires[k] == 0 ? null : Long.toString(first[k]);
                fired[0] += fires[k];
                if (c.get("events").asInt() != fires[k] || c.get("withheld").asInt() != withheld[k]
                        || !java.util.Objects.equals(firstSeq, want)) {
                    differences.add(run.session() + " " + c.get("id").asText() + ": evaluation " + fires[k] + " events from seq " + want
                            + ", " + withheld[k] + " withheld; replay " + c.get("events") + " from " + c.get("firstViolation")
                            + ", " + c.get("withheld") + " withheld");
                }
            }
        });
        assertThat(runs[0]).isEqualTo(753);
        assertThat(replayed).hasSize(753);
        documentedReplayAgrees(replayed, notApplied[0]);
        assertThat(differences).as("%d runs, %d results not applied", runs[0], notApplied[0]).isEmpty();
        // the comparison covers refused calls whose recorded results replay left out, and the blocks after them
        assertThat(runsWithNotApplied[0]).as("runs with results of refused calls not applied").isGreaterThan(100);
        assertThat(fired[0]).isGreaterThan(500);
    }

    /**
     * docs/agentdojo/README.md, "Running it", shows this replay's output: the slack runs without an attack that a
     * contract fails (its jq line) and the results left out in all. trial42 01: it still said three runs and 408 after
     * the replay's rule changed (four and 412).
     */
    private static void documentedReplayAgrees(Map<String, JsonNode> replayed, int notApplied) throws Exception {
        String readme = java.nio.file.Files.readString(Path.of("..", "docs", "agentdojo", "README.md"));
        java.util.regex.Matcher block = java.util.regex.Pattern.compile(
                "\\$ jq -r '[^\n]*' slack\\.json \\| grep none/none\\n(.*?)\\n```", java.util.regex.Pattern.DOTALL).matcher(readme);
        assertThat(block.find()).as("the README's jq example for slack").isTrue();
        List<String> blocked = new ArrayList<>();
        for (JsonNode s : replayed.values()) {
            String id = s.get("session").asText();
            if (!id.startsWith("slack/") || !id.contains("none/none")) continue;
            for (JsonNode c : s.get("contracts")) if (!c.get("firstViolation").isNull()) { blocked.add(id); break; }
        }
        java.util.Collections.sort(blocked);
        List<String> documented = new ArrayList<>(List.of(block.group(1).strip().split("\\n")));
        java.util.Collections.sort(documented);
        assertThat(documented).as("slack runs without an attack that a contract fails, as docs/agentdojo/README.md lists them").isEqualTo(blocked);
        java.util.regex.Matcher total = java.util.regex.Pattern.compile("`resultsNotApplied`; (\\d+) in all").matcher(readme);
        assertThat(total.find()).as("the README's total of results left out").isTrue();
        assertThat(Integer.parseInt(total.group(1))).as("results left out in all, as docs/agentdojo/README.md says").isEqualTo(notApplied);
    }
}
