// Outside dev.tracegate on purpose: the agent never instruments its own packages, and a host application's
// classes are not ours either.
package example.shutdown;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A host application of the forked agent tests: no tracegate import. A conversation makes three searches; then the JVM
 * exits (as on SIGTERM) and the application's own shutdown hook finishes the request in flight, as a web framework's
 * graceful shutdown does, with a fourth search. The hook first waits, bounded, until the audit log (-Dgraceful.audit) holds an
 * end record: an agent whose shutdown runs beside the application's hooks has then ended the session, which makes the
 * old interleaving certain; an agent whose shutdown runs after them never writes it first, and the wait runs out.
 */
public final class GracefulShutdown {
    public String search(String session, String query) {
        return "results for " + query;
    }

    public static void main(String[] args) throws Exception {
        if (GracefulShutdown.class.getClassLoader() == ClassLoader.getSystemClassLoader()) {
            // the forked tests put the agent's classes on the system class path, whose classes it does not weave: run
            // this class defined by a loader of its own, as PendingEscalation does
            isolated().getMethod("main", String[].class).invoke(null, (Object) args);
            return;
        }
        Path audit = Path.of(System.getProperty("graceful.audit"));
        GracefulShutdown host = new GracefulShutdown();
        for (String q : new String[] {"a", "b", "c"}) System.out.println("search: " + host.search("conv-1", q));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                for (int i = 0; i < 50 && !(Files.exists(audit) && Files.readString(audit).contains("\"kind\":\"end\"")); i++) Thread.sleep(100);
                String r;
                try {
                    r = host.search("conv-1", "d");
                } catch (RuntimeException e) {
                    r = e.toString();
                }
                System.out.println("in the shutdown hook: " + r);
                System.out.flush();
            } catch (IOException | InterruptedException e) {
                e.printStackTrace();
            }
        }, "graceful-shutdown"));
        System.out.println("exiting");
        System.out.flush();
        System.exit(0);
    }

    private static Class<?> isolated() throws ClassNotFoundException {
        String name = GracefulShutdown.class.getName();
        ClassLoader loader = new ClassLoader(ClassLoader.getSystemClassLoader()) {
            @Override
            protected Class<?> loadClass(String n, boolean resolve) throws ClassNotFoundException {
                if (!n.equals(name)) return super.loadClass(n, resolve);
                synchronized (getClassLoadingLock(n)) {
                    Class<?> c = findLoadedClass(n);
                    if (c != null) return c;
                    try (InputStream in = getParent().getResourceAsStream(n.replace('.', '/') + ".class")) {
                        byte[] bytes = in.readAllBytes();
                        return defineClass(n, bytes, 0, bytes.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(n, e);
                    }
                }
            }
        };
        return loader.loadClass(name);
    }
}
