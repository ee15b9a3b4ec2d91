// Outside dev.tracegate on purpose: the agent never instruments its own packages, and a host application's
// classes are not ours either.
package example.shutdown;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * A host application of the forked agent tests: no tracegate import. It starts under fail: open with a library that does
 * not load, so the agent runs unsupervised and watches the library files (hot-reload). It makes a search, then exits; its
 * own shutdown hook renames the fixed library (-Drecovery.fixed) over the broken one (-Drecovery.library), so that the
 * files load while the JVM is shutting down, waits (bounded) until the agent no longer says it runs unsupervised (the
 * property tracegate.agent.unsupervised, cleared when it supervises), and makes a second search, as a graceful shutdown
 * finishing a request would.
 */
public final class RecoveryInShutdown {
    public String search(String session, String query) {
        return "results for " + query;
    }

    /** An escalation approver (escalate.approver) that allows every call it is asked about. */
    public static final class Approver {
        public boolean approve(java.util.Map<String, String> request) {
            return true;
        }
    }

    public static void main(String[] args) throws Exception {
        if (RecoveryInShutdown.class.getClassLoader() == ClassLoader.getSystemClassLoader()) {
            // the forked tests put the agent's classes on the system class path, whose classes it does not weave
            isolated().getMethod("main", String[].class).invoke(null, (Object) args);
            return;
        }
        Path library = Path.of(System.getProperty("recovery.library"));
        Path fixed = Path.of(System.getProperty("recovery.fixed"));
        RecoveryInShutdown host = new RecoveryInShutdown();
        System.out.println("before: " + host.search("conv-1", "a"));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                Files.move(fixed, library, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                for (int i = 0; i < 300 && System.getProperty("tracegate.agent.unsupervised") != null; i++) Thread.sleep(100);
                String r;
                try {
                    r = host.search("conv-1", "b");
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
        String name = RecoveryInShutdown.class.getName();
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
