package dev.tracegate.agent.instrumentation;

import dev.tracegate.agent.core.AgentLog;

import java.io.File;
import java.io.IOException;
import java.lang.instrument.ClassFileTransformer;
import java.lang.instrument.Instrumentation;
import java.security.ProtectionDomain;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * Notices a framework relocated by shading ({@code dev.langchain4j -> com.vendor.shaded.lc4j}): the hook points match
 * the framework's own class names, so a relocated copy runs every tool unsupervised (trial40 01). When a class loads
 * whose name ends like one of an instrumentation's {@link Hooks#chokePoints} but lies outside its
 * {@link Hooks#frameworkPackage}, one WARN says so at once, with the fix (configured methods). The transformer changes
 * nothing; its only work per class is a suffix test on the name. Weaving the relocated copy is not attempted: the
 * advice and the bridge name the framework's types ({@code dev.langchain4j.agent.tool.ToolExecutionRequest}...), which a
 * relocated copy does not have.
 */
public final class RelocatedFrameworks implements ClassFileTransformer {

    /** One choke point: the instrumentation, the class, its framework package and the name's end ({@code /service/tool/ToolService}). */
    private record Point(String hook, String className, String ownPrefix, String suffix) {
    }

    private final Point[] points;
    /** Per instrumentation, the first relocated copy seen (binary name). */
    private final Map<String, String> found = new ConcurrentHashMap<>();

    public RelocatedFrameworks(List<Hooks> hooks) {
        List<Point> all = new ArrayList<>();
        for (Hooks h : hooks) {
            String pkg = h.frameworkPackage();
            if (pkg == null) continue;
            for (String c : h.chokePoints()) {
                if (!c.startsWith(pkg + ".")) continue;
                all.add(new Point(h.name(), c, pkg.replace('.', '/') + "/", c.substring(pkg.length()).replace('.', '/')));
            }
        }
        points = all.toArray(new Point[0]);
    }

    /** Whether any instrumentation has a choke point to watch for. */
    public boolean watches() {
        return points.length > 0;
    }

    @Override
    public byte[] transform(ClassLoader loader, String name, Class<?> redefined, ProtectionDomain domain, byte[] bytes) {
        if (name != null && redefined == null) noteLoaded(name);
        return null;
    }

    /** Notes a class (internal name, with slashes) that is being defined; warns once per instrumentation if it is a relocated choke point. */
    void noteLoaded(String internalName) {
        for (Point p : points) {
            if (internalName.endsWith(p.suffix()) && internalName.length() > p.suffix().length() && !internalName.startsWith(p.ownPrefix())) {
                noteRelocated(p, internalName.replace('/', '.'), "was loaded");
                return;
            }
        }
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
     * loaded, in the jars of the class path (an application that loads its framework later, e.g. on its first request).
     * Reading a jar's directory costs a few milliseconds; it is done only here, never per class.
     */
    public void scanAtAttach(Instrumentation instrumentation) {
        if (points.length == 0) return;
        for (Class<?> c : instrumentation.getAllLoadedClasses()) {
            String n = c.getName();
            if (n.indexOf('/') < 0 && n.charAt(0) != '[') noteLoaded(n.replace('.', '/'));
        }
        String classPath = System.getProperty("java.class.path", "");
        for (String entry : classPath.split(File.pathSeparator)) {
            if (found.size() == distinctHooks()) return;
            if (!entry.endsWith(".jar")) continue;
            File jar = new File(entry);
            if (!jar.isFile()) continue;
            try (ZipFile zip = new ZipFile(jar)) {
                Enumeration<? extends ZipEntry> entries = zip.entries();
                while (entries.hasMoreElements()) {
                    String e = entries.nextElement().getName();
                    if (!e.endsWith(".class")) continue;
                    String internal = e.substring(0, e.length() - ".class".length());
                    if (internal.startsWith("META-INF/")) continue;   // multi-release copies
                    for (Point p : points) {
                        if (internal.endsWith(p.suffix()) && internal.length() > p.suffix().length() && !internal.startsWith(p.ownPrefix())) {
                            noteRelocated(p, internal.replace('/', '.'), "is in " + jar.getName());
                        }
                    }
                }
            } catch (IOException | RuntimeException e) {
                AgentLog.debug("relocated frameworks: could not read " + jar + " (" + e + ")");
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
