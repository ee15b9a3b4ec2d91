package dev.tracegate.it;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A service started with its own class data sharing archive (AppCDS: a static archive on Java 17, a dynamic one from
 * {@code -XX:ArchiveClassesAtExit} as Spring Boot's CDS training makes on Java 25) keeps its archived classes with the
 * agent attached: the application's classes that the agent does not weave still come from the archive
 * ({@code -Xlog:class+load}: "source: shared objects file"), and the JVM does not switch sharing off for the
 * application's loader (before, the agent appended its jar to the bootstrap search path, after which HotSpot shares
 * only the boot loader's classes: "Sharing is only supported for boot loader classes because bootstrap classpath has
 * been appended"). The calls are supervised all the same. The application imports nothing of tracegate.
 */
class ClassDataSharingTest {
    private static final String APP = "demoapp.plain.ShopApp";
    private static final String SHARING_OFF = "Sharing is only supported for boot loader classes";

    @TempDir Path dir;
    private Path config;
    private Path appJar;

    @BeforeEach
    void application() throws IOException {
        config = Java25UnsafeTest.shopConfiguration(dir);
        // the JVM archives classes of jars only, not of directories
        appJar = dir.resolve("shop.jar");
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        try (JarOutputStream jar = new JarOutputStream(Files.newOutputStream(appJar));
             Stream<Path> plain = Files.list(classes.resolve("demoapp/plain"))) {
            List<Path> files = new ArrayList<>(plain.filter(f -> f.getFileName().toString().startsWith("ShopApp")).sorted().toList());
            files.add(classes.resolve("demoapp/Console.class"));
            for (Path f : files) {
                jar.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, jar);
                jar.closeEntry();
            }
        }
    }

    @Test
    void aStaticArchiveOfTheApplicationIsUsedWithTheAgentOnJava17() {
        String java = ForkedJvm.java();
        Path list = dir.resolve("classes.lst");
        Path archive = dir.resolve("shop.jsa");
        ForkedJvm.Result listed = ForkedJvm.run(java, List.of("-XX:DumpLoadedClassList=" + list), appJar.toString(), APP, "nested");
        assertThat(listed.exit()).as(listed.toString()).isZero();
        // -XX:SharedArchiveFile names the archive to write: without it, -Xshare:dump would rewrite the JDK's own
        ForkedJvm.Result dumped = ForkedJvm.exec(List.of(java, "-Xshare:dump", "-XX:SharedClassListFile=" + list,
                "-XX:SharedArchiveFile=" + archive, "-cp", appJar.toString()));
        assertThat(dumped.exit()).as(dumped.toString()).isZero();
        assertSharedWithAgent(java, archive);
    }

    @Test
    void aDynamicArchiveOfTheApplicationIsUsedWithTheAgentOnJava25() {
        Assumptions.assumeTrue(ForkedJvm.java25Present(), "no Java 25 at " + ForkedJvm.JAVA_25);
        Path archive = dir.resolve("shop-dynamic.jsa");
        ForkedJvm.Result dumped = ForkedJvm.run(ForkedJvm.JAVA_25, List.of("-XX:ArchiveClassesAtExit=" + archive), appJar.toString(), APP, "nested");
        assertThat(dumped.exit()).as(dumped.toString()).isZero();
        assertThat(archive).exists();
        assertSharedWithAgent(ForkedJvm.JAVA_25, archive);
    }

    private void assertSharedWithAgent(String java, Path archive) {
        ForkedJvm.Result r = ForkedJvm.run(java, List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:class+load", ForkedJvm.agent("config=" + config)),
                appJar.toString(), APP, "nested");
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.all()).as(r.toString())
                .contains("[tracegate] agent started (premain)")
                // classes the agent does not weave come from the archive
                .containsPattern("\\] demoapp\\.plain\\.ShopApp source: shared objects file")
                .containsPattern("\\] demoapp\\.Console source: shared objects file")
                .doesNotContain(SHARING_OFF)
                // the dispatcher is in the bootstrap loader (the application's loader would say "source: file:<the agent jar>")
                .containsPattern("\\] dev\\.tracegate\\.agent\\.bootstrap\\.Dispatcher source: ")
                .doesNotContainPattern("\\] dev\\.tracegate\\.agent\\.bootstrap\\.\\S+ source: (file|jar):")
                // and the woven ones are supervised
                .contains("METHOD payBill ran customer=alice bill=B7")
                .doesNotContain("METHOD transfer ran")
                .contains("tracegate blocked the call to transfer (contract bank.no-transfer): transfers are not allowed");
    }
}
