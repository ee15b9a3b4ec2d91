package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** How {@code replay} reads its input: what it takes as an event, what it reports, what is bad input (trial27). */
class ReplayInputTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: l
            contracts:
              - id: l.no-approve
                guarantee: G !call(approve)
                message: The agent may not approve on its own.
              - id: l.send-after-approval
                guarantee: G(call(send) -> O returned(approve))
                message: Send only after an approval.
            """;

    private Path lib() throws Exception {
        return Files.writeString(dir.resolve("l.yaml"), LIBRARY);
    }

    /**
     * trial27 10: a call whose string "args" is not JSON (malformed model output) was skipped as a malformed line while its
     * RETURN was applied, so {@code G !call(approve)} was kept and the send passed (exit 0). Online the agent keeps such
     * arguments as {"_raw": text} and refuses the approve; so does replay now, with a note naming the line.
     */
    @Test
    void aCallWithMalformedArgumentsIsJudgedAsOnline() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"session":"s","kind":"user","text":"pay the invoice"}
                {"session":"s","kind":"call","tool":"approve","id":"c1","args":"amount=5"}
                {"session":"s","kind":"return","tool":"approve","id":"c1","result":"approved"}
                {"session":"s","kind":"call","tool":"send","id":"c2","args":{}}
                {"session":"s","kind":"end"}
                """);
        for (String strict : new String[] {"--mode=enforce", "--strict"}) {
            CliRun r = CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress", strict);
            assertThat(r.out()).as(strict).contains("  l.no-approve: violated first at t.jsonl:2 (seq 2, call approve) (1 event)\n")
                    .contains("  l.send-after-approval: violated first at t.jsonl:4 (seq 4, call send) (1 event)\n")
                    .contains("5 events in 1 sessions, 0 malformed lines skipped");
            assertThat(r.err()).as(strict).startsWith("note: t.jsonl:2:64: field \"args\" holds a string that is not a JSON object"
                    + " (not valid JSON: Unrecognized token 'amount'").doesNotContain("skipped:");
            assertThat(r.code()).as(strict).isEqualTo(1);
        }
    }
}
