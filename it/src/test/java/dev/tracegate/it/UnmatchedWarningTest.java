package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A framework version that moved its methods: the marker class of each framework instrumentation is loaded, but none of
 * the hooked methods exists (stand-in classes compiled here, with the frameworks' class names and other methods); and a
 * configured method that no class has. Each instrumentation must then say once, by name, that it supervised nothing,
 * rather than stay silent.
 */
class UnmatchedWarningTest {

    /** Instrumentation name -> its marker class, as stand-ins without any method the hooks look for. */
    private static final Map<String, String> STAND_INS = Map.of(
            "langchain4j", "package dev.langchain4j.service.tool; public class ToolService { public static String runTool(String name) { return name; } }",
            "springai", "package org.springframework.ai.tool; public interface ToolCallback { String invoke(String input); }",
            "mcp-server", "package io.modelcontextprotocol.server; public class McpAsyncServer { public Object toolsCall(Object params) { return params; } }",
            "mcp-client", "package io.modelcontextprotocol.client; public class McpAsyncClient { public Object callTool(String name) { return name; } }");

    private static final Map<String, String> MARKERS = Map.of(
            "langchain4j", "dev.langchain4j.service.tool.ToolService",
            "springai", "org.springframework.ai.tool.ToolCallback",
            "mcp-server", "io.modelcontextprotocol.server.McpAsyncServer",
            "mcp-client", "io.modelcontextprotocol.client.McpAsyncClient");

    private static final String MAIN = "public class MovedMethods { public static void main(String[] a) throws Exception {"
            + " for (String c : new String[] {\"" + String.join("\", \"", MARKERS.values()) + "\"}) { Class.forName(c); }"
            + " System.out.println(\"LOADED\"); } }";

    @Test
    void eachInstrumentationThatMatchedNothingWarnsOnceByName(@TempDir Path dir) throws IOException {
        Path src = dir.resolve("src");
        Path classes = dir.resolve("classes");
        Files.createDirectories(classes);
        List<String> files = new ArrayList<>();
        for (Map.Entry<String, String> stub : STAND_INS.entrySet()) {
            Path file = src.resolve(MARKERS.get(stub.getKey()).replace('.', '/') + ".java");
            Files.createDirectories(file.getParent());
            Files.writeString(file, stub.getValue());
            files.add(file.toString());
        }
        Path main = src.resolve("MovedMethods.java");
        Files.writeString(main, MAIN);
        files.add(main.toString());
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertThat(javac).as("the tests need a JDK").isNotNull();
        List<String> args = new ArrayList<>(List.of("-d", classes.toString()));
        args.addAll(files);
        assertThat(javac.run(null, null, null, args.toArray(new String[0]))).isZero();

        // and a configured method that no class has
        Path methods = dir.resolve("methods.txt");
        Files.writeString(methods, "tool com.example.Missing#nothing name=nothing\n");

        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("methods=" + methods)), classes.toString(), "MovedMethods");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("LOADED");
        for (Map.Entry<String, String> marker : MARKERS.entrySet()) {
            String warning = "WARN instrumentation " + marker.getKey() + " matched nothing although " + marker.getValue()
                    + " was loaded: the framework version may have moved its methods; its calls were NOT supervised";
            assertThat(r.stderr().split(java.util.regex.Pattern.quote(warning), -1)).as(r.toString()).hasSize(2);
        }
        String configured = "WARN instrumentation configured matched nothing: no loaded class has a method that fits its patterns";
        assertThat(r.stderr().split(java.util.regex.Pattern.quote(configured), -1)).as(r.toString()).hasSize(2);
        // no instrumentation warned twice, and none that matched nothing stayed silent
        assertThat(r.stderr().lines().filter(l -> l.contains("WARN instrumentation ")).count()).as(r.toString()).isEqualTo(MARKERS.size() + 1);
    }
}
