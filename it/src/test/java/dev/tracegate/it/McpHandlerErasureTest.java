package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial26 01: an erasure method configured without {@code session-param}, called inside an MCP server tool handler
 * ({@link demoapp.mcp.McpErasureApp}, MCP SDK 2.1.0, forked with the real agent jar), belonged to no conversation
 * ({@code "session":""}) and its WARN said no supervised call ran on its thread, so agent/CONFIG.md's pattern
 * {@code G(erasure -> G !call(send_newsletter))} never acted in the MCP session. Now it belongs to the session of the
 * MCP call whose handler runs: a sync server (bounded elastic threads), one with immediateExecution (the transport's
 * thread), and an async server's handler: its body (what it runs before it returns its Mono) and the work its Mono does
 * when subscribed (on the subscribing thread, or moved to a Reactor scheduler).
 */
class McpHandlerErasureTest {

    @TempDir
    Path dir;

    private ForkedJvm.Result run(String cp, String mode, Path audit) throws IOException {
        Path library = Files.writeString(dir.resolve("er.yaml"), """
                library: er
                contracts:
                  - id: er.no-newsletter-after-erasure
                    guarantee: G(erasure -> G !call(sendNewsletter))
                    message: no newsletter after an erasure
                """);
        Path config = Files.writeString(dir.resolve(mode + ".yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.mcp.McpErasureApp$Privacy", method: forget, kind: erasure, subject-param: 0}
                """.formatted(library.toAbsolutePath(), audit.toAbsolutePath()));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), cp, "demoapp.mcp.McpApp",
                "calls", "forget", "{\"email\":\"ada@example.com\"}", "sendNewsletter", "{\"email\":\"bob@example.org\"}",
                "--", ForkedJvm.java(), ForkedJvm.agent("config=" + config), "-cp", cp, "demoapp.mcp.McpErasureApp", mode);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static List<JsonNode> events(Path audit) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            if ("event".equals(n.path("rec").asText())) out.add(n);
        }
        return out;
    }

    @Test
    void anErasureInAnMcpServerToolHandlerBelongsToThatCallsSession() throws IOException {
        assertErasureInCallSession(ForkedJvm.appClasspath(), "", List.of("immediate", "sync", "async"));
    }

    /**
     * trial26 01 / session 16: an async handler whose Mono does the work when subscribed (on the subscribing thread, on a
     * bounded elastic thread through subscribeOn, on a parallel thread after Mono.delay) gave the erasure no session
     * ({@code "session":""}), so the contract never blocked the newsletter.
     */
    @Test
    void anErasureInTheWorkOfAnAsyncHandlersMonoBelongsToThatCallsSession() throws IOException {
        assertErasureInCallSession(ForkedJvm.appClasspath(), "", List.of("async-callable", "async-elastic", "async-delay"));
        assertErasureInCallSession(McpTest.mcp115Classpath(), "1.1.5 ", List.of("async-callable", "async-elastic"));
    }

    /**
     * The same for an async stateless server (McpAsyncApp stateless-server over HTTP, the session from the transport
     * context's conversation header): the erasure conv-1's handler makes on a bounded elastic thread is conv-1's, so
     * conv-1's newsletter is blocked and conv-2's is sent.
     */
    @Test
    void anErasureInTheWorkOfAnAsyncStatelessHandlersMonoBelongsToThatCallsSession() throws IOException {
        Path audit = dir.resolve("stateless.jsonl");
        Path library = Files.writeString(dir.resolve("er.yaml"), """
                library: er
                contracts:
                  - id: er.no-newsletter-after-erasure
                    guarantee: G(erasure -> G !call(sendNewsletter))
                    message: no newsletter after an erasure
                """);
        Path config = Files.writeString(dir.resolve("stateless.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.mcp.McpErasureApp$Privacy", method: forget, kind: erasure, subject-param: 0}
                """.formatted(library.toAbsolutePath(), audit.toAbsolutePath()));
        String cp = ForkedJvm.appClasspath();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(), cp, "demoapp.mcp.McpStatelessApp", "client",
                "conv-1", "forget", "{\"email\":\"ada@example.com\"}",
                "conv-1", "sendNewsletter", "{\"email\":\"bob@example.org\"}",
                "conv-2", "sendNewsletter", "{\"email\":\"eve@example.org\"}",
                "--", ForkedJvm.java(), ForkedJvm.agent("config=" + config), "-cp", cp, "demoapp.mcp.McpAsyncApp", "stateless-server");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString())
                .contains("SERVER: PRIVACY forget ada@example.com on boundedElastic-")
                .contains("RESULT conv-1 sendNewsletter isError=true: tracegate blocked the call to sendNewsletter (contract er.no-newsletter-after-erasure)")
                .contains("RESULT conv-2 sendNewsletter isError=false: newsletter sent")
                .doesNotContain("belongs to no conversation");
        String erasureSession = null;
        for (JsonNode e : events(audit)) {
            if ("erasure".equals(e.path("kind").asText())) erasureSession = e.path("session").asText();
        }
        assertThat(erasureSession).as(Files.readString(audit)).isEqualTo("conv-1");
    }

    private void assertErasureInCallSession(String cp, String sdk, List<String> modes) throws IOException {
        for (String mode : modes) {
            Path audit = dir.resolve(sdk.trim() + mode + ".jsonl");
            ForkedJvm.Result r = run(cp, mode, audit);
            String why = sdk + mode + ": " + r;
            assertThat(r.stdout()).as(why)
                    .contains("SERVER: PRIVACY forget ada@example.com on " + (mode.equals("async-elastic") ? "boundedElastic-"
                            : mode.equals("async-delay") ? "parallel-" : ""))
                    .contains("RESULT isError=false: erasure requested")
                    .doesNotContain("SERVER: TOOL sendNewsletter ran")
                    .contains("RESULT isError=true: tracegate blocked the call to sendNewsletter (contract er.no-newsletter-after-erasure)")
                    .doesNotContain("belongs to no conversation");
            String callSession = null;
            String erasureSession = null;
            for (JsonNode e : events(audit)) {
                if ("call".equals(e.path("kind").asText()) && "forget".equals(e.path("tool").asText())) callSession = e.path("session").asText();
                if ("erasure".equals(e.path("kind").asText())) erasureSession = e.path("session").asText();
            }
            assertThat(callSession).as(why + Files.readString(audit)).isNotBlank();
            assertThat(erasureSession).as(why + Files.readString(audit)).isEqualTo(callSession);
        }
    }
}
