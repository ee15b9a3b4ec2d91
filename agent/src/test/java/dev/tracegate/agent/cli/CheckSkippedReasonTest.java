package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@code check}'s "analysis incomplete" line names the reason a check was skipped (trial13 check-too-large-wrong-advice:
 * a dead-end check skipped because a formula reads 17 atoms was summed up as a state bound, with the advice to raise
 * --max-states, which does not lift it).
 */
class CheckSkippedReasonTest {
    @TempDir Path dir;

    @Test
    void aCheckSkippedForItsAtomCountIsNotBlamedOnTheStateBound() throws Exception {
        StringBuilder wide = new StringBuilder();
        // 17 conditions that can hold together (calls of different tools cannot: an allow-list is checked, below)
        for (int i = 1; i <= 17; i++) wide.append("user_matches(\"w").append(i).append("\") | ");
        Path lib = Files.writeString(dir.resolve("big.yaml"), "library: big\ncontracts:\n"
                + "  - id: b.x\n    guarantee: G((" + wide + "false) -> X call(t1))\n    message: m\n"
                + "  - {id: b.y, guarantee: \"G(call(t1) -> X call(t2))\", message: m}\n");
        for (String bound : new String[] {"20000", "1000000"}) {
            CliRun r = CliRun.of("check", lib.toString(), "--max-states", bound);
            assertThat(r.code()).as("a skipped check is not a pass").isEqualTo(1);
            assertThat(r.out()).contains("TOO_LARGE [b.x, b.y]: dead-end check skipped: a formula of 'b.x' reads 18 atoms")
                    .contains("analysis incomplete: 1 dead-end check was skipped because the contracts read more atoms")
                    .contains("--max-states does not lift that").doesNotContain("one per group of tools")
                    .doesNotContain("needs more than " + bound + " states");
        }
    }

    /** trial36 04: the documented allow-list exited 1 ("analysis incomplete") from 16 tools on. */
    @Test
    void aToolAllowListOfTwentyToolsPassesCheck() throws Exception {
        StringBuilder tools = new StringBuilder();
        for (int i = 0; i < 20; i++) tools.append(i == 0 ? "" : " | ").append("call(t").append(i).append(")");
        Path lib = Files.writeString(dir.resolve("al.yaml"), "library: al\ncontracts:\n"
                + "  - {id: al.only-listed-tools, guarantee: \"G(call -> (" + tools + "))\", message: m}\n");
        CliRun r = CliRun.of("check", lib.toString());
        assertThat(r.out()).doesNotContain("TOO_LARGE").doesNotContain("analysis incomplete");
        assertThat(r.code()).isZero();
    }

    @Test
    void aCheckSkippedForTheStateBoundStillSaysRaiseIt() {
        CliRun r = CliRun.of("check", "--max-states", "2", "sop-refund");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("analysis incomplete:").contains("needs more than 2 states")
                .contains("raise the bound with --max-states N").doesNotContain("does not lift");
    }
}
