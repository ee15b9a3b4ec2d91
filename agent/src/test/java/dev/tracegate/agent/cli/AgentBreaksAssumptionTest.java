package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An assumption over the agent's own calls lets the agent switch its contract off (trial7 repro 8): {@code check} notes
 * it, and {@code replay} names the line of the agent event that broke the assumption, as it does for an environment
 * event (the event is applied: an agent event that breaks an assumption is not refused).
 */
class AgentBreaksAssumptionTest {
    @TempDir Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static final String LIBRARY = "library: ag2\ncontracts:\n  - id: ag2.pay-once\n    assume: G !call(debug_mode)\n"
            + "    guarantee: G(count(pay) <= 1)\n    message: one payment\n";

    @Test
    void checkNotesTheContractAndTheAgentAtomsOfItsAssumption() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        CliRun check = run("check", lib.toString());
        assertThat(check.code()).as("a note, not a finding").isZero();
        assertThat(check.out()).contains("note: " + lib + ":3: contract ag2.pay-once's assumption (G !call(debug_mode)) reads the"
                + " agent's own events (call(debug_mode)), so the agent can break the assumption and so escape the guarantee");
        Path env = Files.writeString(dir.resolve("env.yaml"), "library: ag\ncontracts:\n  - id: ag.lookup-first\n"
                + "    assume: G !failed(lookup)\n    guarantee: G(call(refund) -> O returned(lookup))\n    message: Look up first.\n");
        assertThat(run("check", env.toString()).out()).doesNotContain("agent's own events");
    }

    @Test
    void replayNamesTheAgentEventThatBrokeTheAssumption() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"session":"s","kind":"call","tool":"pay","args":{}}
                {"session":"s","kind":"call","tool":"debug_mode","args":{}}
                {"session":"s","kind":"call","tool":"pay","args":{}}
                {"session":"s","kind":"call","tool":"pay","args":{}}
                """);
        for (String mode : new String[] {"enforce", "shadow"}) {
            CliRun replay = run("replay", lib.toString(), trace.toString(), "--no-progress", "--mode", mode);
            assertThat(replay.out()).as(mode).contains("  ag2.pay-once: assumption broken first at t.jsonl:2 (seq 2, call debug_mode) by an agent event\n")
                    .contains("  ag2.pay-once: IDLE at end");
            CliRun json = run("replay", lib.toString(), trace.toString(), "--no-progress", "--mode", mode, "--format", "json");
            assertThat(json.out()).as(mode).contains("\"firstAssumptionBreak\" : \"t.jsonl:2 (seq 2, call debug_mode) by an agent event\"");
        }
    }
}
