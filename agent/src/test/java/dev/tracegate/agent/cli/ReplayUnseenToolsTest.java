package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * replay names a tool the library's contracts name that no event of the traces had, as the agent does at exit
 * (docs/LIBRARY.md, "Errors"): trial42 07 replayed a library with call(wire_mony) over three wire_money calls and got
 * "every contract kept" and nothing else, since a misspelt tool never matches.
 */
class ReplayUnseenToolsTest {
    @TempDir Path dir;

    private Path library() throws Exception {
        return Files.writeString(dir.resolve("ops.yaml"), """
                library: ops
                contracts:
                  - id: ops.cap
                    guarantee: G(call(wire_mony) -> arg(wire_mony, amount) <= 50)
                    message: m
                """);
    }

    private Path trace(String tool) throws Exception {
        StringBuilder t = new StringBuilder();
        for (int i = 1; i <= 3; i++) {
            t.append("{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"").append(tool).append("\",\"id\":\"").append(i)
                    .append("\",\"args\":{\"amount\":5000}}\n");
        }
        return Files.writeString(dir.resolve(tool + ".jsonl"), t);
    }

    @Test
    void aMisspeltToolIsNamedWithTheNearestThatCame() throws Exception {
        CliRun r = CliRun.of("replay", library().toString(), trace("wire_money").toString(), "--no-progress");
        assertThat(r.code()).isZero();   // the contract never acts: kept
        assertThat(r.err()).contains("note: ").contains("wire_mony (line 4; nearest that came: wire_money, 1 edit)");
    }

    @Test
    void aToolThatCameIsNotNamed() throws Exception {
        CliRun r = CliRun.of("replay", library().toString(), trace("wire_mony").toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(1);   // 5000 > 50
        assertThat(r.err()).doesNotContain("no tool event of this run had");
    }
}
