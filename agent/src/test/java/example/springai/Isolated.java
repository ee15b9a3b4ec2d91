package example.springai;

import java.io.IOException;
import java.io.InputStream;

/**
 * Runs {@link ReplacedMessages} with Spring AI's classes and its own defined by a class loader of their own (as an
 * application server's or Spring Boot's loader would), so that the agent, whose classes share the system class loader
 * in the forked tests, weaves them like any host class. Everything else (Spring's core, Reactor, the JDK, tracegate's
 * dispatcher) comes from the system class loader.
 */
public final class Isolated {
    private Isolated() {}

    private static boolean own(String name) {
        return name.startsWith("org.springframework.ai.") || name.startsWith("example.springai.") && !name.equals(Isolated.class.getName());
    }

    public static void main(String[] args) throws Exception {
        ClassLoader loader = new ClassLoader(ClassLoader.getSystemClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!own(name)) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c != null) return c;
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        if (in == null) throw new ClassNotFoundException(name);
                        byte[] bytes = in.readAllBytes();
                        c = defineClass(name, bytes, 0, bytes.length);
                        if (resolve) resolveClass(c);
                        return c;
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
            }
        };
        loader.loadClass(ReplacedMessages.class.getName()).getMethod("main", String[].class).invoke(null, (Object) args);
    }
}
