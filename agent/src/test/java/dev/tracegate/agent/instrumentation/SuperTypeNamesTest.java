package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.instrumentation.langchain4j.LangChain4jHooks;
import dev.tracegate.agent.instrumentation.mcp.McpHooks;
import dev.tracegate.agent.instrumentation.springai.SpringAiHooks;
import net.bytebuddy.description.type.TypeDescription;
import net.bytebuddy.dynamic.ClassFileLocator;
import net.bytebuddy.matcher.ElementMatcher;
import net.bytebuddy.pool.TypePool;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The weaver's judgement by names ({@link Weaver#mayMatch}, {@link SuperTypeNames}) never refuses a class that Byte Buddy's
 * type matchers of the real hook points accept: checked over every class of the framework jars the agent is compiled
 * against (LangChain4j, Spring AI, the MCP SDK, quarkus-langchain4j), each class's super types read from the class path
 * as a host's loader would give them.
 */
class SuperTypeNamesTest {

    private static final List<String> FRAMEWORK_JARS = List.of("langchain4j", "spring-ai-", "mcp-", "mcp.", "quarkus-langchain4j");

    @Test
    void noClassOfTheFrameworkJarsThatAHookPointMatchesIsRefusedByNames() throws IOException {
        List<Hooks> hooks = List.of(new LangChain4jHooks(), new SpringAiHooks(), new McpHooks.Server(), new McpHooks.Client());
        List<ElementMatcher<? super TypeDescription>> matchers = new ArrayList<>();
        for (Hooks h : hooks) {
            for (HookPoint p : h.points()) {
                assertThat(p.types()).as("a framework point says which names it can match").isInstanceOf(TypeMatch.class);
                matchers.add(p.types());
            }
        }
        ClassLoader loader = SuperTypeNamesTest.class.getClassLoader();
        Weaver weaver = new Weaver(hooks);
        TypePool pool = TypePool.Default.of(ClassFileLocator.ForClassLoader.of(loader));

        List<String> jars = new ArrayList<>();
        int classes = 0, accepted = 0, refused = 0, undescribable = 0;
        List<String> wronglyRefused = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String file = new File(entry).getName();
            if (!entry.endsWith(".jar") || FRAMEWORK_JARS.stream().noneMatch(file::startsWith)) continue;
            jars.add(file);
            try (ZipFile zip = new ZipFile(entry)) {
                for (Enumeration<? extends ZipEntry> e = zip.entries(); e.hasMoreElements(); ) {
                    ZipEntry z = e.nextElement();
                    String path = z.getName();
                    if (!path.endsWith(".class") || path.endsWith("module-info.class") || path.startsWith("META-INF/")) continue;
                    String name = path.substring(0, path.length() - 6).replace('/', '.');
                    byte[] bytes = zip.getInputStream(z).readAllBytes();
                    classes++;
                    boolean byNames = weaver.mayMatch(loader, name, bytes);
                    if (!byNames) refused++;
                    boolean byByteBuddy = false;
                    try {
                        TypeDescription type = pool.describe(name).resolve();
                        for (ElementMatcher<? super TypeDescription> m : matchers) {
                            byByteBuddy |= m.matches(type);
                        }
                    } catch (RuntimeException | LinkageError ex) {
                        undescribable++; // Byte Buddy would report it and weave nothing: no claim either way
                        continue;
                    }
                    if (byByteBuddy) {
                        accepted++;
                        if (!byNames) wronglyRefused.add(name);
                    }
                }
            }
        }
        System.out.printf("%d classes in %s: Byte Buddy's matchers accept %d, the names refuse %d, %d not describable%n",
                classes, jars, accepted, refused, undescribable);
        assertThat(jars).as("the framework jars on the test class path").hasSizeGreaterThanOrEqualTo(4);
        assertThat(accepted).as("hook points that match something here").isGreaterThanOrEqualTo(20);
        assertThat(wronglyRefused).as("classes a hook point matches that the names refused").isEmpty();
        assertThat(refused).as("the names pass over most classes").isGreaterThan(classes * 8 / 10);
    }

    @Test
    void aClassFilesHeaderIsItsNameSuperClassAndInterfaces() throws IOException {
        byte[] bytes;
        try (var in = SuperTypeNamesTest.class.getClassLoader().getResourceAsStream("java/util/ArrayList.class")) {
            bytes = in.readAllBytes();
        }
        SuperTypeNames.Header h = SuperTypeNames.Header.read(bytes);
        assertThat(h.name()).isEqualTo("java/util/ArrayList");
        assertThat(h.superName()).isEqualTo("java/util/AbstractList");
        assertThat(h.interfaces()).containsExactly("java/util/List", "java/util/RandomAccess", "java/lang/Cloneable", "java/io/Serializable");
        assertThat(SuperTypeNames.Header.read(new byte[] {(byte) 0xCA, (byte) 0xFE, (byte) 0xBA, (byte) 0xBE, 0, 0, 0, 61, 0, 9, 99}))
                .as("a truncated class file").isNull();
        assertThat(SuperTypeNames.Header.read(new byte[] {1, 2, 3})).isNull();
    }
}
