package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.trace.TraceReader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * replay's summary says what happened to an environment event that would break an assumption (trial7 repro 4): in
 * enforce mode it was withheld and the contract stays in force; in shadow mode it was applied and the contract is IDLE.
 * The summary's {@code events} counts the events a contract was violated on, not the withheld ones.
 */
class ReplayWithheldTest {
    @TempDir Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static final String LIBRARY = "library: ag\ncontracts:\n  - id: ag.lookup-first\n    assume: G !failed(lookup)\n"
            + "    guarantee: G(call(refund) -> O returned(lookup))\n    message: Look up first.\n";

    /** The summary row's numbers: violating, events, unmet. */
    private static List<String> row(String out, String id) {
        return out.lines().filter(l -> l.startsWith(id + " ")).map(l -> List.of(l.substring(id.length()).trim().split("\\s+"))).findFirst().orElseThrow();
    }

    @Test
    void enforceSaysWithheldAndInForceShadowSaysBrokenAndIdle() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"session":"f","kind":"call","tool":"lookup","id":"1","args":{"order":"5"}}
                {"session":"f","kind":"return","tool":"lookup","id":"1","error":true,"result":"db down"}
                {"session":"f","kind":"user","text":"ok thanks"}
                """);
        CliRun enforce = run("replay", lib.toString(), trace.toString(), "--no-progress", "--mode", "enforce");
        assertThat(enforce.out()).contains("  ag.lookup-first: withheld t.jsonl:2 (seq 2, return lookup), which would have broken its"
                + " assumption: the contract stays in force (not IDLE)").doesNotContain("assumption broken").doesNotContain("IDLE at end");
        assertThat(row(enforce.out(), "ag.lookup-first")).containsExactly("0", "0", "0");
        JsonNode c = new ObjectMapper().readTree(run("replay", lib.toString(), trace.toString(), "--no-progress", "--format", "json").out())
                .get("sessions").get(0).get("contracts").get(0);
        assertThat(c.get("verdict").asText()).isEqualTo("ACTIVE");
        assertThat(c.get("withheld").asInt()).isEqualTo(1);
        assertThat(c.get("events").asInt()).isZero();
        assertThat(c.get("assumptionBrokenAt").isNull()).isTrue();
        assertThat(c.get("firstAssumptionBreak").asText()).isEqualTo("t.jsonl:2 (seq 2, return lookup)");

        CliRun shadow = run("replay", lib.toString(), trace.toString(), "--no-progress", "--mode", "shadow");
        assertThat(shadow.out()).contains("  ag.lookup-first: assumption broken first at t.jsonl:2 (seq 2, return lookup)\n")
                .contains("  ag.lookup-first: IDLE at end").doesNotContain("withheld");
        assertThat(row(shadow.out(), "ag.lookup-first")).containsExactly("0", "0", "0");
    }

    /** Oracle: the events column equals the refusals and violations an offline Replay of the library decides, event by event. */
    @Test
    void eventsCountsTheEventsTheContractWasViolatedOnAndNotTheWithheldOnes() throws Exception {
        String text = """
                {"session":"f","kind":"call","tool":"refund","args":{}}
                {"session":"f","kind":"return","tool":"lookup","error":true,"result":"db down"}
                {"session":"f","kind":"call","tool":"refund","args":{}}
                {"session":"f","kind":"return","tool":"lookup","error":true,"result":"db down"}
                {"session":"f","kind":"call","tool":"lookup","args":{}}
                {"session":"f","kind":"return","tool":"lookup","result":"ok"}
                {"session":"f","kind":"call","tool":"refund","args":{}}
                """;
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("t.jsonl"), text);
        for (boolean enforce : new boolean[] {true, false}) {
            Replay<Event> replay = Library.load(List.of(lib.toString()), null).replay("f");
            int violated = 0;
            try (TraceReader in = new TraceReader(new java.io.ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)), "t.jsonl",
                    TraceReader.Mode.STRICT)) {
                for (Event e = in.next(); e != null; e = in.next()) {
                    Decision.Kind k = replay.next(e, e.controlledByAgent(), enforce).decision();
                    if (k != Decision.Kind.PASS && k != Decision.Kind.SUPPRESS) violated++;
                }
            }
            CliRun r = run("replay", lib.toString(), trace.toString(), "--no-progress", "--mode", enforce ? "enforce" : "shadow");
            assertThat(row(r.out(), "ag.lookup-first").get(1)).as(r.out()).isEqualTo(String.valueOf(violated));
            if (enforce) assertThat(r.out()).contains("(2 events withheld)");
        }
    }
}
