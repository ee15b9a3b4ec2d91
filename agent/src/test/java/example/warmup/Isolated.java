package example.warmup;

import java.io.IOException;
import java.io.InputStream;

/**
 * Runs {@link Host} defined by a class loader of its own (as an application server's loader would), so that the
 * agent, whose classes share the system class loader in the forked tests, weaves it like any host class.
 */
public final class Isolated {
    public static void main(String[] args) throws Exception {
        ClassLoader loader = new ClassLoader(ClassLoader.getSystemClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.equals(Host.class.getName())) return super.loadClass(name, resolve);
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c != null) return c;
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        return defineClass(name, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
            }
        };
        loader.loadClass(Host.class.getName()).getMethod("main", String[].class).invoke(null, (Object) args);
    }
}
