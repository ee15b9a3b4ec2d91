package dev.tracegate.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.io.File;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine harnesses refuse an option value they cannot measure with, naming the option, what it accepts and its
 * default, before they measure anything (trial22 04: StepLatency --rate -5, --seconds 0 and --seconds -1 exited 0 with
 * latencies of 0 ns from 0 events; --rate 0 died with "/ by zero"); run from the command line, the refusal is one line
 * on standard error and exit status 2.
 */
class HarnessOptionsTest {

    private static final Map<String, Args.Body> HARNESSES = Map.of(
            "StepLatency", StepLatency::cli, "StepCpuTime", StepCpuTime::cli, "SessionFootprint", SessionFootprint::cli,
            "GroundingCpuTime", GroundingCpuTime::cli, "JsonlReplayCpuTime", JsonlReplayCpuTime::cli);

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
        "StepLatency, --rate, -5", "StepLatency, --rate, 0", "StepLatency, --rate, 2000000000", "StepLatency, --rate, abc",
        "StepLatency, --seconds, 0", "StepLatency, --seconds, -1", "StepLatency, --seconds, NaN", "StepLatency, --seconds, 0.000001",
        "StepLatency, --contracts, 0", "StepLatency, --contracts, '10,-1'", "StepLatency, --contracts, 1001",
        "StepLatency, --warmup-events, -1",
        "StepCpuTime, --contracts, 0", "StepCpuTime, --rounds, 0", "StepCpuTime, --events, -3", "StepCpuTime, --shots, 0",
        "StepCpuTime, --trace-lengths, '100,0'", "StepCpuTime, --window, 0",
        "SessionFootprint, --contracts, -1", "SessionFootprint, --sessions, 0", "SessionFootprint, --jol-sessions, 0",
        "GroundingCpuTime, --operations, 0", "GroundingCpuTime, --rounds, -1",
        "JsonlReplayCpuTime, --passes, 0", "JsonlReplayCpuTime, --warmup-seconds, -1",
    })
    void anOutOfRangeValueIsRefusedNamingTheOption(String harness, String option, String value) {
        assertThatThrownBy(() -> HARNESSES.get(harness).run(new String[] {option, value}))
                .isInstanceOf(Args.BadOption.class).hasMessageContaining(option);
    }

    @Test
    void theMessageSaysWhatIsAcceptedAndTheDefault() {
        assertThatThrownBy(() -> StepLatency.cli(new String[] {"--rate", "-5"})).isInstanceOf(Args.BadOption.class)
                .hasMessage("--rate must be a whole number of events per second, from 1 to 1,000,000,000, got '-5';"
                        + " leave --rate out for the default, 100000");
    }

    @Test
    void jsonlTracesRefusesAMissingOutOrADirectoryThatIsNoDataset(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        assertThatThrownBy(() -> JsonlTraces.cli(new String[0])).isInstanceOf(Args.BadOption.class).hasMessageContaining("--out");
        assertThatThrownBy(() -> JsonlTraces.cli(new String[] {"--out", dir.toString(), "--agentdojo", dir.resolve("nope").toString()}))
                .isInstanceOf(Args.BadOption.class).hasMessageContaining("--agentdojo").hasMessageContaining("not an AgentDojo dataset");
        assertThat(dir.resolve("small.jsonl")).as("nothing written before the refusal").doesNotExist();
    }

    /** The refusal from the command line: one line naming the harness and the option, exit status 2, no stack trace. */
    @ParameterizedTest(name = "{0} {1}")
    @CsvSource({"StepLatency, --rate 0", "StepLatency, --seconds 0", "StepCpuTime, --rounds 0",
        "BenchReport, --jmh no-such-dir/ful.json"})
    void fromTheCommandLineARefusalExitsWithStatus2(String harness, String options) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java",
                "-cp", System.getProperty("java.class.path"), "dev.tracegate.bench." + harness));
        cmd.addAll(List.of(options.split(" ")));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isEqualTo(2);
        assertThat(out.strip()).startsWith(harness + ": ").contains(options.split(" ")[0]).doesNotContain("Exception").doesNotContain("\n");
    }
}
