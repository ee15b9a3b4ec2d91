package dev.tracegate.it;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Kotlin apps under test: the sources of {@code it/src/test/kotlin/demoapp/<name>} compiled at test time with Kotlin
 * 2.4.21 (the compiler the build copied to {@code target/kotlin-compiler-2.4.21}, run in a forked JVM) into
 * {@code target/kotlin-apps/<name>}, once per test JVM, and run on the Kotlin runtime in {@code target/kotlin-2.4.21}
 * (kotlin-stdlib 2.4.21, kotlinx-coroutines-core-jvm 1.11.0). Like the Java demo apps, they import nothing of tracegate.
 * The first app a test asks for has every app compiled, in one compiler run (each app is its own package,
 * {@code demoapp.<name>}, and refers to no other): a compiler JVM costs about 15 s of CPU before it compiles anything,
 * and all four apps took 29 s of CPU in one run against 15 s for one app alone (ci20). Each app's directory then gets
 * its own package's classes only, as when it was compiled alone.
 */
final class KotlinApps {

    private static final Map<String, String> COMPILED = new ConcurrentHashMap<>();

    private KotlinApps() {
    }

    /** The class path that runs app {@code name} (its classes, then the Kotlin runtime), compiling the apps first if needed. */
    static String classpath(String name) {
        return COMPILED.computeIfAbsent(name, KotlinApps::classpathOf);
    }

    private static Path target() {
        return Path.of(System.getProperty("tracegate.app.classes", "target/classes")).toAbsolutePath().getParent();
    }

    private static String jars(Path dir) {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".jar")).sorted().map(f -> f.toAbsolutePath().toString())
                    .collect(Collectors.joining(File.pathSeparator));
        } catch (IOException e) {
            throw new IllegalStateException("Kotlin jars missing in " + dir + " (the it module's generate-test-resources phase copies them)", e);
        }
    }

    private static String classpathOf(String name) {
        compileAll();
        Path out = target().resolve("kotlin-apps").resolve(name);
        if (!Files.isDirectory(out.resolve("demoapp").resolve(name))) {
            throw new IllegalStateException("no Kotlin app " + name + " in " + sourceRoot() + " (compiled: " + out.getParent() + ")");
        }
        return out + File.pathSeparator + jars(target().resolve("kotlin-2.4.21"));
    }

    private static Path sourceRoot() {
        return Path.of(System.getProperty("tracegate.kotlin.sources", "src/test/kotlin")).toAbsolutePath().resolve("demoapp");
    }

    private static boolean compiled;

    /** Compiles every app under {@link #sourceRoot()} in one compiler run, then splits the output into one directory per app. */
    private static synchronized void compileAll() {
        if (compiled) return;
        Path sources = sourceRoot();
        Path apps = target().resolve("kotlin-apps");
        Path all = apps.resolve(".all");
        String runtime = jars(target().resolve("kotlin-2.4.21"));
        String compiler = jars(target().resolve("kotlin-compiler-2.4.21")) + File.pathSeparator + runtime;
        try {
            List<Path> appDirs;
            try (Stream<Path> s = Files.list(sources)) {
                appDirs = s.filter(Files::isDirectory).sorted().collect(Collectors.toList());
            }
            List<String> files = new java.util.ArrayList<>();
            for (Path dir : appDirs) {
                try (Stream<Path> s = Files.list(dir)) {
                    List<String> kt = s.filter(f -> f.toString().endsWith(".kt")).sorted().map(Path::toString).collect(Collectors.toList());
                    if (kt.isEmpty()) throw new IllegalStateException("no Kotlin sources in " + dir);
                    files.addAll(kt);
                }
            }
            deleteAll(apps);
            Files.createDirectories(all);
            List<String> command = new java.util.ArrayList<>(List.of(ForkedJvm.java(), "-Xss4m", "-cp", compiler,
                    "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "-no-stdlib", "-no-reflect", "-jvm-target", "17", "-cp", runtime,
                    "-d", all.toString()));
            command.addAll(files);
            // the compiler with the JVM's defaults (the tests' JAVA_TOOL_OPTIONS keeps forked JVMs on C1, which slows kotlinc);
            // up to 600 s as for the Quarkus app's build: one compiler run took 318 s of wall time (29 s of CPU) at a load of 40
            ForkedJvm.Result r = ForkedJvm.exec(command, Map.of("JAVA_TOOL_OPTIONS", ""), null, 600);
            if (r.exit() != 0) throw new IllegalStateException("kotlinc of " + sources + " failed:\n" + r);
            for (Path dir : appDirs) {
                String name = dir.getFileName().toString();
                Path out = apps.resolve(name);
                Path classes = all.resolve("demoapp").resolve(name);
                if (!Files.isDirectory(classes)) throw new IllegalStateException("kotlinc wrote no classes of package demoapp." + name + " (" + dir + ")");
                Files.createDirectories(out.resolve("demoapp"));
                Files.move(classes, out.resolve("demoapp").resolve(name));
                Path module = all.resolve("META-INF");
                if (Files.isDirectory(module)) copyAll(module, out.resolve("META-INF"));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot compile the Kotlin apps in " + sources, e);
        }
        compiled = true;
    }

    private static void copyAll(Path from, Path to) throws IOException {
        try (Stream<Path> s = Files.walk(from)) {
            for (Path p : s.collect(Collectors.toList())) {
                Path dest = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) Files.createDirectories(dest);
                else Files.copy(p, dest);
            }
        }
    }

    private static void deleteAll(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).collect(Collectors.toList())) Files.delete(p);
        }
    }
}
