package dev.tracegate.it;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;

/**
 * Application class-data sharing for the forked JVMs that run on the default application class path
 * ({@link ForkedJvm#appClasspath()}): most of this module's forks. Such a JVM spends a good part of its few seconds of
 * CPU parsing and verifying the same ~3,000 framework classes; from a CDS archive it maps them instead (SpringAiApp
 * {@code email} under the agent: 2.78 s of CPU without, 2.10 s with, mean of 4 alternating runs each).
 *
 * <p>The archive is made once per test JVM, the first time a fork needs it, in {@code target/app-cds}: the application
 * classes go into a jar (a CDS dump refuses directories on the class path), three training runs at once under the agent
 * ({@code -XX:DumpLoadedClassList}: Spring AI, LangChain4j, an MCP client with its server) name the classes, together
 * with the JDK's own default class list, and {@code -Xshare:dump -XX:SharedArchiveFile=target/app-cds/app.jsa} writes
 * the archive (never the JDK's default archive). A fork then runs with {@code -XX:SharedArchiveFile=... -Xshare:auto}
 * and the class path {@code app-classes.jar:<the same dependency jars>}: same classes, same order. The agent is not in
 * the dump, only in the runs (a dump with an agent needs -XX:+AllowArchivingWithJavaAgent, which warns on every run's
 * standard error).
 *
 * <p>Only a command whose {@code -cp} is exactly the default class path (or it followed by the directory of a
 * {@link ScenarioBatch}'s runner, which stays last: a run-time class path may extend the archive's) is changed, and not when it already names an
 * archive or a class list ({@link ClassDataSharingTest} makes its own). If the archive cannot be made, the forks run as
 * before (one line on this JVM's standard output says why, details in the logs in target/app-cds); if it does not match at
 * run time, {@code -Xshare:auto} makes the JVM run without sharing, silently. {@code -Dit.app.cds=false} turns it off.
 */
public final class AppCds {

    private static final long STEP_TIMEOUT_SECONDS = 300;
    private static final Object LOCK = new Object();
    /** Null until tried; then the archive and the class path it was made for, or {@link #NONE}. */
    private static volatile Archive archive;
    private static final Archive NONE = new Archive(null, null);

    private record Archive(Path file, String classpath) {
    }

    private AppCds() {
    }

    /**
     * {@code command} with every JVM in it that runs on the default application class path (the JVM it starts, and one
     * it names in its arguments, such as an MCP client's server command) switched to the archive; otherwise unchanged.
     */
    public static List<String> apply(List<String> command) {
        ForkLog.record(command);   // every fork's command passes here (ForkedJvm, hardening.Forked, the evaluations)
        if (!Boolean.parseBoolean(System.getProperty("tracegate.it.cds", "true")) || command.isEmpty()) {
            return command;
        }
        String java = ForkedJvm.java();
        String appCp;
        try {
            appCp = ForkedJvm.appClasspath();
        } catch (IllegalStateException e) {
            return command;
        }
        List<Integer> classpathAt = new ArrayList<>();
        for (int i = 0; i < command.size(); i++) {
            if (command.get(i).equals(java)) {
                int cp = defaultClasspathIndex(command, i + 1, appCp);
                if (cp >= 0) classpathAt.add(cp);
            }
        }
        if (classpathAt.isEmpty()) {
            return command;
        }
        Archive a = archive(java, appCp);
        if (a == NONE) {
            return command;
        }
        List<String> out = new ArrayList<>(command.size() + 2 * classpathAt.size());
        for (int i = 0; i < command.size(); i++) {
            String token = command.get(i);
            if (classpathAt.contains(i)) {
                out.add(a.classpath() + token.substring(appCp.length()));   // a scenario batch's runner directory stays last
                continue;
            }
            out.add(token);
            if (token.equals(java) && defaultClasspathIndex(command, i + 1, appCp) >= 0) {
                out.add("-XX:SharedArchiveFile=" + a.file());
                out.add("-Xshare:auto");
            }
        }
        return out;
    }

    /**
     * The index of the default class path after {@code -cp} among the JVM options from {@code from}, or -1 if the JVM
     * there runs on another class path, names its own archive or class list, or has an option this does not read.
     */
    private static int defaultClasspathIndex(List<String> command, int from, String appCp) {
        for (int j = from; j < command.size(); j++) {
            String option = command.get(j);
            if (option.equals("-cp") || option.equals("-classpath") || option.equals("--class-path")) {
                if (j + 1 >= command.size()) return -1;
                String cp = command.get(j + 1);
                // the default class path, or it followed by a scenario batch's runner (a run-time class path may extend the archive's)
                return cp.equals(appCp) || cp.equals(appCp + File.pathSeparator + ScenarioBatch.runnerPath()) ? j + 1 : -1;
            }
            if (!option.startsWith("-") || option.equals("-jar") || (option.startsWith("-Xshare") && !option.equals("-Xshare:auto")) || option.contains("SharedArchiveFile")
                    || option.contains("ArchiveClassesAtExit") || option.contains("ClassList")) {
                return -1;
            }
        }
        return -1;
    }

    private static Archive archive(String java, String appCp) {
        Archive a = archive;
        if (a != null) return a;
        synchronized (LOCK) {
            if (archive == null) {
                archive = make(java, appCp);
            }
            return archive;
        }
    }

    private static Archive make(String java, String appCp) {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes")).toAbsolutePath();
        Path dir = classes.resolveSibling("app-cds");
        Path log = dir.resolve("dump.log");
        try {
            if (Files.isDirectory(dir)) {
                try (Stream<Path> old = Files.list(dir)) {
                    for (Path f : (Iterable<Path>) old::iterator) Files.delete(f);
                }
            }
            Files.createDirectories(dir);
            Path jar = dir.resolve("app-classes.jar");
            jar(classes, jar);
            String deps = appCp.substring(appCp.indexOf(File.pathSeparatorChar) + 1);
            String cp = jar + File.pathSeparator + deps;
            String agent = ForkedJvm.agent("trace=true");
            Path spring = dir.resolve("springai.classlist");
            Path langchain = dir.resolve("langchain4j.classlist");
            Path client = dir.resolve("mcp-client.classlist");
            Path server = dir.resolve("mcp-server.classlist");
            // the three at once: on two cores they take about half the wall time one after another would
            steps(List.of(
                    step(dir.resolve("springai.log"), List.of(java, "-XX:DumpLoadedClassList=" + spring, agent, "-cp", cp,
                            "demoapp.springai.SpringAiApp", "email")),
                    step(dir.resolve("langchain4j.log"), List.of(java, "-XX:DumpLoadedClassList=" + langchain, agent, "-cp", cp,
                            "demoapp.langchain4j.LangChain4jApp", "email")),
                    step(dir.resolve("mcp.log"), List.of(java, "-XX:DumpLoadedClassList=" + client, agent, "-cp", cp, "demoapp.mcp.McpApp",
                            "client", "sendEmail", "{\"to\":\"bob\",\"body\":\"the numbers\"}",
                            java, "-XX:DumpLoadedClassList=" + server, agent, "-cp", cp, "demoapp.mcp.McpApp", "server"))));
            Set<String> lines = new LinkedHashSet<>();
            Path jdkList = Path.of(System.getProperty("java.home"), "lib", "classlist");
            for (Path list : List.of(jdkList, spring, langchain, client, server)) {
                if (Files.isRegularFile(list)) {
                    for (String line : Files.readAllLines(list, StandardCharsets.UTF_8)) {
                        if (!line.isBlank() && !line.startsWith("#")) lines.add(line);
                    }
                }
            }
            Path all = dir.resolve("all.classlist");
            Files.write(all, lines, StandardCharsets.UTF_8);
            Path jsa = dir.resolve("app.jsa");
            int exit = steps(List.of(step(log, List.of(java, "-Xshare:dump", "-XX:SharedClassListFile=" + all, "-XX:SharedArchiveFile=" + jsa,
                    "-cp", cp))));
            if (exit != 0 || !Files.isRegularFile(jsa)) {
                System.out.println("AppCds: no archive (dump exit " + exit + ", see " + log + "): forks run without one");
                return NONE;
            }
            System.out.println("AppCds: " + lines.size() + " classes listed, archive " + jsa + " (" + Files.size(jsa) / (1 << 20) + " MiB)");
            return new Archive(jsa, cp);
        } catch (IOException | RuntimeException e) {
            System.out.println("AppCds: no archive (" + e + ", see " + dir + "): forks run without one");
            return NONE;
        }
    }

    /** Starts one step in {@code target/app-cds}, its command and output in {@code log}. */
    private static Process step(Path log, List<String> command) throws IOException {
        Files.writeString(log, "$ " + String.join(" ", command) + "\n", StandardCharsets.UTF_8);
        // in target/app-cds: whatever the agent writes to its working directory (its audit log) stays there
        return new ProcessBuilder(command).directory(log.getParent().toFile()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null"))).start();
    }

    /** Waits for the steps; the first non-zero exit status (-1: one did not end in time and was stopped), else 0. */
    private static int steps(List<Process> steps) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(STEP_TIMEOUT_SECONDS);
        int exit = 0;
        for (Process p : steps) {
            try {
                if (!p.waitFor(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                    p.destroyForcibly();
                    exit = exit == 0 ? -1 : exit;
                } else if (p.exitValue() != 0 && exit == 0) {
                    exit = p.exitValue();
                }
            } catch (InterruptedException e) {
                steps.forEach(Process::destroyForcibly);
                Thread.currentThread().interrupt();
                return -1;
            }
        }
        return exit;
    }

    private static void jar(Path classes, Path jar) throws IOException {
        try (OutputStream file = Files.newOutputStream(jar); JarOutputStream out = new JarOutputStream(file);
             Stream<Path> tree = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) tree.sorted()::iterator) {
                if (f.equals(classes)) continue;
                String name = classes.relativize(f).toString().replace(File.separatorChar, '/');
                if (Files.isDirectory(f)) {
                    out.putNextEntry(new JarEntry(name + "/"));
                } else {
                    out.putNextEntry(new JarEntry(name));
                    Files.copy(f, out);
                }
                out.closeEntry();
            }
        }
    }
}
