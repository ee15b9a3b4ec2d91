package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The template-method shape of agent/CONFIG.md "Configured methods" (trial30 doc request): tools extending an abstract
 * base whose final {@code execute(Ctx, Map)} calls each subclass's {@code doRun(Map)}. An entry on the subclasses'
 * {@code doRun} with {@code tool-name: "$class"} gives each subclass its own tool, in the session {@code default} (doRun
 * has no context); an entry on the base's {@code execute} gives the conversation from the context and one tool for all
 * subclasses. The real agent jar in a forked JVM runs demoapp.configured.TemplateToolsApp, once per entry.
 */
class TemplateMethodToolsTest {
    private static final String APP = "demoapp.configured.TemplateToolsApp";

    @TempDir Path dir;

    private List<String> calls(String entry) throws IOException {
        Path audit = dir.resolve("audit-" + entry.hashCode() + ".jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [gdpr]
                audit: {path: %s}
                configured-methods:
                  - %s
                """.formatted(audit, entry));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("refund => [refund] refunded 30").contains("weather => [weather] sunny in Oslo");
        return Files.readAllLines(audit).stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
    }

    @Test
    void theSubclassesHookGivesEachSubclassItsOwnToolInTheDefaultSession() throws IOException {
        List<String> calls = calls("{class: \"demoapp.configured.TemplateToolsApp$*Tool\", method: doRun, kind: tool, tool-name: \"$class\", args-param: 0}");
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0)).contains("\"tool\":\"RefundTool\"").contains("\"session\":\"default\"");
        assertThat(calls.get(1)).contains("\"tool\":\"WeatherTool\"").contains("\"session\":\"default\"");
    }

    @Test
    void theBasesTemplateMethodGivesTheConversationAndOneToolForAll() throws IOException {
        List<String> calls = calls("{class: \"demoapp.configured.TemplateToolsApp$BaseTool\", method: execute, kind: tool, tool-name: \"$class\", session-param: \"0.sessionId\", args-param: 1}");
        assertThat(calls).hasSize(2);
        assertThat(calls.get(0)).contains("\"tool\":\"BaseTool\"").contains("\"session\":\"c1\"");
        assertThat(calls.get(1)).contains("\"tool\":\"BaseTool\"").contains("\"session\":\"c2\"");
    }
}
