package dev.tracegate.agent.launch;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.security.CodeSource;
import java.security.ProtectionDomain;
import java.security.cert.Certificate;
import java.util.Collections;
import java.util.Enumeration;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * The agent's own class loader: defines the classes stored under {@code inst/} in the agent jar
 * (the agent core, the instrumentations and the relocated libraries), which no host loader can see.
 *
 * <p>Its own classes come first; JDK classes next (platform loader, bootstrap, including the
 * dispatcher); anything else (the Attach API module) from the fallback loader.
 */
public final class AgentClassLoader extends ClassLoader {

    static {
        registerAsParallelCapable();
    }

    private static final String PREFIX = "inst/";
    /**
     * The dispatcher's directory at the jar's root: its classes are defined in the bootstrap loader from bytes, so the
     * bootstrap loader has no resource for them; this loader serves their class files (Byte Buddy reads them through it).
     */
    private static final String DISPATCHER = "dev/tracegate/agent/bootstrap/";

    private final JarFile jar;
    private final String jarUrl;
    private final ProtectionDomain domain;
    private final ClassLoader fallback;

    public AgentClassLoader(File agentJar, ClassLoader fallback) {
        super("tracegate", ClassLoader.getPlatformClassLoader());
        try {
            this.jar = new JarFile(agentJar, false);
            URL location = agentJar.toURI().toURL();
            this.jarUrl = "jar:" + location + "!/";
            this.domain = new ProtectionDomain(new CodeSource(location, (Certificate[]) null), null, this, null);
        } catch (IOException e) {
            throw new UncheckedIOException("tracegate: cannot open agent jar " + agentJar, e);
        }
        this.fallback = fallback;
    }

    @Override
    protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
        synchronized (getClassLoadingLock(name)) {
            Class<?> c = findLoadedClass(name);
            if (c == null && !name.startsWith("java.")) {
                // java.* is the JDK's alone (no other loader may define it): most names the agent's classes resolve
                c = defineOwn(name);
            }
            if (c == null) {
                try {
                    c = getParent().loadClass(name);
                } catch (ClassNotFoundException e) {
                    if (fallback == null) {
                        throw e;
                    }
                    c = fallback.loadClass(name);
                }
            }
            if (resolve) {
                resolveClass(c);
            }
            return c;
        }
    }

    private Class<?> defineOwn(String name) throws ClassNotFoundException {
        String path = PREFIX + name.replace('.', '/') + ".class";
        JarEntry entry = jar.getJarEntry(path);
        if (entry == null) {
            return null;
        }
        byte[] bytes;
        try (InputStream in = jar.getInputStream(entry)) {
            long size = entry.getSize();
            bytes = size >= 0 && size < Integer.MAX_VALUE ? in.readNBytes((int) size) : readAll(in);
        } catch (IOException e) {
            throw new ClassNotFoundException("tracegate: cannot read " + path + " from the agent jar", e);
        }
        int dot = name.lastIndexOf('.');
        if (dot > 0) {
            String pkg = name.substring(0, dot);
            if (getDefinedPackage(pkg) == null) {
                try {
                    definePackage(pkg, null, null, null, null, null, null, null);
                } catch (IllegalArgumentException raced) {
                    // defined concurrently by another thread: fine
                }
            }
        }
        return defineClass(name, bytes, 0, bytes.length, domain);
    }

    @Override
    public URL getResource(String name) {
        URL own = findResource(name);
        return own != null ? own : super.getResource(name);
    }

    @Override
    protected URL findResource(String name) {
        String path = entryOf(name);
        if (jar.getJarEntry(path) == null) {
            return null;
        }
        try {
            return new URL(jarUrl + path);
        } catch (MalformedURLException e) {
            return null;
        }
    }

    @Override
    protected Enumeration<URL> findResources(String name) {
        URL own = findResource(name);
        return own == null ? Collections.emptyEnumeration() : Collections.enumeration(Collections.singletonList(own));
    }

    @Override
    public InputStream getResourceAsStream(String name) {
        JarEntry entry = jar.getJarEntry(entryOf(name));
        if (entry != null) {
            try {
                return jar.getInputStream(entry);
            } catch (IOException e) {
                return null;
            }
        }
        return super.getResourceAsStream(name);
    }

    /** The jar entry of a resource of this loader: under {@code inst/}, or the dispatcher's class files at the root. */
    private static String entryOf(String name) {
        return name.startsWith(DISPATCHER) ? name : PREFIX + name;
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buffer = new byte[8192];
        for (int n; (n = in.read(buffer)) > 0; ) {
            out.write(buffer, 0, n);
        }
        return out.toByteArray();
    }
}
