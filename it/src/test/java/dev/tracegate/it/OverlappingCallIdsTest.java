package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Two look-ups of one session in flight at once, one of them failing, under a latch that credits a look-up's order at
 * its successful RETURN: the hooks whose framework gives no call id (configured methods, the MCP SDK's server and
 * client, Spring AI tool callbacks the application calls itself, a LangChain4j request without the model's id) give each
 * invocation an id of its own ({@code tg-N}), so the RETURN credits the order of the CALL it answers, not the last
 * look-up that started. A Spring AI call that a model round asked for carries the model's tool-call id.
 */
class OverlappingCallIdsTest {

    /** A refund only of an order a look-up found (a look-up's successful RETURN adds its order). */
    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: orders",
            "context:",
            "  - on: {kind: RETURN, tool: lookupOrder}",
            "    add: looked_up",
            "    value: arg(orderId)",
            "contracts:",
            "  - id: orders.refund-looked-up",
            "    guarantee: G(call(refund) -> arg_eq_ctx(refund, orderId, looked_up))",
            "    message: Refund only an order a look-up found.",
            "");

    private static final String FOUND = "A-1";
    private static final String MISSING = "BAD-2";

    @TempDir
    Path dir;

    private String agent(Path audit, String more) throws IOException {
        Path library = Files.writeString(dir.resolve("orders.yaml"), LIBRARY);
        return ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear" + more);
    }

    /** The audited events, in order. */
    private static List<JsonNode> events(Path audit) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(line);
            if ("event".equals(node.path("rec").asText())) {
                events.add(node);
            }
        }
        return events;
    }

    private static List<JsonNode> of(List<JsonNode> events, String kind, String tool) {
        List<JsonNode> found = new ArrayList<>();
        for (JsonNode e : events) {
            if (kind.equals(e.path("kind").asText()) && tool.equals(e.path("tool").asText())) {
                found.add(e);
            }
        }
        return found;
    }

    /**
     * The refund of the order the look-up found ran, the refund of the order whose look-up failed did not (the old agent:
     * the other way round, the found order's RETURN credited the last look-up that started); in the audit log each
     * look-up's CALL and its RETURN carry one id, distinct between the two, the failed RETURN the missing order's.
     */
    private static void checkDecidedByTheCallEachReturnAnswers(ForkedJvm.Result r, Path audit, String refundRan, String idPattern)
            throws IOException {
        assertThat(r.stdout()).as(r.toString())
                .contains(refundRan + " orderId=" + FOUND)
                .doesNotContain(refundRan + " orderId=" + MISSING);
        List<JsonNode> events = events(audit);
        String log = Files.readString(audit);
        List<JsonNode> calls = of(events, "call", "lookupOrder");
        List<JsonNode> returns = of(events, "return", "lookupOrder");
        assertThat(calls).as(log).hasSize(2);
        assertThat(returns).as(log).hasSize(2);
        Set<String> callIds = new HashSet<>();
        String missingId = null;
        for (JsonNode call : calls) {
            String id = call.path("id").asText("");
            assertThat(id).as("each CALL's id: " + log).matches(idPattern);
            callIds.add(id);
            if (MISSING.equals(call.path("args").path("orderId").asText())) {
                missingId = id;
            }
        }
        assertThat(callIds).as("distinct ids for the two look-ups: " + log).hasSize(2);
        // both calls were under way before either ended
        assertThat(events.indexOf(calls.get(1))).as(log).isLessThan(events.indexOf(returns.get(0)));
        Set<String> returnIds = new HashSet<>();
        for (JsonNode ret : returns) {
            returnIds.add(ret.path("id").asText(""));
            if (ret.path("error").asBoolean()) {
                assertThat(ret.path("id").asText()).as("the failed RETURN answers the missing order's CALL: " + log).isEqualTo(missingId);
            }
        }
        assertThat(returnIds).as("each RETURN carries its CALL's id: " + log).isEqualTo(callIds);
        for (JsonNode refund : of(events, "call", "refund")) {
            assertThat(refund.path("id").asText("")).as(log).matches(idPattern);
        }
    }

    @Test
    void configuredMethodsRunInParallelEachReturnCreditsItsOwnCall() throws IOException {
        Path rules = Files.writeString(dir.resolve("methods.txt"), String.join("\n",
                "tool  demoapp.plain.OverlapApp$Orders#lookupOrder  name=$method session=0",
                "tool  demoapp.plain.OverlapApp$Orders#refund       name=$method session=0",
                ""));
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(agent(audit, ",methods=" + rules)), ForkedJvm.appClasspath(),
                "demoapp.plain.OverlapApp", "s1", FOUND, MISSING);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("LOOKUP " + MISSING + " FAILED: no order " + MISSING);
        checkDecidedByTheCallEachReturnAnswers(r, audit, "METHOD refund ran", "tg-\\d+");
    }

    @Test
    void anMcpServerRunningTwoCallsAtOnceCreditsEachReturnToItsOwnCall() throws IOException {
        Path audit = dir.resolve("server.jsonl");
        String cp = ForkedJvm.appClasspath();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), cp, "demoapp.mcp.McpAsyncApp",
                "overlap", FOUND, MISSING, "--", ForkedJvm.java(), agent(audit, ""), "-cp", cp, "demoapp.mcp.McpAsyncApp", "server");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("LOOKUP " + MISSING + " FAILED");
        checkDecidedByTheCallEachReturnAnswers(r, audit, "SERVER: TOOL refund ran", "tg-\\d+");
    }

    @Test
    void anMcpClientMakingTwoCallsAtOnceCreditsEachReturnToItsOwnCall() throws IOException {
        Path audit = dir.resolve("client.jsonl");
        String cp = ForkedJvm.appClasspath();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(agent(audit, "")), cp, "demoapp.mcp.McpAsyncApp",
                "overlap", FOUND, MISSING, "--", ForkedJvm.java(), "-cp", cp, "demoapp.mcp.McpAsyncApp", "server");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("LOOKUP " + MISSING + " FAILED");
        checkDecidedByTheCallEachReturnAnswers(r, audit, "SERVER: TOOL refund ran", "tg-\\d+");
    }

    @Test
    void springAiToolCallbacksTheApplicationRunsInParallelCreditEachReturnToItsOwnCall() throws IOException {
        for (String line : List.of("2.0.1", "1.1.2")) {
            Path audit = dir.resolve("springai-" + line + ".jsonl");
            String cp = line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-1.1.2");
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(agent(audit, "")), cp, "demoapp.springai.ParallelToolsApp",
                    "c1", FOUND, MISSING);
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stdout()).as(line + ": " + r).contains("LOOKUP " + MISSING + " FAILED");
            checkDecidedByTheCallEachReturnAnswers(r, audit, "TOOL refund ran", "tg-\\d+");
        }
    }

    /**
     * LangChain4j passes the model's tool-call id; a request without one (a provider that gives none) gets an id of its
     * own, so two such look-ups that an AI service runs concurrently are told apart as the other hooks' calls are.
     */
    @Test
    void langChain4jCallsWithoutAnIdRunConcurrentlyCreditEachReturnToItsOwnCall() throws IOException {
        for (String line : List.of("1.19.0", "1.11.0")) {
            Path audit = dir.resolve("langchain4j-" + line + ".jsonl");
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(agent(audit, "")),
                    line.equals("1.19.0") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("langchain4j-1.11.0"),
                    "demoapp.langchain4j.ParallelLookupApp", "s1", FOUND, MISSING);
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stdout()).as(line + ": " + r).contains("LOOKUP " + MISSING + " FAILED").contains("ANSWER: done");
            checkDecidedByTheCallEachReturnAnswers(r, audit, "TOOL refund ran", "tg-\\d+");
        }
    }

    /** The calls a model round asks for carry the model's tool-call ids (the scripted model's call-1, call-3), CALL and RETURN. */
    @Test
    void springAiCallsOfAModelRoundCarryTheModelsToolCallIds() throws IOException {
        for (String line : List.of("2.0.1", "1.1.2")) {
            Path audit = dir.resolve("desk-" + line + ".jsonl");
            boolean v2 = line.equals("2.0.1");
            List<String> args = new ArrayList<>(v2 ? List.of() : List.of("--tool-advisor"));
            args.addAll(List.of("c1", "lookupOrder", "{\"orderId\":\"" + FOUND + "\"}", "archiveAccount", "{\"customerId\":\"C1\"}"));
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(agent(audit, "")),
                    v2 ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-1.1.2"), "demoapp.springai.OrderDeskApp",
                    args.toArray(new String[0]));
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stdout()).as(line + ": " + r).contains("TOOL lookupOrder ran orderId=" + FOUND).contains("TOOL archiveAccount ran customerId=C1");
            List<JsonNode> events = events(audit);
            String log = line + ": " + Files.readString(audit);
            for (String[] expected : new String[][] {{"lookupOrder", "call-1"}, {"archiveAccount", "call-3"}}) {
                for (String kind : List.of("call", "return")) {
                    List<JsonNode> found = of(events, kind, expected[0]);
                    assertThat(found).as(log).hasSize(1);
                    assertThat(found.get(0).path("id").asText()).as(kind + " " + expected[0] + ": " + log).isEqualTo(expected[1]);
                }
            }
        }
    }
}
