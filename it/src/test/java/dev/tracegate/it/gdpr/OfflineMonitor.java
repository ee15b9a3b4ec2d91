package dev.tracegate.it.gdpr;

import java.io.File;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The contracts library of the built agent jar, used offline: it loads the jar's own classes (stored
 * under {@code inst/}, invisible to ordinary class paths) through the jar's {@code AgentClassLoader}
 * and calls {@code Library.load}, {@code Library.replay} and {@code Replay.next} by reflection, so this
 * module keeps treating the agent as a black-box jar. It also exposes the one seam the noise experiment
 * needs: the memo in which an event's arguments keep their detected data categories
 * ({@code Args.categories}); setting it before grounding makes the grounding use perturbed categories,
 * while the policy's field map still applies on top (as online).
 */
final class OfflineMonitor {

    /** What the replay decided for one event: PASS, BLOCK, SUPPRESS, VIOLATION or UNEVALUABLE, and by which contracts. */
    record Decision(String kind, List<String> contracts) {
        boolean refused() {
            return kind.equals("BLOCK") || kind.equals("SUPPRESS") || kind.equals("UNEVALUABLE");
        }
    }

    private final ClassLoader loader;
    private final Object library;
    private final List<String> contractIds = new ArrayList<>();
    private final Method replay;
    private final Method next;
    private final Method call;
    private final Method returned;
    private final Method user;
    private final Method assistant;
    private final Method args;
    private final Method categoryMask;
    private final Class<?> maskClass;
    private final Field detected;
    private final long computedBit;
    private final Method stepKind;
    private final Method stepContracts;

    OfflineMonitor(Path agentJar, List<String> sources, Path base) {
        try {
            URLClassLoader launch = new URLClassLoader(new URL[] {agentJar.toUri().toURL()}, ClassLoader.getPlatformClassLoader());
            Class<?> acl = launch.loadClass("dev.tracegate.agent.launch.AgentClassLoader");
            loader = (ClassLoader) acl.getConstructor(File.class, ClassLoader.class).newInstance(agentJar.toFile(), null);
            Class<?> lib = loader.loadClass("dev.tracegate.contracts.library.Library");
            library = lib.getMethod("load", List.class, Path.class).invoke(null, sources, base);
            for (Object info : (List<?>) lib.getMethod("info").invoke(library)) {
                contractIds.add((String) info.getClass().getMethod("id").invoke(info));
            }
            replay = lib.getMethod("replay", String.class);
            Class<?> replayClass = loader.loadClass("dev.tracegate.engine.monitor.Replay");
            next = replayClass.getMethod("next", Object.class, boolean.class, boolean.class);
            Class<?> event = loader.loadClass("dev.tracegate.matchers.event.Event");
            call = event.getMethod("call", String.class, long.class, String.class, String.class);
            returned = event.getMethod("returned", String.class, long.class, String.class, String.class, boolean.class);
            user = event.getMethod("user", String.class, long.class, String.class);
            assistant = event.getMethod("assistant", String.class, long.class, String.class);
            args = event.getMethod("args");
            Class<?> argsClass = loader.loadClass("dev.tracegate.matchers.event.Args");
            maskClass = loader.loadClass("dev.tracegate.matchers.pii.SpanSink$Mask");
            categoryMask = argsClass.getMethod("categoryMask", loader.loadClass("dev.tracegate.matchers.pii.SpanSink$Mask"));
            detected = argsClass.getDeclaredField("categories");   // one int since session 23 (CategoryMemo)
            detected.setAccessible(true);
            Field computed = loader.loadClass("dev.tracegate.matchers.event.CategoryMemo").getDeclaredField("KNOWN");
            computed.setAccessible(true);
            computedBit = computed.getInt(null);
            Class<?> step = loader.loadClass("dev.tracegate.engine.monitor.Replay$Step");
            stepKind = step.getMethod("decision");
            stepContracts = step.getMethod("contracts");
        } catch (ReflectiveOperationException | java.net.MalformedURLException e) {
            Throwable cause = e instanceof java.lang.reflect.InvocationTargetException ite ? ite.getCause() : e;
            throw new IllegalStateException("cannot load libraries " + sources + " from the agent jar " + agentJar + ": " + cause, cause);
        }
    }

    List<String> contractIds() {
        return contractIds;
    }

    /** One replayed session. */
    final class Session {
        private final Object replay;
        private final String id;
        private long seq;

        private Session(String id) {
            this.id = id;
            this.replay = invoke(OfflineMonitor.this.replay, library, id);
        }

        Decision user(String text) {
            return step(invoke(OfflineMonitor.this.user, null, id, seq++, text), false);
        }

        Decision answer(String text) {
            return step(invoke(assistant, null, id, seq++, text), true);
        }

        Decision result(String tool, String result) {
            return step(invoke(returned, null, id, seq++, tool, result, false), false);
        }

        /** A tool call; {@code categories} (bits of the built-in categories), when not null, replaces what the extractor finds in the arguments. */
        Decision call(String tool, String argsJson, Long categories) {
            Object e = invoke(call, null, id, seq++, tool, argsJson);
            if (categories != null) {
                try {
                    detected.setInt(invoke(args, e), (int) (categories | computedBit));
                } catch (IllegalAccessException x) {
                    throw new IllegalStateException(x);
                }
            }
            return step(e, true);
        }

        private Decision step(Object event, boolean agent) {
            Object s = invoke(next, replay, event, agent, true);
            String kind = String.valueOf(invoke(stepKind, s));
            List<String> blamed = new ArrayList<>();
            for (int c : (int[]) invoke(stepContracts, s)) blamed.add(contractIds.get(c));
            return new Decision(kind, blamed);
        }
    }

    Session session(String id) {
        return new Session(id);
    }

    /** What the extractor finds in arguments (field-name hints and detectors), as category bits. */
    long detect(String tool, String argsJson) {
        Object e = invoke(call, null, "detect", 0L, tool, argsJson);
        try {
            return (long) categoryMask.invoke(invoke(args, e), maskClass.getConstructor().newInstance());
        } catch (ReflectiveOperationException x) {
            throw new IllegalStateException(x);
        }
    }

    private static Object invoke(Method m, Object target, Object... a) {
        try {
            return m.invoke(target, a);
        } catch (IllegalAccessException e) {
            throw new IllegalStateException(e);
        } catch (java.lang.reflect.InvocationTargetException e) {
            if (e.getCause() instanceof RuntimeException r) throw r;
            throw new IllegalStateException(e.getCause());
        }
    }
}
