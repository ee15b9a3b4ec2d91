package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.core.AgentLog;

import java.io.File;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipInputStream;

/**
 * Notices a framework relocated by shading ({@code dev.langchain4j -> com.vendor.shaded.lc4j}): the hook points match
 * the framework's own class names, so a relocated copy runs every tool unsupervised (trial40 01). When a class loads
 * whose name ends like one of an instrumentation's {@link Hooks#chokePoints} but lies outside its
 * {@link Hooks#frameworkPackage}, and its class loader also has the instrumentation's {@link Hooks#chokePointSiblings}
 * under the same relocated prefix, one WARN says so at once, with the fix (configured methods). It is not a transformer of
 * its own: the weaver's transformer shows it each class being defined ({@code Weaver#noteDefined}), so a class load does
 * not cross into Java once more with another copy of its class file. Its only work per class is a suffix test on the
 * name, which allocates nothing; only a class that passes it
 * has its siblings looked up (as resources of its loader, so a loader that serves no resources, rare, is never taken
 * for a relocated copy). Before session 20 the suffix alone counted, so an application's own
 * {@code com.acme.tool.ToolCallback} was named a relocated Spring AI. Weaving the relocated copy is not attempted: the
 * advice and the bridge name the framework's types ({@code dev.langchain4j.agent.tool.ToolExecutionRequest}...), which a
 * relocated copy does not have.
 */
public final class RelocatedFrameworks {

    /**
     * One choke point: the instrumentation, the class, its framework package and the name's end
     * ({@code /service/tool/ToolService}), and the ends of its siblings' names ({@code /service/AiServices}).
     */
    private record Point(String hook, String className, String ownPrefix, String suffix, String[] siblings) {
    }

    private final Point[] points;
    /** Per instrumentation, the first relocated copy seen (binary name). */
    private final Map<String, String> found = new ConcurrentHashMap<>();

    public RelocatedFrameworks(List<Hooks> hooks) {
        List<Point> all = new ArrayList<>();
        for (Hooks h : hooks) {
            String pkg = h.frameworkPackage();
            if (pkg == null) continue;
            List<String> siblings = new ArrayList<>();
            for (String c : h.chokePointSiblings()) {
                if (c.startsWith(pkg + ".")) siblings.add(c.substring(pkg.length()).replace('.', '/'));
            }
            for (String c : h.chokePoints()) {
                if (!c.startsWith(pkg + ".")) continue;
                all.add(new Point(h.name(), c, pkg.replace('.', '/') + "/", c.substring(pkg.length()).replace('.', '/'),
                        siblings.toArray(new String[0])));
            }
        }
        points = all.toArray(new Point[0]);
    }

    /** Whether any instrumentation has a choke point to watch for. */
    public boolean watches() {
        return points.length > 0;
    }

    /** Whether {@code internalName} is named like {@code p}'s choke point, outside the framework's own package. */
    private static boolean namedLike(Point p, String internalName) {
        return internalName.endsWith(p.suffix()) && internalName.length() > p.suffix().length() && !internalName.startsWith(p.ownPrefix());
    }

    /**
     * Notes a class (internal name, with slashes) that {@code loader} (null: the bootstrap loader) is defining; warns once
     * per instrumentation if it is a relocated choke point: named like one, with the siblings beside it in that loader.
     */
    void noteLoaded(String internalName, ClassLoader loader) {
        for (Point p : points) {
            if (namedLike(p, internalName)) {
                if (found.containsKey(p.hook())) return;
                String prefix = internalName.substring(0, internalName.length() - p.suffix().length());
                if (siblingsIn(p, prefix, loader)) {
                    noteRelocated(p, internalName.replace('/', '.'), "was loaded");
                    return;
                }
            }
        }
    }

    /** Whether {@code loader} has every sibling of {@code p} under {@code prefix} (as a class file resource). */
    private static boolean siblingsIn(Point p, String prefix, ClassLoader loader) {
        for (String sibling : p.siblings()) {
            String resource = prefix + sibling + ".class";
            try {
                if ((loader == null ? ClassLoader.getSystemResource(resource) : loader.getResource(resource)) == null) return false;
            } catch (RuntimeException | LinkageError unreadable) {
                return false;   // a loader that refuses resource lookups: not known to be a relocated copy
            }
        }
        return true;
    }

    private void noteRelocated(Point p, String name, String how) {
        if (found.putIfAbsent(p.hook(), name) == null) {
            AgentLog.warn(warning(p.hook(), p.ownPrefix().substring(0, p.ownPrefix().length() - 1).replace('/', '.'), p.className(), name, how));
        }
    }

    /** The relocated copy noted for an instrumentation, else null. */
    public String relocated(String hook) {
        return found.get(hook);
    }

    /** Instrumentations a relocated copy was noted for, with that copy's class. */
    public Map<String, String> relocated() {
        return Map.copyOf(found);
    }

    /**
     * On attach: looks for a relocated copy among the loaded classes and, for instrumentations whose framework is not
     * loaded, in the jars of the class path (an application that loads its framework later, e.g. on its first request),
     * including the jars nested in a Spring Boot executable jar or war ({@code BOOT-INF/lib/*.jar}, {@code WEB-INF/lib}),
     * whose class path is that one jar. Reading a jar's directory costs a few milliseconds, a nested jar is read through
     * once; it is done only here, never per class.
     */
    public void scanAtAttach(Instrumentation instrumentation) {
        if (points.length == 0) return;
        for (Class<?> c : instrumentation.getAllLoadedClasses()) {
            String n = c.getName();
            if (n.indexOf('/') < 0 && n.charAt(0) != '[') {
                ClassLoader loader;
                try {
                    loader = c.getClassLoader();
                } catch (SecurityException e) {
                    continue;
                }
                noteLoaded(n.replace('.', '/'), loader);
            }
        }
        if (found.size() == distinctHooks()) return;
        scanClassPath(System.getProperty("java.class.path", ""));
    }

    /** The class path part of {@link #scanAtAttach}: every jar's classes and nested jars' classes, siblings checked per jar file. */
    void scanClassPath(String classPath) {
        for (String entry : classPath.split(File.pathSeparator)) {
            if (found.size() == distinctHooks()) return;
            if (!entry.endsWith(".jar") && !entry.endsWith(".war")) continue;
            File jar = new File(entry);
            if (!jar.isFile()) continue;
            // the classes named like a choke point or a sibling, with where they are (a nested jar of a Boot jar may hold
            // a relocated framework whose siblings are in another nested jar: one map for the whole file)
            Map<String, String> named = new HashMap<>();
            try (ZipFile zip = new ZipFile(jar)) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    ZipEntry e = entries.nextElement();
                    String n = e.getName();
                    if (n.endsWith(".class")) {
                        collect(n, jar.getName(), named);
                    } else if (n.endsWith(".jar") && (n.startsWith("BOOT-INF/lib/") || n.startsWith("WEB-INF/lib/")
                            || n.startsWith("WEB-INF/lib-provided/"))) {
                        String where = jar.getName() + "!/" + n;
                        try (ZipInputStream nested = new ZipInputStream(zip.getInputStream(e))) {
                            for (ZipEntry ne; (ne = nested.getNextEntry()) != null; ) {
                                if (ne.getName().endsWith(".class")) collect(ne.getName(), where, named);
                            }
                        } catch (IOException | RuntimeException unreadable) {
                            AgentLog.debug("relocated frameworks: could not read " + where + " (" + unreadable + ")");
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                AgentLog.debug("relocated frameworks: could not read " + jar + " (" + e + ")");
                continue;
            }
            for (Map.Entry<String, String> c : named.entrySet()) {
                String internal = c.getKey();
                for (Point p : points) {
                    if (!namedLike(p, internal) || found.containsKey(p.hook())) continue;
                    String prefix = internal.substring(0, internal.length() - p.suffix().length());
                    boolean siblings = true;
                    for (String sibling : p.siblings()) siblings &= named.containsKey(prefix + sibling);
                    if (siblings) noteRelocated(p, internal.replace('/', '.'), "is in " + c.getValue());
                }
            }
        }
    }

    /** Adds the class file entry {@code entry} (of a jar, Boot jar layouts included) to {@code named} if it is named like a choke point or a sibling. */
    private void collect(String entry, String where, Map<String, String> named) {
        String internal = entry.substring(0, entry.length() - ".class".length());
        if (internal.startsWith("BOOT-INF/classes/")) internal = internal.substring("BOOT-INF/classes/".length());
        else if (internal.startsWith("WEB-INF/classes/")) internal = internal.substring("WEB-INF/classes/".length());
        if (internal.startsWith("META-INF/")) return;   // multi-release copies
        for (Point p : points) {
            boolean keep = internal.endsWith(p.suffix());
            for (String sibling : p.siblings()) keep |= internal.endsWith(sibling);
            if (keep) {
                named.putIfAbsent(internal, where);
                return;
            }
        }
    }

    private int distinctHooks() {
        java.util.Set<String> hooks = new java.util.HashSet<>();
        for (Point p : points) hooks.add(p.hook());
        return hooks.size();
    }

    /** The WARN for a relocated copy {@code name} of {@code original}. */
    static String warning(String hook, String pkg, String original, String name, String how) {
        return name + " " + how + ": it is a relocated (shaded) copy of " + original + ", and tracegate does not supervise a"
                + " relocated framework: instrumentation " + hook + " weaves only " + pkg + ".*, so the tool calls of this copy run UNSUPERVISED. List the application's own tool methods as configured"
                + " methods, e.g. configured-methods: [{class: \"com.acme.app.Tools\", method: \"*\", kind: tool}] (CONFIG.md,"
                + " \"Shaded, modular and jlink'd applications\"); the model's answers stay unsupervised (no assistant events).";
    }
}
