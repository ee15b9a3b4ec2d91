package dev.tracegate.bench.agent;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.io.File;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The session id of one event in a JVM of one or several applications (the agent's {@code core.Applications#session},
 * which every event entry of the agent calls): with {@code apps=2} two class loaders have their own copy of a framework,
 * as two web apps in Tomcat, and the benchmark thread's context loader is the second's, so the id is
 * {@code appb/<conversation>}; with {@code apps=1} only one has, and the id is the conversation's own. The agent's classes
 * come from an agent jar ({@code jar}: a path, default {@code agent/target/tracegate-agent.jar}) in a loader of their own,
 * as the agent's class loader reads them, so two jars (before and after a change) are measured with one benchmarks.jar:
 * {@code -p jar=old.jar,new.jar}. Read {@code -prof gc}'s B/op: until session 19 the several-application path built a
 * String per event (and took a JVM-wide lock).
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 10, time = 1)
@Fork(value = 3, jvmArgsAppend = {"-Xms1g", "-Xmx1g"})
public class ApplicationsBenchmark {

    /** A framework's marker resource, as the weaver's per-loader check names it. */
    static final String MARKER = "bench/framework/Marker.class";

    /** The agent's Applications class from {@code jar}, with the applications noted and this thread's context loader set. */
    @State(Scope.Thread)
    public static class Host {
        /** The agent jar whose classes are measured; empty: agent/target/tracegate-agent.jar. */
        @Param({""})
        public String jar;

        /** 1: one application (ids unchanged); 2: two, this thread's the second. */
        @Param({"2"})
        public int apps;

        MethodHandle session;
        String conversation;

        @Setup(Level.Trial)
        public void setUp() throws Throwable {
            File agentJar = new File(jar.isEmpty() ? "agent/target/tracegate-agent.jar" : jar).getAbsoluteFile();
            if (!agentJar.isFile()) {
                throw new IllegalStateException("no agent jar at " + agentJar + " (build it, or give -p jar=<path>)");
            }
            String base = "jar:" + agentJar.toURI() + "!/";
            // inst/: the agent's own classes; the root: the bootstrap package (WeakIdentityMap since session 19)
            ClassLoader agent = new URLClassLoader(new URL[] {new URL(base + "inst/"), new URL(base)}, ClassLoader.getPlatformClassLoader());
            Class<?> applications = Class.forName("dev.tracegate.agent.core.Applications", true, agent);
            MethodHandles.Lookup lookup = MethodHandles.publicLookup();
            MethodHandle note = lookup.findStatic(applications, "noteFrameworkLoader",
                    MethodType.methodType(void.class, ClassLoader.class, String.class));
            session = lookup.findStatic(applications, "session", MethodType.methodType(String.class, String.class));

            Path framework = Files.createTempDirectory("bench-apps");
            Files.createDirectories(framework.resolve(MARKER).getParent());
            Files.write(framework.resolve(MARKER), new byte[] {0});
            framework.toFile().deleteOnExit();
            URL[] copy = {framework.toUri().toURL()};
            ClassLoader appa = new URLClassLoader("appa", copy, ClassLoader.getPlatformClassLoader());
            ClassLoader appb = new URLClassLoader("appb", copy, ClassLoader.getPlatformClassLoader());
            note.invokeExact(appa, MARKER);
            if (apps > 1) {
                note.invokeExact(appb, MARKER);
            }
            Thread.currentThread().setContextClassLoader(apps > 1 ? appb : appa);
            conversation = "alice";
            String id = (String) session.invokeExact(conversation);
            String expected = apps > 1 ? "appb/alice" : "alice";
            if (!expected.equals(id)) {
                throw new IllegalStateException("session id " + id + ", expected " + expected + " with " + apps + " application(s)");
            }
        }
    }

    /** One event's session id: the conversation's, in its application. */
    @Benchmark
    public String sessionOfAnEvent(Host host) throws Throwable {
        return (String) host.session.invokeExact(host.conversation);
    }
}
