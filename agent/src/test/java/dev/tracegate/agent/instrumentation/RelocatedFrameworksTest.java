package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.instrumentation.langchain4j.LangChain4jHooks;
import dev.tracegate.agent.instrumentation.mcp.McpHooks;
import dev.tracegate.agent.instrumentation.springai.SpringAiHooks;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.zip.ZipEntry;
import java.util.zip.ZipOutputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** trial40 01/02: a framework relocated by shading is named, at once, when its choke point loads. */
class RelocatedFrameworksTest {

    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    @TempDir
    Path dir;

    /** A class loader over a directory holding (empty) class files of these internal names. */
    private ClassLoader loaderWith(String... internalNames) throws IOException {
        Path root = Files.createTempDirectory(dir, "classes");
        for (String n : internalNames) {
            Path f = root.resolve(n + ".class");
            Files.createDirectories(f.getParent());
            Files.write(f, new byte[] {(byte) 0xCA, (byte) 0xFE});
        }
        return new URLClassLoader(new URL[] {root.toUri().toURL()}, null);
    }

    /** A jar holding these entries (a name ending in .jar: a nested jar of the entries listed after it, up to "-"). */
    private Path jar(String name, String... entries) throws IOException {
        Path jar = dir.resolve(name);
        try (ZipOutputStream out = new ZipOutputStream(Files.newOutputStream(jar))) {
            for (int i = 0; i < entries.length; i++) {
                out.putNextEntry(new ZipEntry(entries[i]));
                if (entries[i].endsWith(".jar")) {
                    ByteArrayOutputStream nested = new ByteArrayOutputStream();
                    try (ZipOutputStream in = new ZipOutputStream(nested)) {
                        for (i++; i < entries.length && !entries[i].equals("-"); i++) {
                            in.putNextEntry(new ZipEntry(entries[i]));
                            in.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
                            in.closeEntry();
                        }
                    }
                    out.write(nested.toByteArray());
                } else {
                    out.write(new byte[] {(byte) 0xCA, (byte) 0xFE});
                }
                out.closeEntry();
            }
        }
        return jar;
    }

    private static final String SHADED_LC4J = "com/vendor/shaded/lc4j/service/tool/ToolService";
    private static final String SHADED_LC4J_SIBLING = "com/vendor/shaded/lc4j/service/AiServices";

    @AfterEach
    void restore() {
        AgentLog.captureForTest(null);
    }

    private List<Hooks> hooks() {
        return List.of(new LangChain4jHooks(), new SpringAiHooks(), new McpHooks.Server(), new McpHooks.Client());
    }

    @Test
    void aRelocatedToolServiceIsWarnedAboutOnceWithTheFix() throws IOException {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        Weaver weaver = new Weaver(hooks());
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        ClassLoader shaded = loaderWith(SHADED_LC4J, SHADED_LC4J_SIBLING);
        watch.noteLoaded(SHADED_LC4J, shaded);
        watch.noteLoaded(SHADED_LC4J, shaded);
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
    void theFrameworksOwnClassesAndLookalikesAreNotRelocatedCopies() throws IOException {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        ClassLoader app = loaderWith("dev/langchain4j/service/tool/ToolService", "dev/langchain4j/service/AiServices",
                "org/springframework/ai/tool/ToolCallback", "io/modelcontextprotocol/client/McpAsyncClient",
                "com/acme/MyToolService", "service/tool/ToolService");
        watch.noteLoaded("dev/langchain4j/service/tool/ToolService", app);
        watch.noteLoaded("org/springframework/ai/tool/ToolCallback", app);
        watch.noteLoaded("io/modelcontextprotocol/client/McpAsyncClient", app);
        watch.noteLoaded("com/acme/MyToolService", app);
        watch.noteLoaded("service/tool/ToolService", app);
        assertTrue(watch.relocated().isEmpty(), watch.relocated().toString());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
    }

    /**
     * An application's own class named like a choke point ({@code com.acme.tool.ToolCallback}, a {@code ToolService} of its
     * own) is no relocated copy: the framework's other classes are not beside it. Before session 20 the name's end alone
     * made tracegate warn that the application's Spring AI ran unsupervised (and attach exit 1).
     */
    @Test
    void anApplicationsOwnClassNamedLikeAChokePointIsNotARelocatedCopy() throws IOException {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        ClassLoader app = loaderWith("com/acme/tool/ToolCallback", "com/acme/service/tool/ToolService", "com/acme/client/McpAsyncClient",
                "com/acme/tool/definition/ToolDefinition");   // one sibling of two for Spring AI
        watch.noteLoaded("com/acme/tool/ToolCallback", app);
        watch.noteLoaded("com/acme/service/tool/ToolService", app);
        watch.noteLoaded("com/acme/client/McpAsyncClient", app);
        watch.noteLoaded("com/acme/tool/ToolCallback", null);
        assertTrue(watch.relocated().isEmpty(), watch.relocated().toString());
        assertEquals("", err.toString(StandardCharsets.UTF_8));
        // the same class path scanned at attach
        watch.scanClassPath(jar("app.jar", "com/acme/tool/ToolCallback.class", "com/acme/service/tool/ToolService.class").toString());
        assertTrue(watch.relocated().isEmpty(), watch.relocated().toString());
    }

    /**
     * attach scans the class path's jars for a framework not loaded yet; a Spring Boot executable jar is one jar whose
     * libraries are nested in it ({@code BOOT-INF/lib}): before session 20 only its own entries were read, so a relocated
     * LangChain4j in a nested jar was not found until it loaded.
     */
    @Test
    void attachFindsARelocatedCopyInAJarNestedInASpringBootJar() throws IOException {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        Path boot = jar("service.jar", "org/springframework/boot/loader/launch/JarLauncher.class",
                "BOOT-INF/classes/com/acme/tool/ToolCallback.class",
                "BOOT-INF/lib/vendor-agent-sdk.jar", SHADED_LC4J + ".class", SHADED_LC4J_SIBLING + ".class", "-",
                "BOOT-INF/lib/jackson-core.jar", "com/fasterxml/jackson/core/JsonParser.class", "-");
        watch.scanClassPath(boot.toString());
        assertEquals(Map.of("langchain4j", "com.vendor.shaded.lc4j.service.tool.ToolService"), watch.relocated());
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("com.vendor.shaded.lc4j.service.tool.ToolService is in"
                + " service.jar!/BOOT-INF/lib/vendor-agent-sdk.jar: it is a relocated (shaded) copy of dev.langchain4j.service.tool.ToolService"),
                err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void springAiAndMcpRelocatedAreNamedToo() throws IOException {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        RelocatedFrameworks watch = new RelocatedFrameworks(hooks());
        ClassLoader shaded = loaderWith("x/shaded/springai/tool/ToolCallback", "x/shaded/springai/tool/definition/ToolDefinition",
                "x/shaded/springai/model/tool/ToolCallingManager", "x/shaded/mcp/client/McpAsyncClient", "x/shaded/mcp/spec/McpSchema");
        watch.noteLoaded("x/shaded/springai/tool/ToolCallback", shaded);
        watch.noteLoaded("x/shaded/mcp/client/McpAsyncClient", shaded);
        assertEquals(Map.of("springai", "x.shaded.springai.tool.ToolCallback", "mcp-client", "x.shaded.mcp.client.McpAsyncClient"),
                watch.relocated());
    }

    @Test
    void configuredMethodsAloneWatchForNothing() {
        assertTrue(!new RelocatedFrameworks(List.of()).watches());
        assertTrue(new RelocatedFrameworks(hooks()).watches());
    }

    /**
     * At premain the weaver registers one transformer, which also shows the watch every class being defined: a second,
     * not retransformation-capable one made the JVM hand every class file to Java twice (a copy of its bytes each time).
     */
    @Test
    void premainRegistersOneTransformerAndItNamesARelocatedCopy() throws Exception {
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        List<Object[]> added = new java.util.ArrayList<>();
        java.lang.instrument.Instrumentation instrumentation = (java.lang.instrument.Instrumentation) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {java.lang.instrument.Instrumentation.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "addTransformer" -> {
                        added.add(args);
                        yield null;
                    }
                    case "getAllLoadedClasses" -> new Class<?>[0];
                    case "isModifiableClass", "isRetransformClassesSupported" -> true;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        Weaver weaver = new Weaver(hooks());
        weaver.install(instrumentation, Weaver.class.getClassLoader(), false);
        assertEquals(1, added.size(), "transformers registered");
        assertEquals(Boolean.TRUE, added.get(0).length > 1 ? added.get(0)[1] : null, "the one transformer is retransformation-capable");
        java.lang.instrument.ClassFileTransformer only = (java.lang.instrument.ClassFileTransformer) added.get(0)[0];
        ClassLoader shaded = loaderWith(SHADED_LC4J, SHADED_LC4J_SIBLING);
        assertNull(only.transform(shaded, SHADED_LC4J, null, null, new byte[] {(byte) 0xCA, (byte) 0xFE}));
        assertTrue(err.toString(StandardCharsets.UTF_8).contains("com.vendor.shaded.lc4j.service.tool.ToolService was loaded: it is a"
                + " relocated (shaded) copy of dev.langchain4j.service.tool.ToolService"), err.toString(StandardCharsets.UTF_8));
        assertEquals(Map.of("langchain4j", "com.vendor.shaded.lc4j.service.tool.ToolService"), weaver.relocatedOnly());
    }
}
