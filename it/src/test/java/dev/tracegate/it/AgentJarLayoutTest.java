package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built agent jar's dispatcher index ({@code dev/tracegate/agent/bootstrap/classes.idx}, written by the agent's
 * build): the launcher reads the dispatcher's classes by the names it lists rather than walking the jar's ~6,200
 * entries at every start, so a class missing from it would be missing from the bootstrap loader. It must name exactly
 * the package's class files, and a start must define that many.
 */
class AgentJarLayoutTest {
    private static final String PACKAGE = "dev/tracegate/agent/bootstrap/";

    @TempDir Path dir;

    @Test
    void theDispatcherIndexNamesEveryClassOfThePackageAndTheStartDefinesThemAll() throws IOException {
        Set<String> inPackage = new TreeSet<>();
        Set<String> indexed = new TreeSet<>();
        try (JarFile jar = new JarFile(ForkedJvm.agentJar().toFile())) {
            for (JarEntry e : Collections.list(jar.entries())) {
                String name = e.getName();
                if (name.startsWith(PACKAGE) && name.endsWith(".class") && name.indexOf('/', PACKAGE.length()) < 0) {
                    inPackage.add(name.substring(PACKAGE.length()));
                }
            }
            JarEntry index = jar.getJarEntry(PACKAGE + "classes.idx");
            assertThat(index).as("the agent jar's dispatcher index").isNotNull();
            try (InputStream in = jar.getInputStream(index)) {
                Arrays.stream(new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")).filter(l -> !l.isBlank()).forEach(indexed::add);
            }
        }
        assertThat(inPackage).as("the dispatcher's classes in the jar").hasSizeGreaterThan(20).contains("Dispatcher.class");
        assertThat(indexed).isEqualTo(inPackage);

        Path config = Java25UnsafeTest.shopConfiguration(dir);
        ForkedJvm.Result run = ForkedJvm.exec(List.of(ForkedJvm.java(), "-Dtracegate.debug=true",
                "-Dtracegate.audit.path=" + dir.resolve("audit.jsonl"), ForkedJvm.agent("config=" + config), "-version"));
        assertThat(run.exit()).as(run.toString()).isZero();
        assertThat(run.stderr()).contains("start-up: dispatcher defined in the bootstrap loader (" + inPackage.size() + " classes)");
    }
}
