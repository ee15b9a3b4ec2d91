package dev.tracegate.it;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs an application under test in a forked JVM, optionally with the built agent jar, and captures its output. */
final class ForkedJvm {

    static final String JAVA_25 = "/usr/lib/jvm/temurin-25-jdk-amd64/bin/java";
    /** How long a forked JVM may take before its test fails, with its output and thread dumps ({@link HungProcess}). */
    static final long TIMEOUT_SECONDS = HungProcess.TIMEOUT_SECONDS;

    private ForkedJvm() {
    }

    /** The built agent jar (agent/target/tracegate-agent.jar); fails clearly if the agent module was not packaged. */
    static Path agentJar() {
        Path jar = Path.of(System.getProperty("tracegate.agent.jar", "../agent/target/tracegate-agent.jar")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("agent jar " + jar + " not found: run mvn -pl agent,it -am verify from the top");
        }
        return jar;
    }

    /** The applications' classes plus their runtime dependencies (the frameworks), as Maven resolved them. */
    static String appClasspath() {
        try {
            String deps = Files.readString(Path.of(System.getProperty("tracegate.app.classpath.file", "target/app-classpath.txt"))).strip();
            return System.getProperty("tracegate.app.classes", "target/classes") + File.pathSeparator + deps;
        } catch (IOException e) {
            throw new IllegalStateException("app classpath file missing: the it module's generate-test-resources phase writes it", e);
        }
    }

    /** {@link #appClasspath()} plus LangChain4j's agentic module (target/langchain4j-agentic), for demoapp.langchain4j.AgenticApp. */
    static String agenticClasspath() {
        String cp = appClasspath();
        Path dir = Path.of(System.getProperty("tracegate.app.classes", "target/classes")).resolveSibling("langchain4j-agentic");
        try (var files = Files.list(dir)) {
            StringBuilder out = new StringBuilder(cp);
            files.sorted().forEach(f -> out.append(File.pathSeparator).append(f.toAbsolutePath()));
            return out.toString();
        } catch (IOException e) {
            throw new IllegalStateException("langchain4j-agentic missing in " + dir + " (the it module's generate-test-resources phase copies it)", e);
        }
    }

    /** The applications' classes plus the host's own libraries (an older Jackson and Byte Buddy). */
    static String hostLibsClasspath() {
        return appClassesWithJarsOf(Path.of(System.getProperty("tracegate.host.libs", "target/host-libs")), "host libraries");
    }

    /**
     * The applications' classes plus the jars the build copied to {@code target/<line>} for another framework line
     * (langchain4j-1.11.0, springai-1.1.2, springai-1.0.3, mcp-1.1.5), sorted, none of the default line's.
     */
    static String lineClasspath(String line) {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        return appClassesWithJarsOf(classes.resolveSibling(line), line + " jars");
    }

    private static String appClassesWithJarsOf(Path dir, String what) {
        StringBuilder cp = new StringBuilder(System.getProperty("tracegate.app.classes", "target/classes"));
        try (var files = Files.list(dir)) {
            files.sorted().forEach(f -> cp.append(File.pathSeparator).append(f.toAbsolutePath()));
        } catch (IOException e) {
            throw new IllegalStateException(what + " missing in " + dir + " (the it module's generate-test-resources phase copies them)", e);
        }
        return cp.toString();
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    static boolean java25Present() {
        return new File(JAVA_25).canExecute();
    }

    /** How often {@code needle} occurs in {@code text}, not overlapping (a line a test expects once in a JVM's output, say). */
    static int count(String text, String needle) {
        int n = 0;
        for (int i = text.indexOf(needle); i >= 0; i = text.indexOf(needle, i + needle.length())) {
            n++;
        }
        return n;
    }

    /** {@code -javaagent:<jar>=<options>}. */
    static String agent(String options) {
        return "-javaagent:" + agentJar() + (options == null || options.isEmpty() ? "" : "=" + options);
    }

    static Result run(String java, List<String> jvmArgs, String classpath, String mainClass, String... args) {
        List<String> command = new ArrayList<>();
        command.add(java);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(classpath);
        command.add(mainClass);
        command.addAll(Arrays.asList(args));
        return exec(command);
    }

    static Result exec(List<String> command) {
        return exec(command, java.util.Map.of());
    }

    /** Runs a command with these variables added to this JVM's environment. */
    static Result exec(List<String> command, java.util.Map<String, String> environment) {
        return exec(command, environment, null);
    }

    /** Runs a command with these variables added to this JVM's environment, in {@code directory} (null: this JVM's). */
    static Result exec(List<String> command, java.util.Map<String, String> environment, Path directory) {
        return exec(command, environment, directory, TIMEOUT_SECONDS);
    }

    /**
     * {@link #exec(List, java.util.Map, Path)}, failing if the command takes longer than {@code timeoutSeconds}. A JVM
     * on the default application class path runs from the module's class-data sharing archive ({@link AppCds}); the
     * result's command is the one that ran.
     */
    static Result exec(List<String> command, java.util.Map<String, String> environment, Path directory, long timeoutSeconds) {
        command = AppCds.apply(command);
        try {
            Path out = Files.createTempFile("forked-out", ".txt");
            Path err = Files.createTempFile("forked-err", ".txt");
            ProcessBuilder builder = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile());
            if (directory != null) builder.directory(directory.toFile());
            builder.environment().putAll(environment);
            Process process = builder.start();
            if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                String dumps = HungProcess.stop(process.toHandle());
                throw new AssertionError("forked JVM did not finish in " + timeoutSeconds + " s: " + command + "\nstdout:\n" + Files.readString(out) + "\nstderr:\n" + Files.readString(err)
                        + dumps);
            }
            Result result = new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), command);
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            return result;
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What a forked JVM printed. */
    record Result(int exit, String stdout, String stderr, List<String> command) {
        String all() {
            return stdout + stderr;
        }

        @Override
        public String toString() {
            return "exit " + exit + " of " + String.join(" ", command) + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }
}
