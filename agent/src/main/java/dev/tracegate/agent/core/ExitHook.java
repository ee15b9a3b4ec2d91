package dev.tracegate.agent.core;

import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;

/**
 * Runs the agent's shutdown (end every session, drain and close the audit log) once the application's own shutdown
 * hooks have returned, not beside them: a service's graceful shutdown (Spring Boot's, a web server's) finishes the
 * requests in flight in its own hook after SIGTERM, and their tool calls must still be decided by the contracts with the
 * session's history and recorded (trial23 03: they were refused as "the audit log is unavailable" under fail: closed,
 * and ran unchecked in a fresh session under fail: open).
 *
 * <p>The JVM runs its shutdown hooks in slots: slot 1 starts every application hook ({@link Runtime#addShutdownHook})
 * and waits for all of them; a later slot runs after that. The agent registers its shutdown in such a slot through the
 * JDK's internal {@code JavaLangAccess.registerShutdownHook}, which its {@link Instrumentation} makes reachable
 * ({@link Instrumentation#redefineModule}, as agents do). Where that is not possible (a JDK without it), the caller
 * falls back to an application hook, which runs beside the others as before.
 */
final class ExitHook {
    /** The JDK's system hook slots are 0 to 9; 0 to 2 are its own (console, application hooks, delete-on-exit). */
    private static final int LAST_SLOT = 9;
    private static final int FIRST_FREE_SLOT = 3;

    private ExitHook() {
    }

    /**
     * Registers {@code work} to run, on a thread named {@code name}, after every application shutdown hook has returned.
     *
     * @return false when it could not be registered so (the caller then adds an application hook)
     */
    static boolean afterApplicationHooks(Instrumentation instrumentation, Runnable work, String name) {
        if (instrumentation == null) return false;
        Runnable hook = () -> {
            // on a thread of its own, named as before, so that a thread dump shows what the exit waits for
            Thread t = new Thread(work, name);
            t.setDaemon(true);
            t.start();
            boolean interrupted = false;
            while (t.isAlive()) {
                try {
                    t.join();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
            if (interrupted) Thread.currentThread().interrupt();
        };
        try {
            Module base = Object.class.getModule();
            Module self = ExitHook.class.getModule();
            if (!base.isExported("jdk.internal.access", self)) {
                instrumentation.redefineModule(base, Set.of(), Map.of("jdk.internal.access", Set.of(self)), Map.of(), Set.of(), Map.of());
            }
            Object access = Class.forName("jdk.internal.access.SharedSecrets").getMethod("getJavaLangAccess").invoke(null);
            Method register = Class.forName("jdk.internal.access.JavaLangAccess")
                    .getMethod("registerShutdownHook", int.class, boolean.class, Runnable.class);
            for (int slot = LAST_SLOT; slot >= FIRST_FREE_SLOT; slot--) {
                try {
                    // true: also while the JVM runs the application's hooks (a supervisor LibraryRecovery builds then),
                    // which a slot after theirs still runs after; false refused that with "Shutdown in progress"
                    register.invoke(access, slot, true, hook);
                    AgentLog.debug("shutdown: the agent's shutdown runs in the JVM's hook slot " + slot + ", after the application's hooks");
                    return true;
                } catch (InvocationTargetException e) {
                    // a slot already taken says "Shutdown hook at slot N already registered" (an InternalError in JDK 17 to 25);
                    // anything else ("Shutdown in progress": the JVM is past that slot, so past every lower one) ends the search
                    if (!String.valueOf(e.getCause() == null ? null : e.getCause().getMessage()).contains("already registered")) {
                        AgentLog.debug("shutdown: no late hook slot (" + e.getCause() + "); an application shutdown hook instead");
                        return false;
                    }
                }
            }
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            AgentLog.debug("shutdown: no late hook slot (" + e + "); an application shutdown hook instead");
        }
        return false;
    }
}
