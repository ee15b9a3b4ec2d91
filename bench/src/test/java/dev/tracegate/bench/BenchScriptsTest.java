package dev.tracegate.bench;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * bench/run.sh, bench/startup.sh and bench/boot-startup.sh refuse a bad argument at once, with a usage line, before they build or run anything
 * (trial22 06: {@code run.sh quik} ran the Maven build first; trial22 07: {@code startup.sh 0} printed rows of no runs,
 * {@code startup.sh abc} died with "unbound variable").
 */
class BenchScriptsTest {

    /** Runs {@code bash script args} from bench/ with {@code bin} first on PATH; returns exit status and output. */
    private static String[] run(Path bin, String script, String... args) throws Exception {
        java.util.List<String> cmd = new java.util.ArrayList<>(java.util.List.of("bash", script));
        cmd.addAll(java.util.List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().remove("SKIP_BUILD");
        // no agent jar: startup.sh must refuse RUNS before it looks for one
        pb.environment().put("AGENT_JARS", bin.resolve("no-such-agent.jar").toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as("the script ended").isTrue();
        return new String[] {Integer.toString(p.exitValue()), out};
    }

    /** A stand-in for the named commands that records that it was called. */
    private static Path standIns(Path dir, String... commands) throws Exception {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        for (String c : commands) {
            Path f = bin.resolve(c);
            Files.writeString(f, "#!/bin/sh\necho \"$0 $*\" >> " + dir.resolve("called") + "\n");
            f.toFile().setExecutable(true);
        }
        return bin;
    }

    @Test
    void runShRefusesAMistypedModeBeforeItBuilds(@TempDir Path dir) throws Exception {
        Path bin = standIns(dir, "mvn", "java");
        String[] r = run(bin, "run.sh", "quik");
        assertThat(r[0]).as("exit status").isEqualTo("2");
        assertThat(r[1]).contains("usage:").contains("quick|full").contains("'quik'");
        assertThat(dir.resolve("called")).as("neither mvn nor java was started").doesNotExist();
    }

    @ParameterizedTest
    @ValueSource(strings = {"0", "-2", "abc", "libraries=sop-refund"})
    void startupShRefusesARunsThatIsNotAPositiveWholeNumber(String runs, @TempDir Path dir) throws Exception {
        Path bin = standIns(dir, "java", "javac");
        String[] r = run(bin, "startup.sh", runs, "libraries=sop-refund");
        assertThat(r[0]).as("exit status").isEqualTo("2");
        assertThat(r[1]).contains("RUNS").contains("'" + runs + "'").contains("usage: bench/startup.sh [RUNS] [AGENT_ARGS...]")
                .doesNotContain("unbound variable");
        assertThat(dir.resolve("called")).as("no JVM was started").doesNotExist();
    }

    /** bench/boot-startup.sh (the Spring Boot service's start-up) refuses a bad RUNS before it packages or runs anything. */
    @ParameterizedTest
    @ValueSource(strings = {"0", "-2", "abc", "5x"})
    void bootStartupShRefusesARunsThatIsNotAPositiveWholeNumber(String runs, @TempDir Path dir) throws Exception {
        Path bin = standIns(dir, "java", "mvn");
        String[] r = run(bin, "boot-startup.sh", runs);
        assertThat(r[0]).as("exit status").isEqualTo("2");
        assertThat(r[1]).contains("RUNS").contains("'" + runs + "'").contains("usage: bench/boot-startup.sh [RUNS]")
                .doesNotContain("unbound variable");
        assertThat(dir.resolve("called")).as("neither mvn nor java was started").doesNotExist();
    }

    /** Without an agent jar it says how to build one, before it packages the service. */
    @org.junit.jupiter.api.Test
    void bootStartupShWantsTheAgentJarBeforeItPackagesTheService(@TempDir Path dir) throws Exception {
        Path bin = standIns(dir, "java", "mvn");
        String[] r = run(bin, "boot-startup.sh", "3");
        assertThat(r[0]).as("exit status").isEqualTo("2");
        assertThat(r[1]).contains("no agent jar at").contains("mvn -q -pl agent -am package");
        assertThat(dir.resolve("called")).as("neither mvn nor java was started").doesNotExist();
    }
}
