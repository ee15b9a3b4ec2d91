package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replay in enforce mode does not apply the RETURN that answers a CALL it refused: under enforcement that call never ran,
 * so its result never existed (trial21 09: the shadow log of pay then ship, replayed as enforced, refused pay and then
 * applied pay's RETURN, so {@code O returned(pay)} held and ship passed, which the online agent in enforce mode refused).
 * A RETURN with an id answers the latest CALL of its tool with that id; one without answers the latest CALL of its tool.
 */
class ReplayRefusedCallResultTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: rr
            contracts:
              - id: rr.small
                guarantee: G(call(pay) -> arg(pay, amount) <= 50)
              - id: rr.ship-after-paid
                guarantee: G(call(ship) -> O returned(pay))
            """;

    private Path lib() throws Exception {
        return Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
    }

    @Test
    void theResultOfARefusedCallIsNotAppliedWithOrWithoutIds() throws Exception {
        for (boolean ids : new boolean[] {true, false}) {
            String id1 = ids ? ",\"id\":\"c1\"" : "", id2 = ids ? ",\"id\":\"c2\"" : "";
            Path trace = Files.writeString(dir.resolve("t.jsonl"),
                    "{\"session\":\"s1\",\"kind\":\"call\",\"tool\":\"pay\"" + id1 + ",\"args\":{\"amount\":5000}}\n"
                    + "{\"session\":\"s1\",\"kind\":\"return\",\"tool\":\"pay\"" + id1 + ",\"result\":\"ok\"}\n"
                    + "{\"session\":\"s1\",\"kind\":\"call\",\"tool\":\"ship\"" + id2 + ",\"args\":{}}\n"
                    + "{\"session\":\"s1\",\"kind\":\"return\",\"tool\":\"ship\"" + id2 + ",\"result\":\"ok\"}\n");
            CliRun enforce = CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress");
            assertThat(enforce.out()).as("ids " + ids)
                    .contains("  rr.small: violated first at t.jsonl:1 (seq 1, call pay) (1 event)\n")
                    .contains("  rr.ship-after-paid: violated first at t.jsonl:3 (seq 3, call ship) (1 event)\n")
                    .contains("  not applied: t.jsonl:2 (seq 2, return pay): its call was refused at t.jsonl:1 (seq 1, call pay)"
                            + " (2 results of refused calls not applied)\n");
            assertThat(enforce.code()).isEqualTo(1);
            JsonNode s = new ObjectMapper().readTree(CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress",
                    "--format", "json").out()).get("sessions").get(0);
            assertThat(s.get("resultsNotApplied").asInt()).isEqualTo(2);
            assertThat(s.get("firstResultNotApplied").asText())
                    .isEqualTo("t.jsonl:2 (seq 2, return pay): its call was refused at t.jsonl:1 (seq 1, call pay)");

            // shadow mode applies every event: pay's result is seen, ship passes, nothing is left out
            CliRun shadow = CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress", "--mode", "shadow");
            assertThat(shadow.out()).as("ids " + ids).contains("  rr.small: violated first at t.jsonl:1")
                    .doesNotContain("rr.ship-after-paid: violated").doesNotContain("not applied");
        }
    }

    /** With ids, a result answers its own call, whatever other calls of the tool ran or were refused in between. */
    @Test
    void withIdsEachResultAnswersItsOwnCall() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"session":"s1","kind":"call","tool":"pay","id":"a","args":{"amount":10}}
                {"session":"s1","kind":"call","tool":"pay","id":"b","args":{"amount":99}}
                {"session":"s1","kind":"return","tool":"pay","id":"b","result":"ok"}
                {"session":"s1","kind":"call","tool":"ship","id":"c","args":{}}
                {"session":"s1","kind":"return","tool":"pay","id":"a","result":"ok"}
                {"session":"s1","kind":"call","tool":"ship","id":"d","args":{}}
                """);
        CliRun r = CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress");
        assertThat(r.out()).contains("  rr.small: violated first at t.jsonl:2 (seq 2, call pay) (1 event)\n")
                .contains("  rr.ship-after-paid: violated first at t.jsonl:4 (seq 4, call ship) (1 event)\n")
                .contains("  not applied: t.jsonl:3 (seq 3, return pay): its call was refused at t.jsonl:2 (seq 2, call pay)\n");
        // a: accepted, its result applied, so the second ship passes
        assertThat(r.out().lines().filter(l -> l.startsWith("rr.ship-after-paid ")).findFirst().orElseThrow().trim().split("\\s+"))
                .containsExactly("rr.ship-after-paid", "1", "1", "0");
    }

    /** Without ids, a result answers the latest call of its tool: after an accepted one, it is applied. */
    @Test
    void withoutIdsAResultAfterAnAcceptedCallOfItsToolIsApplied() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), """
                {"session":"s1","kind":"call","tool":"pay","args":{"amount":99}}
                {"session":"s1","kind":"call","tool":"pay","args":{"amount":10}}
                {"session":"s1","kind":"return","tool":"pay","result":"ok"}
                {"session":"s1","kind":"call","tool":"ship","args":{}}
                """);
        CliRun r = CliRun.of("replay", lib().toString(), trace.toString(), "--no-progress");
        assertThat(r.out()).contains("  rr.small: violated first at t.jsonl:1").doesNotContain("rr.ship-after-paid: violated")
                .doesNotContain("not applied");
    }

    /**
     * trial24 04: a model that numbers its tool calls per response gives every turn's call the id call_0. The refund
     * refused in turn 1 is not the call that lookup_order's RETURN answers (another tool), and the refund of turn 2 with
     * the same id supersedes it: replay refuses the one refund the online agent blocked, as it does without ids.
     */
    @Test
    void repeatedIdsAcrossTurnsPairAReturnWithTheLatestCallOfItsTool() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                contracts:
                  - id: shop.lookup-before-big-refund
                    guarantee: G(call(refund) & arg(refund, amount) > 100 -> O returned(lookup_order))
                """);
        for (boolean ids : new boolean[] {true, false}) {
            String id = ids ? ",\"id\":\"call_0\"" : "";
            Path trace = Files.writeString(dir.resolve("t.jsonl"),
                    "{\"session\":\"g\",\"seq\":1,\"kind\":\"user\",\"text\":\"refund A1\"}\n"
                    + "{\"session\":\"g\",\"seq\":2,\"kind\":\"call\",\"tool\":\"refund\"" + id + ",\"args\":{\"orderId\":\"A1\",\"amount\":150}}\n"
                    + "{\"session\":\"g\",\"seq\":3,\"kind\":\"user\",\"text\":\"look it up first\"}\n"
                    + "{\"session\":\"g\",\"seq\":4,\"kind\":\"call\",\"tool\":\"lookup_order\"" + id + ",\"args\":{\"orderId\":\"A1\"}}\n"
                    + "{\"session\":\"g\",\"seq\":5,\"kind\":\"return\",\"tool\":\"lookup_order\"" + id + ",\"result\":\"order A1\"}\n"
                    + "{\"session\":\"g\",\"seq\":6,\"kind\":\"call\",\"tool\":\"refund\"" + id + ",\"args\":{\"orderId\":\"A1\",\"amount\":150}}\n"
                    + "{\"session\":\"g\",\"seq\":7,\"kind\":\"return\",\"tool\":\"refund\"" + id + ",\"result\":\"refunded\"}\n");
            CliRun r = CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress");
            assertThat(r.out()).as("ids " + ids)
                    .contains("  shop.lookup-before-big-refund: violated first at t.jsonl:2 (seq 2, call refund) (1 event)\n")
                    .doesNotContain("not applied");
        }
    }

    /**
     * trial47 03: a model (its ids are its own output) gave two concurrent lookups one id; the second was refused online,
     * the first ran and its RETURN (id c1) came after the refusal. Replay of the agent's own log took that RETURN for the
     * refused call's and did not apply it, so it reported the send that the agent let pass (after a lookup's result) as a
     * violation. A call the agent refused online never ran: no RETURN in its log answers it. Oracle: the online
     * supervisor's own decisions, and replay names no event applied here that was refused online or the other way round.
     */
    @Test
    void aCallRefusedOnlineDoesNotTakeTheResultOfAnEarlierCallWithItsId() throws Exception {
        Path lib = Files.writeString(dir.resolve("pol.yaml"), """
                library: pol
                contracts:
                  - id: pol.no-bad-lookup
                    guarantee: G(call(lookup_customer) -> !arg_matches(lookup_customer, customer_id, "BAD"))
                  - id: pol.lookup-first
                    guarantee: G(call(send_email) -> O returned(lookup_customer))
                """);
        Path log = dir.resolve("audit.jsonl");
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        dev.tracegate.agent.supervision.ContractSupervisor s = new dev.tracegate.agent.supervision.ContractSupervisor(config, audit,
                new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        Object previous = dev.tracegate.agent.bootstrap.Dispatcher.swapTools(java.util.Map.of("lookup_customer", new Object(), "send_email", new Object()));
        java.util.List<String> online = new java.util.ArrayList<>();
        try {
            online.add(s.onToolCall(new dev.tracegate.agent.core.ToolCall("test", "u1", "lookup_customer", "{\"customer_id\":\"C1\"}", "c1")).kind().name());
            online.add(s.onToolCall(new dev.tracegate.agent.core.ToolCall("test", "u1", "lookup_customer", "{\"customer_id\":\"BAD\"}", "c1")).kind().name());
            online.add(s.onToolResult(new dev.tracegate.agent.core.ToolResult("test", "u1", "lookup_customer", "c1", "Customer C1", false)).suppressed() ? "SUPPRESS" : "PASS");
            online.add(s.onToolCall(new dev.tracegate.agent.core.ToolCall("test", "u1", "send_email", "{\"to\":\"bob@x.example\"}", "c2")).kind().name());
        } finally {
            dev.tracegate.agent.bootstrap.Dispatcher.swapTools(previous);
            s.close();
            assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        assertThat(online).as("online: the lookup runs, the second is refused, its result is applied, the send passes")
                .containsExactly("PROCEED", "BLOCK", "PASS", "PROCEED");
        CliRun r = CliRun.of("replay", lib.toString(), log.toString(), "--no-progress");
        assertThat(r.out()).as(r.out() + r.err()).contains("pol.no-bad-lookup: violated first at")
                .doesNotContain("pol.lookup-first: violated").doesNotContain("not applied");
        assertThat(r.err()).as("no divergence from the online decisions").doesNotContainIgnoringCase("differ");
    }
}
