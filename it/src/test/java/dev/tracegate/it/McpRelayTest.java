package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * An aggregating MCP server (trial41): a supervised server whose tool handler calls another MCP server with the SDK's
 * client ({@code demoapp.mcp.McpRelayApp}, the real SDK 2.1.0, over stdio). The partner server, which runs without the
 * agent, sees what the server's client sends it and a remote client sends that back.
 */
class McpRelayTest {

    private static final String APP = "demoapp.mcp.McpRelayApp";

    private static final String ONCE = String.join("\n",
            "tracegate: 1",
            "library: once",
            "contracts:",
            "  - id: once.email",
            "    guarantee: G(count(sendEmail) <= 1)",
            "    message: One e-mail per session.",
            "");

    private static ForkedJvm.Result relay(Path dir, Path audit) throws IOException {
        Path library = dir.resolve("once.yaml");
        Files.writeString(library, ONCE);
        String agent = ForkedJvm.agent("trace=true,libraries=" + library + ",audit.path=" + audit);
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), ForkedJvm.appClasspath(), APP,
                "replay", "--", ForkedJvm.java(), agent, "-cp", ForkedJvm.appClasspath(), APP, "server");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("SERVER: SERVER READY relay").doesNotContain("EXCEPTION");
        return r;
    }

    /** trial41 01: the value the server's client sent to a partner does not switch supervision off when sent back. */
    @Test
    void aMarkTheServersClientSentElsewhereAndThatComesBackIsSupervised(@TempDir Path dir) throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = relay(dir, audit);
        // the partner did get a mark (a one-shot one: the server in the client's JVM may spare that very call only)
        Matcher mark = Pattern.compile("MARK ([0-9a-f-]+)").matcher(r.stdout());
        assertThat(mark.find()).as(r.toString()).isTrue();
        // sent back with two e-mails: both supervised, the second refused by the counting contract
        assertThat(r.stdout()).as(r.toString())
                .contains("REPLAY 1 isError=false: email sent to eve@evil.example")
                .contains("REPLAY 2 isError=true: tracegate blocked the call to sendEmail (contract once.email)");
        assertThat(r.stdout().lines().filter(l -> l.contains("TOOL sendEmail ran"))).as(r.toString()).hasSize(1);
        List<JsonNode> calls = McpTest.audited(audit, "call", "sendEmail");
        assertThat(calls).as(Files.readString(audit)).hasSize(2);
        assertThat(calls.get(1).path("decision").asText()).isEqualTo("block");
    }

    /**
     * trial41 03: the call the handler makes is supervised in the session of the server tool call whose handler makes it
     * (agent/README.md: the caller's conversation), not in {@code default} with every other connection's.
     */
    @Test
    void aClientCallInAServerToolHandlerIsSupervisedInThatToolCallsSession(@TempDir Path dir) throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = relay(dir, audit);
        Matcher handler = Pattern.compile("HANDLER askPartner session=(\\S+)").matcher(r.stdout());
        assertThat(handler.find()).as(r.toString()).isTrue();
        String session = handler.group(1);
        assertThat(r.stdout()).as(r.toString())
                .contains("CALL mcp-server session=" + session + " tool=askPartner")
                .contains("CALL mcp-client session=" + session + " tool=echoMeta")
                .doesNotContain("session=default");
        List<JsonNode> nested = McpTest.audited(audit, "call", "echoMeta");
        assertThat(nested).as(Files.readString(audit)).hasSize(1);
        assertThat(nested.get(0).path("session").asText()).isEqualTo(session);
    }

    private static final String NO_WIPE = String.join("\n",
            "tracegate: 1",
            "library: outbound",
            "contracts:",
            "  - id: outbound.no-wipe",
            "    guarantee: G(!call(wipe))",
            "    message: Nothing is wiped.",
            "");

    /**
     * The async relay server ({@code McpRelayApp async-server}) under the agent on {@code classpath}, called by a client
     * without it ({@code McpAsyncApp calls}) with the given calls in one session.
     */
    private static ForkedJvm.Result asyncRelay(String classpath, Path dir, Path audit, String... calls) throws IOException {
        Path library = dir.resolve("outbound.yaml");
        Files.writeString(library, NO_WIPE);
        String agent = ForkedJvm.agent("trace=true,libraries=" + library + ",audit.path=" + audit);
        List<String> args = new java.util.ArrayList<>(List.of("calls"));
        args.addAll(List.of(calls));
        args.addAll(List.of("--", ForkedJvm.java(), agent, "-cp", classpath, APP, "async-server"));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), ForkedJvm.appClasspath(), "demoapp.mcp.McpAsyncApp",
                args.toArray(new String[0]));
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("SERVER: SERVER READY relay-async").doesNotContain("EXCEPTION");
        return r;
    }

    /**
     * An async handler that makes its client call in its own body before it returns its Mono ({@code return
     * client.callTool(request).map(...)}, or a sync client's call): the call is a different, outbound one, supervised once
     * on the client side in the handler's session, with its own verdict (before session 21 the agent was still inside the
     * server call then and let it go out unsupervised: the partner wiped, and the audit log had no record of it).
     */
    private static void clientCallsInAnAsyncHandlersOwnBody(String classpath, Path dir) throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = asyncRelay(classpath, dir, audit,
                "relayAsync", "{\"tool\":\"echoMeta\",\"topic\":\"a\"}",
                "relaySync", "{\"tool\":\"echoMeta\",\"topic\":\"s\"}",
                "relayAsync", "{\"tool\":\"wipe\",\"topic\":\"a\"}",
                "relaySync", "{\"tool\":\"wipe\",\"topic\":\"s\"}");
        Matcher handler = Pattern.compile("HANDLER relayAsync session=(\\S+)").matcher(r.stdout());
        assertThat(handler.find()).as(r.toString()).isTrue();
        String session = handler.group(1);
        // each outbound call supervised once, by the client side, in the session of the server call whose handler made it
        for (String topic : List.of("a", "s")) {
            assertThat(r.stdout().lines().filter(l -> l.contains("CALL mcp-client session=" + session + " tool=echoMeta")
                    && l.contains("\"topic\":\"" + topic + "\""))).as(r.toString()).hasSize(1);
        }
        assertThat(r.stdout()).as(r.toString()).doesNotContain("session=default");
        // the contract that refuses the outbound tool refuses it, whichever client the handler used; the partner never ran it
        assertThat(r.stdout().lines().filter(l -> l.startsWith("RESULT ")))
                .as(r.toString())
                .hasSize(4)
                .filteredOn(l -> l.contains("tracegate blocked the call to wipe (contract outbound.no-wipe)")).hasSize(2);
        assertThat(r.stdout()).as(r.toString()).doesNotContain("TOOL wipe ran");
        // the audit log has every outbound call, in the handler's session, the wipes refused
        List<JsonNode> echoes = McpTest.audited(audit, "call", "echoMeta");
        List<JsonNode> wipes = McpTest.audited(audit, "call", "wipe");
        assertThat(echoes).as(Files.readString(audit)).hasSize(2);
        assertThat(wipes).as(Files.readString(audit)).hasSize(2);
        for (JsonNode call : echoes) {
            assertThat(call.path("session").asText()).isEqualTo(session);
            assertThat(call.path("decision").asText()).isEqualTo("pass");
        }
        for (JsonNode call : wipes) {
            assertThat(call.path("session").asText()).isEqualTo(session);
            assertThat(call.path("decision").asText()).isEqualTo("block");
        }
        // the server calls themselves, once each
        assertThat(McpTest.audited(audit, "call", "relayAsync")).hasSize(2);
        assertThat(McpTest.audited(audit, "call", "relaySync")).hasSize(2);
    }

    @Test
    void aClientCallAnAsyncHandlerMakesInItsOwnBodyIsSupervisedInItsSession(@TempDir Path dir) throws IOException {
        clientCallsInAnAsyncHandlersOwnBody(ForkedJvm.appClasspath(), dir);
    }

    @Test
    void mcp115AClientCallAnAsyncHandlerMakesInItsOwnBodyIsSupervisedInItsSession(@TempDir Path dir) throws IOException {
        clientCallsInAnAsyncHandlersOwnBody(McpTest.mcp115Classpath(), dir);
    }

    /**
     * A client call a handler makes on the application's own executor ({@code CompletableFuture.supplyAsync(...,
     * executor)}, threads Reactor does not schedule): nothing on that thread or in the SDK says whose call it is, so it is
     * supervised in {@code default} (agent/README.md, "MCP client calls in a server's tool handler"), and the agent says
     * so once per tool, with the fix, instead of silently (before session 21: nothing said). A call made in the handler's
     * own body, or on the same executor through a Reactor scheduler (the fix), keeps the handler's session.
     */
    @Test
    void aClientCallAHandlerMakesOnItsOwnExecutorIsInDefaultAndTheAgentSaysSoOnce(@TempDir Path dir) throws IOException {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = asyncRelay(ForkedJvm.appClasspath(), dir, audit,
                "relayOnExecutor", "{\"tool\":\"echoMeta\",\"topic\":\"x\"}",
                "relayOnExecutor", "{\"tool\":\"echoMeta\",\"topic\":\"y\"}",
                "relaySync", "{\"tool\":\"echoMeta\",\"topic\":\"z\"}",
                "relayOnScheduler", "{\"tool\":\"echoMeta\",\"topic\":\"w\"}");
        Matcher handler = Pattern.compile("HANDLER relaySync session=(\\S+)").matcher(r.stdout());
        assertThat(handler.find()).as(r.toString()).isTrue();
        String session = handler.group(1);
        assertThat(r.stdout()).as(r.toString()).contains("SERVER: RELAY on relay-worker-");
        for (String topic : List.of("x", "y")) {
            assertThat(r.stdout().lines().filter(l -> l.contains("CALL mcp-client session=default tool=echoMeta")
                    && l.contains("\"topic\":\"" + topic + "\""))).as(r.toString()).hasSize(1);
        }
        // in the handler's body, and on the same executor through a Reactor scheduler (the fix the WARN names): the handler's session
        for (String topic : List.of("z", "w")) {
            assertThat(r.stdout().lines().filter(l -> l.contains("CALL mcp-client session=" + session + " tool=echoMeta")
                    && l.contains("\"topic\":\"" + topic + "\""))).as(r.toString()).hasSize(1);
        }
        assertThat(r.stdout().lines().filter(l -> l.contains("SERVER: RELAY on relay-worker-"))).as(r.toString()).hasSize(3);
        // said once for the tool, naming it and the fix
        List<String> warnings = r.stdout().lines().filter(l -> l.contains("WARN mcp-client call of")).toList();
        assertThat(warnings).as(r.toString()).hasSize(1);
        assertThat(warnings.get(0)).contains("mcp-client call of echoMeta is supervised in session default")
                .contains("Schedulers.fromExecutor(executor)")
                .contains("\"MCP client calls in a server's tool handler\"");
        assertThat(McpTest.audited(audit, "call", "echoMeta").stream().map(n -> n.path("session").asText()).toList())
                .as(Files.readString(audit)).containsExactly("default", "default", session, session);
    }
}
