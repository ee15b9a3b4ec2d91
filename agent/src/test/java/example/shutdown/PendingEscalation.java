// Outside dev.tracegate on purpose: the agent never instruments its own packages, and a host application's
// classes are not ours either.
package example.shutdown;

import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * A host application of the forked agent tests: no tracegate import. It makes one call whose contract escalates to an
 * approver that takes ten minutes (one that asks a human), and exits while the call waits for it, as a SIGTERM would
 * end it (System.exit runs the same shutdown hooks).
 */
public final class PendingEscalation {
    /** The escalation approver: says it was asked, then takes its time. */
    public static final class SlowApprover {
        public static final CountDownLatch ASKED = new CountDownLatch(1);

        public SlowApprover() {}

        public boolean approve(Map<String, String> request) throws InterruptedException {
            ASKED.countDown();
            Thread.sleep(600_000);
            return true;
        }
    }

    public String wire(String session, int amount) {
        return "wired " + amount;
    }

    public static void main(String[] args) throws Exception {
        if (PendingEscalation.class.getClassLoader() == ClassLoader.getSystemClassLoader()) {
            // the forked tests put the agent's classes on the system class path, whose classes it does not weave: run
            // this class defined by a loader of its own, as example.warmup.Isolated does (the approver stays shared)
            isolated().getMethod("main", String[].class).invoke(null, (Object) args);
            return;
        }
        PendingEscalation host = new PendingEscalation();
        Thread call = new Thread(() -> System.out.println("wire: " + host.wire("conv-1", 100)), "host-call");
        call.setDaemon(true);
        call.start();
        SlowApprover.ASKED.await();
        System.out.println("exiting while the call waits for its approver");
        System.out.flush();
        System.exit(0);
    }

    private static Class<?> isolated() throws ClassNotFoundException {
        String name = PendingEscalation.class.getName();
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
