package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The order in which the launcher defines the dispatcher's classes in the bootstrap loader: a class's super class and
 * interfaces among them first (defining a class resolves its super types, and the bootstrap loader has no other copy of
 * the package to find them in), read from the class files' constant pools.
 */
class BootDispatcherTest {

    interface Root {
    }

    static class Middle implements Root {
        long big() {
            return 123_456_789_012L;   // a Long in the constant pool: two slots
        }

        double half() {
            return 0.123_456_789;      // a Double: two slots
        }
    }

    static final class Leaf extends Middle implements Runnable {
        @Override
        public void run() {
            Runnable r = () -> { };    // an InvokeDynamic and a MethodHandle entry
            r.run();
        }
    }

    @Test
    void superTypesComeFromTheConstantPool() throws IOException {
        assertThat(BootDispatcher.superTypes(bytes(Leaf.class))).containsExactly(Middle.class.getName(), Runnable.class.getName());
        assertThat(BootDispatcher.superTypes(bytes(Middle.class))).containsExactly(Object.class.getName(), Root.class.getName());
        assertThat(BootDispatcher.superTypes(bytes(Root.class))).containsExactly(Object.class.getName());
    }

    @Test
    void eachClassComesAfterItsSuperTypesAmongThem() throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        for (Class<?> c : List.of(Leaf.class, Middle.class, Root.class)) classes.put(c.getName(), bytes(c));
        assertThat(BootDispatcher.order(classes)).containsExactly(Root.class.getName(), Middle.class.getName(), Leaf.class.getName());
    }

    @Test
    void theDispatcherPackageIsOrderedWhole() throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        for (Class<?> c : List.of(dev.tracegate.agent.bootstrap.WeakIdentityMap.class, dev.tracegate.agent.bootstrap.Dispatcher.class,
                dev.tracegate.agent.bootstrap.TracegateViolation.class)) {
            classes.put(c.getName(), bytes(c));
        }
        assertThat(BootDispatcher.order(classes)).containsExactlyInAnyOrderElementsOf(classes.keySet());
    }

    @Test
    void aFileThatIsNoClassIsRefused() {
        assertThatThrownBy(() -> BootDispatcher.superTypes(new byte[] {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("not a class file");
    }

    @Test
    void theIndexNamesTheClassesReadAndAJarWithoutOneIsWalked(@TempDir Path dir) throws IOException {
        String p = BootDispatcher.PACKAGE;
        Map<String, byte[]> files = new LinkedHashMap<>();
        files.put(p + "A.class", new byte[] {1});
        files.put(p + "A$1.class", new byte[] {2});
        files.put(p + "sub/C.class", new byte[] {3});           // not of the package itself
        files.put("inst/" + p + "B.class", new byte[] {4});     // the agent loader's copy elsewhere
        Path walked = jar(dir.resolve("walked.jar"), files);
        assertThat(BootDispatcher.read(walked.toFile())).containsOnlyKeys("dev.tracegate.agent.bootstrap.A", "dev.tracegate.agent.bootstrap.A$1");

        // with an index, only what it names (a class it leaves out stays out: the build writes it from the same directory)
        files.put(BootDispatcher.INDEX, "A$1.class\n\n".getBytes(StandardCharsets.UTF_8));
        Map<String, byte[]> read = BootDispatcher.read(jar(dir.resolve("indexed.jar"), files).toFile());
        assertThat(read).containsOnlyKeys("dev.tracegate.agent.bootstrap.A$1");
        assertThat(read.get("dev.tracegate.agent.bootstrap.A$1")).containsExactly(2);

        files.put(BootDispatcher.INDEX, "A.class\nGone.class\n".getBytes(StandardCharsets.UTF_8));
        Path broken = jar(dir.resolve("broken.jar"), files);
        assertThatThrownBy(() -> BootDispatcher.read(broken.toFile())).isInstanceOf(IOException.class)
                .hasMessageContaining("names Gone.class, which the jar does not hold");
    }

    private static Path jar(Path path, Map<String, byte[]> files) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(path))) {
            for (Map.Entry<String, byte[]> f : files.entrySet()) {
                out.putNextEntry(new JarEntry(f.getKey()));
                out.write(f.getValue());
                out.closeEntry();
            }
        }
        return path;
    }

    private static byte[] bytes(Class<?> c) throws IOException {
        String resource = c.getName().replace('.', '/') + ".class";
        try (InputStream in = c.getClassLoader().getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
