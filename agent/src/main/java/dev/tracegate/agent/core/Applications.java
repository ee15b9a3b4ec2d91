package dev.tracegate.agent.core;

import java.lang.ref.WeakReference;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;

import dev.tracegate.agent.bootstrap.WeakIdentityMap;

/**
 * The applications of the JVM, for sessions: an application is a class loader that defines its own copy of a
 * supervised framework (it sees the framework's marker class and its parent does not: a web app with the framework
 * in {@code WEB-INF/lib}, the application class loader of a plain service). A JVM with one keeps its session ids as
 * they are. When a second one appears (an application server with several web apps, each with its own copy), the
 * sessions of every application but the first become {@code <application>/<id>}, so that two apps whose users share
 * a memory id ("alice") are not one conversation (trial35). The first application keeps plain ids, so that its
 * ongoing conversations do not change id when another app starts using the framework later.
 * <p>
 * An event belongs to the application its thread's context class loader is (or descends from), as a servlet
 * container sets it while a request runs; a thread whose context loader is none of them (a shared pool) counts as
 * the first application. The name is {@link ClassLoader#getName()}, else Tomcat's context name
 * ({@code WebappClassLoaderBase#getContextName}), else the loader's class name with a number; a loader with the
 * first application's name (a redeploy of it) is the first application too. Loaders are held weakly.
 */
public final class Applications {
    private static final Map<ClassLoader, String> NAMES = Collections.synchronizedMap(new WeakHashMap<>());
    /**
     * What a thread's context loader maps to: the application's name, or "" for the first application or none. Read on
     * every event of a JVM of several applications: by identity, no lock, no allocation (until session 19 a synchronized
     * WeakHashMap: one JVM-wide lock per event, the loader's own hashCode called under it). Loaders held weakly.
     */
    private static final WeakIdentityMap<ClassLoader, String> CONTEXTS = new WeakIdentityMap<>();
    /** Changed (under the class's lock) whenever an application appears, before {@code CONTEXTS} is cleared: a look-up begun before it is not kept. */
    private static volatile int generation;
    /**
     * Per thread, the newest session id made of an application's name and a conversation id: {application (the
     * {@code CONTEXTS} value, compared by identity), conversation id, "application/conversation id"}, so that the events of
     * a request (one application, one conversation) build the text once, not per event. Strings only: no loader kept.
     */
    private static final ThreadLocal<String[]> LAST = new ThreadLocal<String[]>() {
        @Override
        protected String[] initialValue() {
            return new String[3];
        }
    };
    private static volatile boolean several;
    private static volatile String firstName;
    private static WeakReference<ClassLoader> first;
    private static int unnamed;

    private Applications() {
    }

    /** A loader that sees a framework's marker class (resource path): noted when it defines its own copy. */
    public static void noteFrameworkLoader(ClassLoader loader, String markerResource) {
        if (loader == null || NAMES.containsKey(loader)) {
            return;
        }
        ClassLoader parent = loader.getParent();
        try {
            if (parent != null && parent.getResource(markerResource) != null) {
                return; // the parent's copy: not an application of its own
            }
        } catch (RuntimeException e) {
            return;
        }
        synchronized (Applications.class) {
            if (NAMES.containsKey(loader)) {
                return;
            }
            String name = nameOf(loader);
            NAMES.put(loader, name);
            if (first == null) {
                first = new WeakReference<>(loader);
                firstName = name;
                AgentLog.debug("application " + name + " (" + loader.getClass().getName() + "): the first with its own framework copy; its sessions keep their ids");
            } else if (!name.equals(firstName)) {
                several = true;
                AgentLog.debug("application " + name + " (" + loader.getClass().getName() + "): another with its own framework copy; its sessions are " + name + "/<id>");
            }
            // first the count, then the clear: a look-up that read the count before it may have read NAMES before this
            // application; it finds the count changed, or its entry is cleared here after it went in
            generation++;
            CONTEXTS.clear();
        }
    }

    /** Whether the JVM hosts more than one application (then sessions of all but the first carry its name). */
    public static boolean several() {
        return several;
    }

    /**
     * The session id of an event of conversation {@code session} on this thread: {@code session} itself in a JVM with
     * one application, and for the first; {@code <application>/<session>} for the others.
     */
    public static String session(String session) {
        if (!several || session == null) {
            return session;   // one application: one volatile read
        }
        return ofApplication(session);
    }

    /**
     * {@link #session} in a JVM of several applications: no lock; no allocation for the events of a thread whose context
     * loader was seen before and whose previous event was of the same application and conversation (a request's).
     */
    private static String ofApplication(String session) {
        String app = application(Thread.currentThread().getContextClassLoader());
        if (app.isEmpty()) {
            return session;
        }
        String[] last = LAST.get();
        if (last[0] == app && (last[1] == session || session.equals(last[1]))) {
            return last[2];
        }
        String id = app + "/" + session;
        last[0] = app;
        last[1] = session;
        last[2] = id;
        return id;
    }

    /** The application a context loader belongs to: its name, or "" (the first application, or none). */
    static String application(ClassLoader context) {
        if (context == null) {
            return "";
        }
        String known = CONTEXTS.get(context);
        return known != null ? known : applicationFirstSeen(context);
    }

    /** {@link #application} of a context loader not in {@code CONTEXTS} (new, or since an application appeared). */
    private static String applicationFirstSeen(ClassLoader context) {
        int seen = generation;
        String app = "";
        for (ClassLoader l = context; l != null; l = l.getParent()) {
            String name = NAMES.get(l);
            if (name != null) {
                app = name.equals(firstName) ? "" : name;
                break;
            }
        }
        CONTEXTS.putIfAbsent(context, app);
        if (generation != seen) {
            CONTEXTS.remove(context, app);   // an application appeared meanwhile: its answer may differ, asked again next time
        }
        return app;
    }

    /** For debug lines: the loader's application name, or its class name. */
    public static String describe(ClassLoader loader) {
        if (loader == null) {
            return "bootstrap";
        }
        String name = NAMES.get(loader);
        return name != null ? name : loader.getName() != null ? loader.getName() : loader.getClass().getName() + "@" + Integer.toHexString(System.identityHashCode(loader));
    }

    private static String nameOf(ClassLoader loader) {
        String name = loader.getName();
        if (name == null || name.isBlank()) {
            try {
                Object context = loader.getClass().getMethod("getContextName").invoke(loader);
                if (context instanceof String s) {
                    name = s.startsWith("/") ? s.substring(1) : s;
                    if (name.isEmpty()) name = "ROOT";
                }
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                name = null;
            }
        }
        if (name == null || name.isBlank()) {
            name = loader.getClass().getSimpleName() + "#" + (++unnamed);
        }
        return name.replace('/', '_');
    }
}
