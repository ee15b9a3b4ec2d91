package dev.tracegate.agent.instrumentation;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which of a few framework types (the {@code watched} names) a class is, or has among its super types, read from class
 * files alone: each class file's constant pool gives its name, super class and interfaces, and the class files of those
 * are found through the class's loader, as Byte Buddy's type pool finds them, but nothing else is parsed and no type
 * description is made. Byte Buddy's hierarchy matchers ({@code hasSuperType(named(..))}) can accept a class only if this
 * finds one of their names, so the weaver hands Byte Buddy only those (about one class in twenty of a Spring AI service).
 * A JDK class ({@code java.}) is never under a framework type and is not read. What cannot be read (a super type without
 * a class file, a malformed one) is {@link #UNKNOWN}, and such a class goes to Byte Buddy. Results are cached per loader
 * (weakly held; the values hold no loader). Thread-safe; a loader's lookup may re-enter (a transformer that reads a
 * resource can see the class that reading loads).
 */
final class SuperTypeNames {

    /** The bit that says a super type could not be read: the class may be under any watched type. */
    static final long UNKNOWN = 1L << 63;
    /** Deeper than any real hierarchy: a class file that names itself among its super types stops here. */
    private static final int MAX_DEPTH = 200;

    private final List<String> watched;
    private final Map<ClassLoader, Map<String, Long>> caches = Collections.synchronizedMap(new WeakHashMap<>());

    /** At most 63 watched types (binary names); each gets the bit of its index. */
    SuperTypeNames(List<String> watched) {
        if (watched.size() > 63) {
            throw new IllegalArgumentException("at most 63 framework types can be watched, got " + watched.size());
        }
        this.watched = List.copyOf(watched);
    }

    /** The bit of a watched type, or 0 for a name not watched. */
    long bit(String binaryName) {
        int i = watched.indexOf(binaryName);
        return i < 0 ? 0 : 1L << i;
    }

    /**
     * The bits of the watched types that the class being defined (its class file {@code bytes}, by {@code loader}) is or
     * has among its super types, with {@link #UNKNOWN} if some super type could not be read.
     */
    long reach(ClassLoader loader, byte[] bytes) {
        Header header = Header.read(bytes);
        if (header == null) {
            return UNKNOWN;
        }
        Map<String, Long> cache = cacheOf(loader);
        long reach = reach(loader, cache, header, 0);
        if ((reach & UNKNOWN) == 0) {
            cache.put(header.name, reach); // a sub class defined later finds it here
        }
        return reach;
    }

    private long reach(ClassLoader loader, Map<String, Long> cache, Header header, int depth) {
        long reach = bit(header.name.replace('/', '.'));
        if (header.superName != null) {
            reach |= reachOf(loader, cache, header.superName, depth + 1);
        }
        for (String i : header.interfaces) {
            reach |= reachOf(loader, cache, i, depth + 1);
        }
        return reach;
    }

    /** The reach of a super type (internal name), from the cache or its class file. */
    private long reachOf(ClassLoader loader, Map<String, Long> cache, String internalName, int depth) {
        if (internalName.startsWith("java/")) {
            return 0;
        }
        Long known = cache.get(internalName);
        if (known != null) {
            return known;
        }
        if (depth > MAX_DEPTH) {
            return UNKNOWN;
        }
        Header header = Header.read(classFile(loader, internalName));
        if (header == null || !header.name.equals(internalName)) {
            return UNKNOWN; // not cached: a class generated later may still appear under that name
        }
        long reach = reach(loader, cache, header, depth);
        if ((reach & UNKNOWN) == 0) {
            cache.put(internalName, reach);
        }
        return reach;
    }

    private Map<String, Long> cacheOf(ClassLoader loader) {
        Map<String, Long> cache = caches.get(loader);
        if (cache == null) {
            cache = new ConcurrentHashMap<>();
            Map<String, Long> raced;
            synchronized (caches) {
                raced = caches.putIfAbsent(loader, cache);
            }
            if (raced != null) {
                cache = raced;
            }
        }
        return cache;
    }

    private static byte[] classFile(ClassLoader loader, String internalName) {
        String resource = internalName + ".class";
        try (InputStream in = loader == null ? ClassLoader.getSystemResourceAsStream(resource) : loader.getResourceAsStream(resource)) {
            return in == null ? null : in.readAllBytes();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** A class file's own name, super class (null for none) and interfaces, as internal names. */
    record Header(String name, String superName, String[] interfaces) {

        /** Null for what is not a readable class file. */
        static Header read(byte[] b) {
            if (b == null || b.length < 10 || u2(b, 0) != 0xCAFE || u2(b, 2) != 0xBABE) {
                return null;
            }
            try {
                int count = u2(b, 8);
                int[] at = new int[count];
                int p = 10;
                for (int i = 1; i < count; i++) {
                    at[i] = p;
                    switch (b[p] & 0xff) {
                        case 1 -> p += 3 + u2(b, p + 1);                 // Utf8
                        case 7, 8, 16, 19, 20 -> p += 3;               // Class, String, MethodType, Module, Package
                        case 15 -> p += 4;                             // MethodHandle
                        case 3, 4, 9, 10, 11, 12, 17, 18 -> p += 5;    // Integer, Float, refs, NameAndType, (Invoke)Dynamic
                        case 5, 6 -> { p += 9; i++; }                   // Long, Double: two slots
                        default -> { return null; }
                    }
                }
                String name = className(b, at, u2(b, p + 2));
                int superIndex = u2(b, p + 4);
                String superName = superIndex == 0 ? null : className(b, at, superIndex);
                int n = u2(b, p + 6);
                String[] interfaces = new String[n];
                for (int i = 0; i < n; i++) {
                    interfaces[i] = className(b, at, u2(b, p + 8 + 2 * i));
                }
                return name == null ? null : new Header(name, superName, interfaces);
            } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
                return null;
            }
        }

        private static String className(byte[] b, int[] at, int classIndex) {
            int c = at[classIndex];
            if ((b[c] & 0xff) != 7) {
                throw new IllegalArgumentException("not a class entry");
            }
            int u = at[u2(b, c + 1)];
            if ((b[u] & 0xff) != 1) {
                throw new IllegalArgumentException("not a Utf8 entry");
            }
            int length = u2(b, u + 1);
            for (int i = 0; i < length; i++) {
                if (b[u + 3 + i] <= 0) {
                    return modifiedUtf8(b, u + 1); // a non-ASCII name
                }
            }
            return new String(b, u + 3, length, StandardCharsets.ISO_8859_1);
        }

        private static String modifiedUtf8(byte[] b, int at) {
            try {
                return new java.io.DataInputStream(new java.io.ByteArrayInputStream(b, at, b.length - at)).readUTF();
            } catch (IOException e) {
                throw new IllegalArgumentException(e);
            }
        }

        private static int u2(byte[] b, int p) {
            return ((b[p] & 0xff) << 8) | (b[p + 1] & 0xff);
        }
    }
}
