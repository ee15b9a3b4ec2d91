package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session 20: {@code check} of a library of fifty invariants, one per atom of every kind (HashedReplayOracleTest's), ran
 * out of a 6 GB heap (exit 3) since session 19's related atoms; before, it passed in about a second. Run in a JVM of its
 * own with a 256 MB heap, as a CI step on a small runner would: it passes, with no skipped check.
 */
class CheckMemoryBoundTest {
    @TempDir Path dir;

    @Test
    void fiftyInvariantsOverAtomsOfEveryKindPassCheckInA256MbHeap() throws Exception {
        Path lib = Files.writeString(dir.resolve("probe50.yaml"), HashedReplayOracleTest.probeLibrary(HashedReplayOracleTest.ATOMS));
        Path out = dir.resolve("out.txt");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process p = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "check", lib.toString()).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        // a guard against a hang, not a timing: the run takes seconds (before session 20: minutes, then out of memory)
        if (!p.waitFor(10, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("check did not end in 10 minutes: " + Files.readString(out, StandardCharsets.UTF_8));
        }
        String said = Files.readString(out, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(said).isZero();
        assertThat(said).contains("loaded probe: 50 contracts").contains("analysis: consistent, compatible, conflict-free, no dead ends")
                .doesNotContain("TOO_LARGE").doesNotContain("OutOfMemoryError");
    }

    @Test
    void aDeadEndSearchThatNeedsMoreMemoryThanTheBoundAllowsIsSkippedWithTheWayToRaiseIt() throws Exception {
        // eight obligations over conditions one message can meet together, and a contract that reads all of them: the
        // search's join keeps the 2^8 ways they can be
        StringBuilder y = new StringBuilder("library: wide\ncontracts:\n"), any = new StringBuilder();
        for (int i = 0; i < 8; i++) {
            y.append("  - {id: o").append(i).append(", guarantee: 'F user_matches(\"w").append(i).append("\")', message: m}\n");
            any.append(i == 0 ? "" : " | ").append("user_matches(\"w").append(i).append("\")");
        }
        y.append("  - {id: after, guarantee: 'G((").append(any).append(") -> X call(z))', message: m}\n");
        Path lib = Files.writeString(dir.resolve("wide.yaml"), y);
        CliRun r = CliRun.of("check", lib.toString(), "--max-states", "20");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("dead-end check skipped: the product of 9 contracts over")
                .contains("atoms needs more than the 40 KB of working memory that the bound of 20 states allows (2 KB a state);"
                        + " raise the bound with --max-states N (this command's bound for the analysis)")
                .contains("analysis incomplete: ").contains("or more working memory, than that bound allows");
        assertThat(CliRun.of("check", lib.toString(), "--max-states", "5000").out()).as("a bound that allows it")
                .doesNotContain("working memory").doesNotContain("TOO_LARGE");
    }
}
