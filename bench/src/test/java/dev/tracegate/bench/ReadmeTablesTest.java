package dev.tracegate.bench;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bench/README.md's result tables are what BenchReport writes for the committed results, not hand-edited copies (trial11:
 * rows edited by hand drifted from what the code writes); what a reader must know beyond a table goes in the notes after it.
 */
class ReadmeTablesTest {

    @ParameterizedTest
    @CsvSource({"quick,''", "full,'sop-refund library, 2 contracts at that commit'"})
    void theReadmeCarriesTheTablesBenchReportGeneratesFromTheCommittedResults(String mode, String library, @TempDir Path dir) throws Exception {
        Path results = Path.of("results");
        String r = results + "/" + mode;
        Path tables = dir.resolve(mode + "-tables.md");
        java.util.List<String> args = new java.util.ArrayList<>(java.util.List.of("--jmh", r + ".json",
                "--call-latency", r + "-call-latency-detached.json," + r + "-call-latency-attached.json",
                "--cpu", r + "-cpu.json", "--latency", r + "-latency.json", "--footprint", r + "-footprint.json",
                "--replay-cli", r + "-summary.json", "--tables", tables.toString()));
        if (!library.isEmpty()) args.addAll(java.util.List.of("--agent-library", library));
        BenchReport.main(args.toArray(String[]::new));
        String generated = Files.readString(tables).replaceAll("(?m)^#### ", "### ").stripTrailing();
        assertThat(Files.readString(results.resolve(mode + "-tables.md")).replaceAll("(?m)^#### ", "### ").stripTrailing())
                .as("results/%s-tables.md", mode).isEqualTo(generated);
        assertThat(Files.readString(Path.of("README.md"))).as("bench/README.md holds the %s run's generated tables verbatim", mode)
                .contains(generated);
    }
}
