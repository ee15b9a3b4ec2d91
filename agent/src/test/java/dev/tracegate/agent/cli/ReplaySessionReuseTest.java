package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A session id used again after its {@code end} line starts a new session, and {@code replay} reports both under the
 * one id (docs/FORMULAS.md): the first session's end verdict and unmet obligations stay reported (trial10 repro
 * replay-unmet-lost-on-session-reuse: they were overwritten by the second session's, exit 0). Oracle: the same lines
 * with every session given an id of its own replay to the same verdicts, violations and unmet obligations, in order.
 */
class ReplaySessionReuseTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: close
            contracts:
              - id: close.tickets
                guarantee: G(call(open_ticket) -> F returned(close_ticket))
                message: Close every ticket you open.
              - id: close.no-delete
                guarantee: G !call(delete)
                message: Never delete.
            """;

    private static final String OPEN = "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"open_ticket\"}";
    private static final String CLOSED = "{\"session\":\"s\",\"kind\":\"return\",\"tool\":\"close_ticket\",\"result\":\"ok\"}";
    private static final String HI = "{\"session\":\"s\",\"kind\":\"user\",\"text\":\"hi\"}";
    private static final String DELETE = "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"delete\"}";
    private static final String END = "{\"session\":\"s\",\"kind\":\"end\"}";

    @Test
    void anUnmetObligationOfAnEndedSessionSurvivesALaterSessionWithItsId() throws Exception {
        Path lib = Files.writeString(dir.resolve("close.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("reuse.jsonl"), String.join("\n", OPEN, END, HI, END) + "\n");
        CliRun r = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress");
        assertThat(r.code()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(r.out()).contains("session s:\n  close.tickets: FAIL at end\n  close.tickets: unmet obligation at end")
                .contains("session s: every contract kept")
                .contains("2 events in 2 sessions");   // end lines are no events (trial36 05)
        assertThat(r.out().lines().filter(l -> l.startsWith("close.tickets")).findFirst().orElseThrow())
                .as("one session left it unmet").matches("close\\.tickets\\s+0\\s+0\\s+1");
    }

    @Test
    void eachSessionOfAReusedIdReplaysAsIfItHadAnIdOfItsOwn() throws Exception {
        Path lib = Files.writeString(dir.resolve("close.yaml"), LIBRARY);
        List<List<String>> traces = List.of(
                List.of(OPEN, END, HI, END),
                List.of(OPEN, END, OPEN, END),              // both unmet: 2 in the summary
                List.of(OPEN, END, OPEN),                    // the second ends with the replay, not with an end line
                List.of(HI, END, OPEN, CLOSED),              // both kept
                List.of(DELETE, END, OPEN, CLOSED, END, HI), // a violation only in the first of three
                List.of(OPEN, CLOSED, END, DELETE, OPEN, END, END));
        int k = 0;
        for (List<String> lines : traces) {
            Path reused = Files.createDirectories(dir.resolve("reused" + k));
            Path own = Files.createDirectories(dir.resolve("own" + k++));
            Files.writeString(reused.resolve("t.jsonl"), String.join("\n", lines) + "\n");
            Files.writeString(own.resolve("t.jsonl"), String.join("\n", ownIds(lines)) + "\n");
            CliRun got = CliRun.of("replay", lib.toString(), reused.resolve("t.jsonl").toString(), "--no-progress", "--format", "json");
            CliRun oracle = CliRun.of("replay", lib.toString(), own.resolve("t.jsonl").toString(), "--no-progress", "--format", "json");
            assertThat(got.code()).as(lines + "\n" + got.out()).isEqualTo(oracle.code());
            JsonNode g = new ObjectMapper().readTree(got.out());
            JsonNode o = new ObjectMapper().readTree(oracle.out());
            assertThat(g.at("/sessions").size()).as(lines.toString()).isEqualTo(o.at("/sessions").size());
            for (int i = 0; i < o.at("/sessions").size(); i++) {
                assertThat(g.at("/sessions/" + i + "/session").asText()).isEqualTo("s");
                assertThat(g.at("/sessions/" + i + "/contracts")).as(lines + " session " + i).isEqualTo(o.at("/sessions/" + i + "/contracts"));
            }
            assertThat(g.at("/summary/sessions")).isEqualTo(o.at("/summary/sessions"));
        }
    }

    /** The lines with session s renamed s1, s2, ... for each session it starts (a new one after each end line). */
    private static List<String> ownIds(List<String> lines) {
        List<String> out = new ArrayList<>();
        Map<String, Integer> nth = new HashMap<>(Map.of("s", 1));
        for (String line : lines) {
            out.add(line.replace("\"session\":\"s\"", "\"session\":\"s" + nth.get("s") + "\""));
            if (line.equals(END)) nth.merge("s", 1, Integer::sum);
        }
        return out;
    }

    /**
     * trial36 05: one user message and its end line were "2 events in 1 sessions" (JSON "events": 2): an end line closes
     * the session and is no position of it (docs/FORMULAS.md), so it is not an event of the summary.
     */
    @Test
    void anEndLineIsNotCountedAsAnEvent() throws Exception {
        Path lib = Files.writeString(dir.resolve("close.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("one.jsonl"), String.join("\n", HI, END) + "\n");
        CliRun r = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress");
        assertThat(r.code()).as(r.out() + r.err()).isZero();
        assertThat(r.out()).contains("\n1 events in 1 sessions, 0 malformed lines skipped");
        CliRun json = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress", "--format", "json");
        assertThat(new com.fasterxml.jackson.databind.ObjectMapper().readTree(json.out()).get("summary").get("events").asInt()).isEqualTo(1);
    }
}
