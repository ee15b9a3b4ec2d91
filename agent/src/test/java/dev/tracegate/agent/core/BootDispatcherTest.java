package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

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

    private static byte[] bytes(Class<?> c) throws IOException {
        String resource = c.getName().replace('.', '/') + ".class";
        try (InputStream in = c.getClassLoader().getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }
}
