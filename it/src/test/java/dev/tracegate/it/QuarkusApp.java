package dev.tracegate.it;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The Quarkus application of it/src/test/quarkus-app (Quarkus 3.33.2, quarkus-langchain4j 1.10.0; it imports nothing of
 * tracegate), built once per test JVM as a prod fast-jar ({@code quarkus-app/quarkus-run.jar}) by the Maven that runs
 * this module (its {@code maven.home}, local repository and offline setting, as surefire passes them), into
 * {@code target/quarkus-app-build}; rebuilt when a file of the app is newer than the jar. Run with the built agent jar.
 */
final class QuarkusApp {

    private static final long TIMEOUT_SECONDS = ForkedJvm.TIMEOUT_SECONDS;
    private static Path jar;

    private QuarkusApp() {
    }

    /** The built {@code quarkus-run.jar}, building it first when needed. */
    static synchronized Path jar() {
        if (jar != null) {
            return jar;
        }
        Path source = Path.of(System.getProperty("tracegate.quarkus.app", "src/test/quarkus-app")).toAbsolutePath().normalize();
        Path build = Path.of(System.getProperty("tracegate.quarkus.build", "target/quarkus-app-build")).toAbsolutePath().normalize();
        Path run = build.resolve("quarkus-app").resolve("quarkus-run.jar");
        try {
            if (!Files.isRegularFile(run) || newerThan(source, Files.getLastModifiedTime(run).toMillis())) {
                String home = System.getProperty("tracegate.maven.home", "");
                String mvn = home.isEmpty() ? "mvn" : Path.of(home, "bin", "mvn").toString();
                List<String> command = new ArrayList<>(List.of(mvn, "-B", "-q", "-f", source.resolve("pom.xml").toString(),
                        "-Dapp.build.dir=" + build, "-Dstyle.color=never"));
                String repo = System.getProperty("tracegate.maven.repo", "");
                if (!repo.isEmpty()) command.add("-Dmaven.repo.local=" + repo);
                if ("offline=true".equals(System.getProperty("tracegate.maven.offline"))) command.add("-o");
                command.add("package");
                Files.createDirectories(build);
                Path log = build.resolve("build.log");
                Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
                if (!p.waitFor(600, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                    throw new AssertionError("the Quarkus app's build did not finish in 600 s: " + command);
                }
                if (p.exitValue() != 0 || !Files.isRegularFile(run)) {
                    throw new AssertionError("the Quarkus app's build failed (" + command + "):\n" + Files.readString(log));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot build the Quarkus app " + source, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
        jar = run;
        return jar;
    }

    private static boolean newerThan(Path dir, long millis) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).anyMatch(f -> {
                try {
                    return Files.getLastModifiedTime(f).toMillis() > millis;
                } catch (IOException e) {
                    return true;
                }
            });
        }
    }

    /**
     * Runs the app in {@code dir} with {@code jvmArgs} (the agent's {@code -javaagent}), gives it {@code commands} on its
     * standard input one a line, then {@code quit}, and returns what it printed.
     */
    static ForkedJvm.Result run(Path dir, List<String> jvmArgs, String... commands) {
        List<String> command = new ArrayList<>();
        command.add(ForkedJvm.java());
        command.addAll(jvmArgs);
        command.add("-jar");
        command.add(jar().toString());
        try {
            Path out = dir.resolve("app-out.txt");
            Path err = dir.resolve("app-err.txt");
            Process process = new ProcessBuilder(command).directory(dir.toFile())
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            try (OutputStream in = process.getOutputStream()) {
                for (String c : commands) {
                    in.write((c + "\n").getBytes(StandardCharsets.UTF_8));
                }
                in.write("quit\n".getBytes(StandardCharsets.UTF_8));
            }
            if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                String dumps = HungProcess.stop(process.toHandle());
                throw new AssertionError("the Quarkus app did not finish in " + TIMEOUT_SECONDS + " s: " + command + "\nstdout:\n" + Files.readString(out)
                        + "\nstderr:\n" + Files.readString(err) + dumps);
            }
            return new ForkedJvm.Result(process.exitValue(), Files.readString(out), Files.readString(err), command);
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * Starts the app in {@code dir} without the agent, attaches it once the app is ready ({@code tracegate attach PID
     * options}, before any command), then gives it {@code commands} and {@code quit}. Returns the app's output, its
     * standard error after the attach's own output (the attach command's, headed {@code --- attach ---}).
     */
    static ForkedJvm.Result runAttached(Path dir, String options, String... commands) {
        List<String> command = List.of(ForkedJvm.java(), "-jar", jar().toString());
        try {
            Path err = dir.resolve("app-err.txt");
            Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectError(err.toFile()).start();
            StringBuilder out = new StringBuilder();
            try (java.io.BufferedReader reader = new java.io.BufferedReader(new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
                 OutputStream in = process.getOutputStream()) {
                String ready = reader.readLine();
                if (ready == null || !ready.startsWith("READY pid=")) {
                    process.destroyForcibly();
                    throw new AssertionError("the Quarkus app did not start: " + ready + "\n" + Files.readString(err));
                }
                out.append(ready).append('\n');
                ForkedJvm.Result attach = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(),
                        "attach", ready.substring("READY pid=".length()), options), java.util.Map.of(), dir);
                if (attach.exit() != 0) {
                    process.destroyForcibly();
                    throw new AssertionError("attach failed: " + attach);
                }
                for (String c : commands) {
                    in.write((c + "\n").getBytes(StandardCharsets.UTF_8));
                }
                in.write("quit\n".getBytes(StandardCharsets.UTF_8));
                in.flush();
                for (String line; (line = reader.readLine()) != null; ) {
                    out.append(line).append('\n');
                }
                if (!process.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                    String dumps = HungProcess.stop(process.toHandle());
                    throw new AssertionError("the Quarkus app did not finish in " + TIMEOUT_SECONDS + " s: " + out + "\n" + Files.readString(err) + dumps);
                }
                return new ForkedJvm.Result(process.exitValue(), out.toString(),
                        "--- attach ---\n" + attach.all() + "--- app ---\n" + Files.readString(err), command);
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + command, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
