package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.management.ManagementFactory;
import java.lang.ref.WeakReference;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link Applications} in a JVM of several applications (two class loaders, each with its own copy of a framework, as two
 * web apps in Tomcat). Run in a child JVM ({@link Host}): the applications the JVM has noted are for good, and the other
 * tests of this JVM must keep plain session ids.
 */
class ApplicationsTest {
    @TempDir Path dir;

    /**
     * Review of 8d66249: with several applications every event took a synchronized WeakHashMap look-up (one JVM-wide lock,
     * the context loader's own hashCode called under it) and built a new String. Now an event of a thread whose context
     * loader was seen before takes no lock, and one of the conversation its thread's previous event was of allocates
     * nothing; no loader is kept (a context loader dropped is collected).
     */
    @Test
    void inAJvmOfSeveralApplicationsAnEventTakesNoLockAndAllocatesNothing() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"), Host.class.getName(),
                dir.toString()).redirectErrorStream(true).redirectOutput(dir.resolve("child.out").toFile()).start();
        try {
            assertThat(child.waitFor(120, TimeUnit.SECONDS)).as("the child ended").isTrue();
        } finally {
            child.destroyForcibly();
        }
        String out = Files.readString(dir.resolve("child.out"));
        assertThat(out).as(out)
                .contains("SESSION appb/alice", "SESSION FIRST alice", "SESSION NONE alice")
                .contains("NOT BLOCKED appb/alice")
                .contains("DONE");
        long allocated = Long.parseLong(out.lines().filter(l -> l.startsWith("ALLOCATED ")).findFirst().orElseThrow().substring(10));
        // a String per event would be several MB here (about 56 bytes each)
        assertThat(allocated).as("bytes allocated by 100000 events of appb/alice").isLessThan(64 * 1024);
        assertThat(out).as("the dropped context loader was collected").contains("CONTEXT LOADER COLLECTED true");
        assertThat(child.exitValue()).as(out).isZero();
    }

    /** The child: notes two applications, then runs events as their request threads would. */
    public static final class Host {
        static final String MARKER = "tracegate/test/Framework.class";

        /** A context loader that, once armed, waits inside hashCode: a look-up that calls it under a lock holds the lock. */
        static final class Stuck extends URLClassLoader {
            final CountDownLatch inside = new CountDownLatch(1);
            final CountDownLatch release = new CountDownLatch(1);
            volatile boolean armed;

            Stuck(ClassLoader parent) {
                super("stuck", new URL[0], parent);
            }

            @Override
            public int hashCode() {
                if (armed) {
                    inside.countDown();
                    try {
                        release.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                return super.hashCode();
            }
        }

        public static void main(String[] args) throws Exception {
            Path framework = Path.of(args[0], "framework");
            Files.createDirectories(framework.resolve("tracegate/test"));
            Files.write(framework.resolve(MARKER), new byte[] {0});
            URL[] urls = {framework.toUri().toURL()};
            ClassLoader platform = ClassLoader.getPlatformClassLoader();
            URLClassLoader appa = new URLClassLoader("appa", urls, platform);
            URLClassLoader appb = new URLClassLoader("appb", urls, platform);
            Applications.noteFrameworkLoader(appa, MARKER);
            Applications.noteFrameworkLoader(appb, MARKER);
            if (!Applications.several()) {
                System.out.println("NOT SEVERAL");
            }
            Thread self = Thread.currentThread();
            self.setContextClassLoader(appa);
            System.out.println("SESSION FIRST " + Applications.session("alice"));
            self.setContextClassLoader(platform);
            System.out.println("SESSION NONE " + Applications.session("alice"));
            self.setContextClassLoader(appb);
            System.out.println("SESSION " + Applications.session("alice"));

            // allocation: 100000 events of one conversation on one request thread
            com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
            String alice = new String("alice");   // equal to the id seen, another object (a framework's toString)
            Runnable events = () -> {
                for (int i = 0; i < 100_000; i++) {
                    if (Applications.session(alice).length() != 10) {
                        throw new AssertionError();
                    }
                }
            };
            events.run();
            long before = threads.getThreadAllocatedBytes(self.getId());
            events.run();
            System.out.println("ALLOCATED " + (threads.getThreadAllocatedBytes(self.getId()) - before));

            // no lock: another thread is inside the look-up of a context loader not seen before (stuck in its hashCode)
            Stuck stuck = new Stuck(appa);
            stuck.armed = true;
            Thread first = new Thread(() -> Applications.session("bob"));
            first.setContextClassLoader(stuck);
            first.setDaemon(true);
            first.start();
            stuck.inside.await();
            String[] seen = new String[1];
            Thread request = new Thread(() -> seen[0] = Applications.session("alice"));
            request.setContextClassLoader(appb);
            request.setDaemon(true);
            request.start();
            request.join(TimeUnit.SECONDS.toMillis(20));   // a bound for the failure (the old code waits for good), no timing
            System.out.println(request.isAlive() ? "BLOCKED by the other thread's look-up" : "NOT BLOCKED " + seen[0]);
            stuck.armed = false;
            stuck.release.countDown();
            first.join();
            request.join();

            // no loader kept: a context loader whose events are done, dropped, is collected
            WeakReference<ClassLoader> dropped = contextDone(appb);
            for (int i = 0; i < 40 && dropped.get() != null; i++) {
                System.gc();
                Thread.sleep(25);
            }
            System.out.println("CONTEXT LOADER COLLECTED " + (dropped.get() == null));
            System.out.println("DONE");
        }

        /** A request of appb on a context loader of its own (a child of appb's), which then goes. */
        private static WeakReference<ClassLoader> contextDone(ClassLoader app) throws Exception {
            URLClassLoader context = new URLClassLoader("request", new URL[0], app);
            Thread self = Thread.currentThread();
            ClassLoader was = self.getContextClassLoader();
            self.setContextClassLoader(context);
            List<String> ids = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                ids.add(Applications.session("carol"));
            }
            self.setContextClassLoader(was);
            context.close();
            if (!ids.get(2).equals("appb/carol")) {
                System.out.println("UNEXPECTED " + ids);
            }
            return new WeakReference<>(context);
        }
    }
}
