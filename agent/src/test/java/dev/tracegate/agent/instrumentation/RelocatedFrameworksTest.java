package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.instrumentation.langchain4j.LangChain4jHooks;
import dev.tracegate.agent.instrumentation.mcp.McpHooks;
import dev.tracegate.agent.instrumentation.springai.SpringAiHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** trial40 01/02: a framework relocated by shading is named, at once, when its choke point loads. */
class RelocatedFrameworksTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @AfterEach
    void restore() {
        AgentLog.captureForTest(null);
    }

    private List<Hooks> hooks() {
        return List.of(new LangChain4jHooks(), new SpringAiHooks(), new McpHooks.Server(), new McpHooks.Client());
    }

    @Test
    void aRelocatedToolServiceIsWarnedAboutOnceWithTheFix() {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Weaver weaver = new Weaver(hooks());
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        watch.noteLoaded("com/vendor/shaded/lc4j/service/tool/ToolService");
        watch.noteLoaded("com/vendor/shaded/lc4j/service/tool/ToolService");
        String said = err.toString(StandardCharsets.UTF_8);
        assertEquals(1, said.lines().filter(l -> l.contains("WARN")).count(), said);
        assertTrue(said.contains("com.vendor.shaded.lc4j.service.tool.ToolService was loaded: it is a relocated (shaded) copy of"
                + " dev.langchain4j.service.tool.ToolService"), said);
        assertTrue(said.contains("configured-methods: [{class:"), said);
        assertEquals("com.vendor.shaded.lc4j.service.tool.ToolService", watch.relocated("langchain4j"));
        assertNull(watch.relocated("springai"));
        assertTrue(weaver.relocatedOnly().isEmpty());   // the weaver's own watch saw nothing
    }

    @Test
    void theFrameworksOwnClassesAndLookalikesAreNotRelocatedCopies() {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        watch.noteLoaded("dev/langchain4j/service/tool/ToolService");
        watch.noteLoaded("org/springframework/ai/tool/ToolCallback");
        watch.noteLoaded("io/modelcontextprotocol/client/McpAsyncClient");
        watch.noteLoaded("com/acme/MyToolService");
        watch.noteLoaded("service/tool/ToolService");
        assertTrue(watch.relocated().isEmpty(), watch.relocated().toString());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void springAiAndMcpRelocatedAreNamedToo() {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        watch.noteLoaded("x/shaded/springai/tool/ToolCallback");
        watch.noteLoaded("x/shaded/mcp/client/McpAsyncClient");
        assertEquals(Map.of("springai", "x.shaded.springai.tool.ToolCallback", "mcp-client", "x.shaded.mcp.client.McpAsyncClient"),
                watch.relocated());
    }

    @Test
    void configuredMethodsAloneWatchForNothing() {
        assertTrue(!new RelocatedFrameworks(List.of()).watches());
        assertTrue(new RelocatedFrameworks(hooks()).watches());
    }
}
