package dev.tracegate.it.hardening;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Starts a demo application in a forked JVM under the built agent jar (the it module's ForkedJvm is package-private). */
final class Forked {
    static final String JAVA_25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
    private static final long TIMEOUT_SECONDS = dev.tracegate.it.HungProcess.TIMEOUT_SECONDS;

    private Forked() {}

    static Path agentJar() {
        Path jar = Path.of(System.getProperty("tracegate.agent.jar", "../agent/target/tracegate-agent.jar")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) throw new IllegalStateException("agent jar " + jar + " not found: run mvn -pl agent,it -am verify");
        return jar;
    }

    static String appClasspath() {
        try {
            String deps = Files.readString(Path.of(System.getProperty("tracegate.app.classpath.file", "target/app-classpath.txt"))).strip();
            return System.getProperty("tracegate.app.classes", "target/classes") + File.pathSeparator + deps;
        } catch (IOException e) {
            throw new IllegalStateException("app classpath file missing: the it module's generate-test-resources phase writes it", e);
        }
    }

    /** The application classes with the host's own (older) Jackson and Byte Buddy jars instead of the usual dependencies. */
    static String hostLibsClasspath() {
        Path libs = Path.of(System.getProperty("tracegate.host.libs", "target/host-libs"));
        StringBuilder cp = new StringBuilder(System.getProperty("tracegate.app.classes", "target/classes"));
        try (var files = Files.list(libs)) {
            files.sorted().forEach(f -> cp.append(File.pathSeparator).append(f.toAbsolutePath()));
        } catch (IOException e) {
            throw new IllegalStateException("host libraries missing in " + libs + ": the it module's generate-test-resources phase copies them", e);
        }
        return cp.toString();
    }

    static String java() { return Path.of(System.getProperty("java.home"), "bin", "java").toString(); }

    static boolean java25Present() { return new File(JAVA_25).canExecute(); }

    static List<String> command(String java, String agentOptions, String mainClass, String... args) {
        List<String> c = new ArrayList<>(List.of(java, "-javaagent:" + agentJar() + (agentOptions.isEmpty() ? "" : "=" + agentOptions),
                "-cp", appClasspath(), mainClass));
        c.addAll(List.of(args));
        return dev.tracegate.it.AppCds.apply(c);
    }

    /** Runs to completion and returns stdout + stderr; fails on a non-zero exit or a hang. */
    static Output run(List<String> command) throws IOException, InterruptedException {
        Path out = Files.createTempFile("forked-out", ".txt"), err = Files.createTempFile("forked-err", ".txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
            String dumps = dev.tracegate.it.HungProcess.stop(p.toHandle());
            throw new AssertionError("forked JVM did not finish in " + TIMEOUT_SECONDS + " s: " + command + "\n--- stdout ---\n" + Files.readString(out, StandardCharsets.UTF_8)
                    + "--- stderr ---\n" + Files.readString(err, StandardCharsets.UTF_8) + dumps);
        }
        Output o = new Output(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), command);
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        if (o.exit() != 0) throw new AssertionError("non-zero exit: " + o);
        return o;
    }

    /** What a forked JVM printed. */
    record Output(int exit, String stdout, String stderr, List<String> command) {
        @Override public String toString() {
            return "exit " + exit + " of " + String.join(" ", command) + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }
}
