package dev.tracegate.agent.launch;

import java.io.File;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.net.URISyntaxException;
import java.util.jar.JarFile;

/**
 * Entry point of the agent jar: {@code -javaagent} (premain), attach (agentmain) and the command line (main).
 *
 * <p>It puts the dispatcher (the package at the jar's root beside the launcher; everything else is under {@code inst/},
 * invisible to the host) into the bootstrap loader and starts the agent core in its own {@link AgentClassLoader}. The
 * dispatcher's classes are defined there one by one from the agent's loader ({@code BootDispatcher}), which keeps the
 * JVM's class data sharing on for the platform and application loaders; only if that fails is the jar appended to the
 * bootstrap search path, as before (the core says why in a DEBUG line). It must stay a class that touches no dispatcher
 * type before either, so that the dispatcher is only ever defined by the bootstrap loader.
 */
public final class AgentLauncher {

    private static final String CORE = "dev.tracegate.agent.core.AgentCore";
    private static final String CLI = "dev.tracegate.agent.cli.Main";
    /** Defines the dispatcher in the bootstrap loader; in the agent's loader, whose module alone gets {@code jdk.internal.misc}. */
    private static final String BOOT_DISPATCHER = "dev.tracegate.agent.core.BootDispatcher";
    private static final String STARTED = "tracegate.agent.started";
    /** Set by the agent core when an attached agent did not start (its reason); then the agent does not count as started. */
    private static final String FAILED = "tracegate.agent.failed";

    private AgentLauncher() {
    }

    public static void premain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, false);
    }

    public static void agentmain(String arguments, Instrumentation instrumentation) {
        start(arguments, instrumentation, true);
    }

    /** The command line ({@code java -jar tracegate-agent.jar <command>}): runs {@code dev.tracegate.agent.cli.Main} in the agent's loader. */
    public static void main(String[] arguments) throws Throwable {
        ClassLoader loader = new AgentClassLoader(agentJar(), ClassLoader.getSystemClassLoader());
        Thread.currentThread().setContextClassLoader(loader);
        try {
            Class.forName(CLI, true, loader).getMethod("main", String[].class).invoke(null, (Object) arguments);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private static synchronized void start(String arguments, Instrumentation instrumentation, boolean attached) {
        if (System.getProperty(STARTED) != null) {
            System.err.println("[tracegate] WARN agent already running in this JVM (started " + System.getProperty(STARTED)
                    + "); ignoring the second start");
            return;
        }
        try {
            // a reason left by an earlier attach that failed is not this start's
            System.clearProperty(FAILED);
            File jar = agentJar();
            if (!attached && runsOwnCommandLine(jar, System.getProperty("sun.java.command"))) {
                // JAVA_TOOL_OPTIONS=-javaagent:... set for a host also reaches `java -jar tracegate-agent.jar audit verify`:
                // supervising that JVM would only append a segment to the very log it is reading
                System.err.println("[tracegate] INFO not supervising tracegate's own command line (" + jar.getName()
                        + " is both its -javaagent and its -jar, e.g. through JAVA_TOOL_OPTIONS)");
                return;
            }
            ClassLoader loader = new AgentClassLoader(jar, ClassLoader.getSystemClassLoader());
            if (!definedInBootstrap(loader, instrumentation, jar)) {
                instrumentation.appendToBootstrapClassLoaderSearch(new JarFile(jar));
            }
            Class<?> core = Class.forName(CORE, true, loader);
            core.getMethod("start", String.class, Instrumentation.class, boolean.class, File.class)
                    .invoke(null, arguments, instrumentation, attached, jar);
            if (System.getProperty(FAILED) == null) {
                System.setProperty(STARTED, attached ? "by attach" : "by -javaagent");
            }
        } catch (InvocationTargetException e) {
            rethrowStartFailure(e.getCause());
        } catch (Exception | LinkageError e) {
            rethrowStartFailure(e);
        }
    }

    /** Whether the agent's {@code BootDispatcher} defined the dispatcher in the bootstrap loader (else it kept why). */
    private static boolean definedInBootstrap(ClassLoader loader, Instrumentation instrumentation, File jar) {
        try {
            Object refused = Class.forName(BOOT_DISPATCHER, true, loader).getMethod("define", Instrumentation.class, File.class)
                    .invoke(null, instrumentation, jar);
            return refused == null;
        } catch (ReflectiveOperationException | LinkageError e) {
            return false;
        }
    }

    /** Whether this JVM was started as {@code java -jar <the agent jar> ...} ({@code command}: its {@code sun.java.command}). */
    static boolean runsOwnCommandLine(File jar, String command) {
        if (command == null || command.isEmpty()) return false;
        try {
            File own = jar.getCanonicalFile();
            // the jar's path may hold spaces: try every prefix that ends where a word does
            for (int end = command.indexOf(' '); ; end = command.indexOf(' ', end + 1)) {
                String first = end < 0 ? command : command.substring(0, end);
                if (first.endsWith(".jar") && new File(first).getCanonicalFile().equals(own)) return true;
                if (end < 0) return false;
            }
        } catch (java.io.IOException | SecurityException e) {
            return false;
        }
    }

    private static void rethrowStartFailure(Throwable cause) {
        if (cause instanceof RuntimeException) {
            throw (RuntimeException) cause;
        }
        if (cause instanceof Error) {
            throw (Error) cause;
        }
        throw new IllegalStateException("tracegate agent could not start: " + cause, cause);
    }

    private static File agentJar() {
        try {
            return new File(AgentLauncher.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException | NullPointerException e) {
            throw new IllegalStateException("tracegate: cannot locate the agent jar from " + AgentLauncher.class, e);
        }
    }
}
