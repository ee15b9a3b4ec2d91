package dev.tracegate.agent.core;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.InvocationTargetException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.security.ProtectionDomain;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Defines the dispatcher (the classes at the agent jar's root under {@code dev/tracegate/agent/bootstrap/}, JDK types
 * only, which woven framework code calls) in the bootstrap loader, one class at a time, without appending the jar to the
 * bootstrap search path.
 *
 * <p>Why: appending to the bootstrap search after start-up makes HotSpot turn class data sharing off for the platform and
 * application loaders ("Sharing is only supported for boot loader classes because bootstrap classpath has been
 * appended"): hundreds of JDK classes are then read from the image instead of the archive, and a service started with
 * its own AppCDS archive ({@code -XX:SharedArchiveFile}, Spring Boot's CDS training) loses all of its archived classes.
 *
 * <p>How: {@code java.base} exports {@code jdk.internal.misc} to this loader's unnamed module (the agent's own classes
 * only, not the application's class path), and {@code jdk.internal.misc.Unsafe.defineClass} with a null loader defines
 * each class, its super types in the package first. Once defined, every loader that delegates to the bootstrap loader
 * finds them, as it found them on the appended path. The launcher calls {@link #define} reflectively before anything
 * names a dispatcher type, and appends the jar as before if it returns a reason. It must name no dispatcher type itself.
 */
public final class BootDispatcher {

    /** The package's directory in the jar. */
    static final String PACKAGE = "dev/tracegate/agent/bootstrap/";

    /** The list of the package's class files, one file name a line, that the agent's build writes into the jar. */
    static final String INDEX = PACKAGE + "classes.idx";

    /** Why the last start put the jar on the bootstrap search path instead (null: it did not). */
    private static volatile String appended;

    /** How many classes the last start defined (0 when it appended, or found them all defined by an earlier start). */
    private static volatile int defined;

    private BootDispatcher() {
    }

    /**
     * Defines the dispatcher's classes of {@code agentJar} in the bootstrap loader (those an earlier start defined are
     * kept). Returns null when every class is there, else why not, for the launcher to append the jar instead.
     */
    public static String define(Instrumentation instrumentation, File agentJar) {
        appended = null;
        defined = 0;
        try {
            Map<String, byte[]> classes = read(agentJar);
            if (classes.isEmpty()) return note("no " + PACKAGE + " classes in " + agentJar);
            Module base = Object.class.getModule();
            Module own = BootDispatcher.class.getModule();
            if (!base.isExported("jdk.internal.misc", own)) {
                instrumentation.redefineModule(base, Set.of(), Map.of("jdk.internal.misc", Set.of(own)), Map.of(), Set.of(), Map.of());
            }
            Class<?> unsafeType = Class.forName("jdk.internal.misc.Unsafe");
            Object unsafe = unsafeType.getMethod("getUnsafe").invoke(null);
            // a method handle, not Method.invoke: 32 reflective calls would pass the JDK's inflation threshold and
            // generate an accessor class (about 14 more JDK classes loaded at start)
            MethodHandle defineClass = MethodHandles.lookup().findVirtual(unsafeType, "defineClass", MethodType.methodType(
                    Class.class, String.class, byte[].class, int.class, int.class, ClassLoader.class, ProtectionDomain.class))
                    .bindTo(unsafe);
            int count = 0;
            for (String name : order(classes)) {
                if (bootstrapHas(name)) continue;   // an earlier attach of this JVM defined it
                byte[] bytes = classes.get(name);
                Class<?> c = (Class<?>) defineClass.invokeExact(name, bytes, 0, bytes.length, (ClassLoader) null, (ProtectionDomain) null);
                if (c.getClassLoader() != null) throw new IllegalStateException(name + " was defined by " + c.getClassLoader());
                count++;
            }
            defined = count;
            return null;
        } catch (InvocationTargetException e) {
            return note(String.valueOf(e.getCause()));
        } catch (Throwable e) {
            if (e instanceof VirtualMachineError && !(e instanceof StackOverflowError)) throw (VirtualMachineError) e;
            return note(String.valueOf(e));
        }
    }

    private static String note(String reason) {
        appended = reason;
        return reason;
    }

    /** Why the dispatcher went on the bootstrap search path at this start (class data sharing of the other loaders off), or null. */
    static String appendedBecause() {
        return appended;
    }

    /** The classes this start defined in the bootstrap loader. */
    static int definedCount() {
        return defined;
    }

    private static boolean bootstrapHas(String name) {
        try {
            Class.forName(name, false, null);
            return true;
        } catch (ClassNotFoundException e) {
            return false;
        }
    }

    /**
     * The package's class files in the jar, by binary name: those its index names (written by the agent's build), or,
     * in a jar without one, those a walk over all of the jar's entries finds (about 6,200 entries: 13-21 ms of a start,
     * interpreted, against well under a millisecond for the 33 by name).
     */
    static Map<String, byte[]> read(File agentJar) throws IOException {
        Map<String, byte[]> classes = new LinkedHashMap<>();
        try (JarFile jar = new JarFile(agentJar, false)) {
            JarEntry index = jar.getJarEntry(INDEX);
            if (index != null) {
                String names;
                try (InputStream in = jar.getInputStream(index)) {
                    names = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                }
                for (String file : names.split("\n")) {
                    if (file.isBlank()) continue;
                    if (!file.endsWith(".class") || file.indexOf('/') >= 0) throw new IOException(INDEX + " names " + file + ", not a class file of the package");
                    JarEntry entry = jar.getJarEntry(PACKAGE + file);
                    if (entry == null) throw new IOException(INDEX + " names " + file + ", which the jar does not hold");
                    try (InputStream in = jar.getInputStream(entry)) {
                        classes.put(PACKAGE.replace('/', '.') + file.substring(0, file.length() - ".class".length()), in.readAllBytes());
                    }
                }
                return classes;
            }
            for (Enumeration<JarEntry> entries = jar.entries(); entries.hasMoreElements(); ) {
                JarEntry entry = entries.nextElement();
                String path = entry.getName();
                if (!path.startsWith(PACKAGE) || !path.endsWith(".class") || path.indexOf('/', PACKAGE.length()) >= 0) continue;
                try (InputStream in = jar.getInputStream(entry)) {
                    classes.put(path.substring(0, path.length() - ".class".length()).replace('/', '.'), in.readAllBytes());
                }
            }
        }
        return classes;
    }

    /**
     * The classes' names in an order that defines each after its super class and interfaces among them (defining a
     * class resolves its super types, and the bootstrap loader finds no other copy of the package).
     */
    static List<String> order(Map<String, byte[]> classes) {
        List<String> out = new ArrayList<>(classes.size());
        Set<String> done = new HashSet<>();
        for (String name : classes.keySet()) visit(name, classes, done, new HashSet<>(), out);
        return out;
    }

    private static void visit(String name, Map<String, byte[]> classes, Set<String> done, Set<String> path, List<String> out) {
        if (done.contains(name) || !classes.containsKey(name)) return;
        if (!path.add(name)) throw new IllegalStateException("circular super types at " + name);
        for (String superType : superTypes(classes.get(name))) visit(superType, classes, done, path, out);
        done.add(name);
        out.add(name);
    }

    /** The binary names of a class file's super class and interfaces, from its constant pool. */
    static List<String> superTypes(byte[] b) {
        if (b.length < 10 || u4(b, 0) != 0xCAFEBABE) throw new IllegalArgumentException("not a class file");
        int count = u2(b, 8);
        int[] offsets = new int[count];   // of each entry's bytes after its tag
        int at = 10;
        for (int i = 1; i < count; i++) {
            int tag = b[at] & 0xFF;
            offsets[i] = at + 1;
            switch (tag) {
                case 1 -> at += 3 + u2(b, at + 1);                  // Utf8
                case 3, 4, 9, 10, 11, 12, 17, 18 -> at += 5;        // Integer, Float, the refs, NameAndType, (Invoke)Dynamic
                case 5, 6 -> { at += 9; i++; }                      // Long, Double: two slots
                case 7, 8, 16, 19, 20 -> at += 3;                   // Class, String, MethodType, Module, Package
                case 15 -> at += 4;                                 // MethodHandle
                default -> throw new IllegalArgumentException("constant pool tag " + tag + " at " + at);
            }
        }
        List<String> names = new ArrayList<>();
        int superClass = u2(b, at + 4);
        if (superClass != 0) names.add(className(b, offsets, superClass));
        int interfaces = u2(b, at + 6);
        for (int k = 0; k < interfaces; k++) names.add(className(b, offsets, u2(b, at + 8 + 2 * k)));
        return names;
    }

    private static String className(byte[] b, int[] offsets, int classIndex) {
        int utf8 = offsets[u2(b, offsets[classIndex])];
        // class names are ASCII here; a modified-UTF-8 name outside it would only fail to match a class of the package
        return new String(b, utf8 + 2, u2(b, utf8), java.nio.charset.StandardCharsets.ISO_8859_1).replace('/', '.');
    }

    private static int u2(byte[] b, int at) {
        return (b[at] & 0xFF) << 8 | (b[at + 1] & 0xFF);
    }

    private static int u4(byte[] b, int at) {
        return u2(b, at) << 16 | u2(b, at + 2);
    }
}
