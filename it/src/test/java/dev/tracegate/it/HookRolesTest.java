package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The hook points that carry a role (the tool choke points, where the session is read) find their methods in the classes
 * of every framework line the it module has: the real agent jar in a forked JVM that only loads those classes warns about
 * no role. A line that moved one of them makes the agent say so at exit ("found X but none of the methods it reads ...");
 * this test keeps that warning from being a false alarm on the lines tracegate supports.
 */
class HookRolesTest {
    private static final String[] ROLE_CLASSES = {
        "dev.langchain4j.service.tool.ToolService",
        "dev.langchain4j.service.DefaultAiServices",
        "dev.langchain4j.service.AiServiceStreamingResponseHandler",
        "org.springframework.ai.model.tool.DefaultToolCallingManager",
        "org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain",
        "org.springframework.ai.chat.client.advisor.ChatModelCallAdvisor",
        "io.modelcontextprotocol.server.McpAsyncServer",
        "io.modelcontextprotocol.server.McpStatelessAsyncServer",
        "io.modelcontextprotocol.client.McpAsyncClient",
    };

    @Test
    void everySupportedLineHasTheMethodsOfEveryRole() {
        List<String> lines = List.of(ForkedJvm.appClasspath(), ForkedJvm.lineClasspath("langchain4j-1.11.0"),
                ForkedJvm.lineClasspath("springai-1.1.2"), ForkedJvm.lineClasspath("springai-1.0.3"), ForkedJvm.lineClasspath("mcp-1.1.5"));
        int loaded = 0;
        for (String cp : lines) {
            String[] args = new String[ROLE_CLASSES.length];
            System.arraycopy(ROLE_CLASSES, 0, args, 0, args.length);
            ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("")), cp, "demoapp.plain.LoadClasses", args);
            assertThat(r.exit()).as(r.toString()).isZero();
            assertThat(r.stderr()).as(r.toString()).doesNotContain("but none of the methods it reads");
            loaded += r.stdout().split("LOADED ", -1).length - 1;
        }
        assertThat(loaded).as("the role classes the lines have (the test checks something)").isGreaterThanOrEqualTo(15);
    }
}
