package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The text report writes the control characters of what comes from the recorded data (session ids, tool names) as
 * JSON writes them, so a trace cannot make lines of the report that no session produced (trial27 05: a session id
 * {@code "x\nsession forged: every contract kept"} printed a line {@code session forged: every contract kept}).
 */
class ReplayTextEscapesTest {
    @TempDir Path dir;

    @Test
    void aLineBreakInASessionIdOrToolNameMakesNoLineOfTheReport() throws Exception {
        Path lib = Files.writeString(dir.resolve("l.yaml"), "library: l\ncontracts:\n"
                + "  - id: l.max-one\n    guarantee: G(count(search) <= 1)\n    message: m\n"
                + "  - id: l.only-search\n    guarantee: G(call -> call(search))\n    message: m\n");
        String forgedId = "{\"session\":\"x\\nsession forged: every contract kept\",\"kind\":\"call\",\"tool\":\"search\",\"args\":{}}";
        String forgedTool = "{\"session\":\"y\",\"kind\":\"call\",\"tool\":\"search\\r\\nsession forged2: every\\u2028contract kept\\u0007\",\"args\":{}}";
        Path trace = Files.writeString(dir.resolve("t.jsonl"), String.join("\n", forgedId, forgedId, forgedTool, forgedTool) + "\n");

        CliRun r = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress");

        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out().lines()).noneMatch(l -> l.startsWith("session forged"));
        assertThat(r.out()).doesNotContain("\u2028").doesNotContain("\u0007").doesNotContain("\r")
                .contains("session x\\nsession forged: every contract kept:\n  l.max-one: violated first at t.jsonl:2 (seq 2, call search)")
                .contains("  l.only-search: violated first at t.jsonl:3 (seq 3, call search\\r\\nsession forged2: every\\u2028contract kept\\u0007)");

        // the JSON report holds the ids as they are (its own escapes)
        CliRun json = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress", "--format", "json");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out()).path("sessions").get(0).path("session").asText())
                .isEqualTo("x\nsession forged: every contract kept");
    }
}
