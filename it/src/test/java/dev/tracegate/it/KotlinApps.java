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
 */
final class KotlinApps {

    private static final Map<String, String> COMPILED = new ConcurrentHashMap<>();

    private KotlinApps() {
    }

    /** The class path that runs app {@code name} (its classes, then the Kotlin runtime), compiling it first if needed. */
    static String classpath(String name) {
        return COMPILED.computeIfAbsent(name, KotlinApps::compile);
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

    private static synchronized String compile(String name) {
        Path sources = Path.of(System.getProperty("tracegate.kotlin.sources", "src/test/kotlin")).toAbsolutePath().resolve("demoapp").resolve(name);
        Path out = target().resolve("kotlin-apps").resolve(name);
        String runtime = jars(target().resolve("kotlin-2.4.21"));
        String compiler = jars(target().resolve("kotlin-compiler-2.4.21")) + File.pathSeparator + runtime;
        try {
            List<String> files;
            try (Stream<Path> s = Files.list(sources)) {
                files = s.filter(f -> f.toString().endsWith(".kt")).sorted().map(Path::toString).collect(Collectors.toList());
            }
            if (files.isEmpty()) throw new IllegalStateException("no Kotlin sources in " + sources);
            deleteAll(out);
            Files.createDirectories(out);
            List<String> command = new java.util.ArrayList<>(List.of(ForkedJvm.java(), "-Xss4m", "-cp", compiler,
                    "org.jetbrains.kotlin.cli.jvm.K2JVMCompiler", "-no-stdlib", "-no-reflect", "-jvm-target", "17", "-cp", runtime,
                    "-d", out.toString()));
            command.addAll(files);
            // the compiler with the JVM's defaults (the tests' JAVA_TOOL_OPTIONS keeps forked JVMs on C1, which slows kotlinc)
            ForkedJvm.Result r = ForkedJvm.exec(command, Map.of("JAVA_TOOL_OPTIONS", ""));
            if (r.exit() != 0) throw new IllegalStateException("kotlinc of " + sources + " failed:\n" + r);
        } catch (IOException e) {
            throw new IllegalStateException("cannot compile the Kotlin app " + sources, e);
        }
        return out + File.pathSeparator + runtime;
    }

    private static void deleteAll(Path dir) throws IOException {
        if (!Files.exists(dir)) return;
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(java.util.Comparator.reverseOrder()).collect(Collectors.toList())) Files.delete(p);
        }
    }
}
