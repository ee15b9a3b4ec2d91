package dev.tracegate.bench;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bench/README.md's result tables are what BenchReport writes for the committed results, not hand-edited copies (trial11:
 * rows edited by hand drifted from what the code writes); what a reader must know beyond a table goes in the notes after it.
 * The latest quick run is in bench/README.md; the full run, older, is in bench/HISTORY.md with the other dated results
 * (moved there in session 24), and its tables are held to the same rule.
 */
class ReadmeTablesTest {

    /** Where each run's tables are: the latest quick run in the README, the full run among the dated results. */
    static final java.util.Map<String, String> DOCUMENT = java.util.Map.of("quick", "README.md", "full", "HISTORY.md");

    @ParameterizedTest
    @ValueSource(strings = {"quick", "full"})
    void theReadmeCarriesTheTablesBenchReportGeneratesFromTheCommittedResults(String mode, @TempDir Path dir) throws Exception {
        Path results = Path.of("results");
        // the summary says what the agent loaded when the run was made (older commits loaded fewer contracts)
        com.fasterxml.jackson.databind.JsonNode summary = new com.fasterxml.jackson.databind.ObjectMapper().readTree(results.resolve(mode + "-summary.json").toFile());
        String library = summary.has("agentLibrary") ? summary.get("agentLibrary").asText() : "";
        String r = results + "/" + mode;
        Path tables = dir.resolve(mode + "-tables.md");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--jmh", r + ".json",
                "--call-latency", callLatencyFiles(results, mode),
                "--cpu", r + "-cpu.json", "--latency", r + "-latency.json", "--footprint", r + "-footprint.json",
                "--replay-cli", r + "-summary.json", "--tables", tables.toString()));
        if (!library.isEmpty()) args.addAll(java.util.List.of("--agent-library", library));
        BenchReport.cli(args.toArray(String[]::new));
        String generated = Files.readString(tables).replaceAll("(?m)^#### ", "### ").stripTrailing();
        assertThat(Files.readString(results.resolve(mode + "-tables.md")).replaceAll("(?m)^#### ", "### ").stripTrailing())
                .as("results/%s-tables.md", mode).isEqualTo(generated);
        String doc = DOCUMENT.get(mode);
        assertThat(Files.readString(Path.of(doc))).as("bench/%s holds the %s run's generated tables verbatim", doc, mode)
                .contains(generated);
    }

    /**
     * The latency files in the order run.sh passes them: {@code <mode>-call-latency-detached.json, ...-attached.json}, or,
     * for runs with several (full since f89590a), {@code detached-1, attached-1, detached-2, ...}.
     */
    static String callLatencyFiles(Path results, String mode) {
        java.util.List<String> files = new java.util.ArrayList<>();
        for (int run = 1; Files.exists(results.resolve(mode + "-call-latency-detached-" + run + ".json")); run++) {
            for (String agent : new String[] {"detached", "attached"}) files.add(results.resolve(mode + "-call-latency-" + agent + "-" + run + ".json").toString());
        }
        if (files.isEmpty()) {
            for (String agent : new String[] {"detached", "attached"}) files.add(results.resolve(mode + "-call-latency-" + agent + ".json").toString());
        }
        return String.join(",", files);
    }
}
