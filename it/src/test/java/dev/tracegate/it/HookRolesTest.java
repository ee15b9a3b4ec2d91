package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

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
        "org.springframework.ai.model.tool.DefaultToolCallingManager",
        "org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain",
        "io.modelcontextprotocol.server.McpAsyncServer",
        "io.modelcontextprotocol.server.McpStatelessAsyncServer",
        "io.modelcontextprotocol.client.McpAsyncClient",
    };

    @Test
    void everySupportedLineHasTheMethodsOfEveryRole() {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        List<String> lines = List.of(ForkedJvm.appClasspath(), line(classes, "langchain4j-1.11.0"), line(classes, "springai-1.1.2"),
                line(classes, "springai-1.0.3"), line(classes, "mcp-1.1.5"));
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

    /** The app's classes and the jars the build copied to target/{@code dir}. */
    private static String line(Path classes, String dir) {
        StringBuilder cp = new StringBuilder(classes.toString());
        try (Stream<Path> files = Files.list(classes.resolveSibling(dir))) {
            files.sorted().forEach(f -> cp.append(File.pathSeparator).append(f.toAbsolutePath()));
        } catch (IOException e) {
            throw new IllegalStateException(dir + " jars missing (the it module's generate-test-resources phase copies them)", e);
        }
        return cp.toString();
    }
}
