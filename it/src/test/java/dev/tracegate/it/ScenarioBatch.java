package dev.tracegate.it;

import demoapp.batch.Scenarios;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Several scenarios of one application under the same JVM options (the same agent arguments), run in one forked JVM
 * instead of one each: the JVM runs {@link Scenarios}, which calls the application's {@code main} once per scenario.
 * A test gets its scenario's part of that JVM's output as a {@link ForkedJvm.Result} ({@link #run}), so its
 * assertions read as they did on a JVM of its own:
 * <ul>
 *   <li>standard output: the lines between the scenario's begin and end markers (the application prints on the
 *       thread that runs {@code main}, or before {@code main} returns);</li>
 *   <li>standard error: the lines of the scenario's session ({@code session=ID}, which the agent writes on a
 *       thread of its own, so the lines cannot be framed by markers) and the lines that name no session (the JVM's
 *       own, such as the agent's start lines), so a count of a session's lines ("seen once") is a count of that
 *       scenario's lines;</li>
 *   <li>exit: the JVM's exit value if the scenario's {@code main} returned (or, the last scenario only, ended the JVM
 *       with {@code System.exit}, as some apps do once their work is done), 1 if it threw or never ended.</li>
 * </ul>
 * Every scenario must have a session of its own (its conversation id), and a line of any other session fails every
 * scenario of the JVM: a line that strays into a session of no scenario (say {@code session=default}) would
 * otherwise be in no part. The failure message names the scenario ({@code scenario N of M}) and its arguments.
 * The JVM runs once, when the first of its scenarios is asked for; a test class's methods run one after another, so a
 * batch belongs to one class. Only for scenarios whose assertions hold per session: a test that counts lines without
 * a session, or whose scenario shares its session with another, keeps a JVM of its own.
 */
final class ScenarioBatch {
    private static final Pattern SESSION = Pattern.compile("\\bsession=([^\\s,]+)");
    private static final Pattern RECORD_SESSION = Pattern.compile("\"session\":\"((?:[^\"\\\\]|\\\\.)*)\"");
    private static final Object RUNNER_LOCK = new Object();

    private final String mainClass;
    private final Supplier<List<String>> jvmArgs;
    private final Supplier<String> classpath;
    private final Map<List<String>, String> sessions = new LinkedHashMap<>();
    private ForkedJvm.Result whole;
    private RuntimeException failed;

    /** A batch of {@code mainClass} on {@code classpath} (the runner's directory is added) with these JVM options, all read when it first runs. */
    ScenarioBatch(String mainClass, Supplier<List<String>> jvmArgs, Supplier<String> classpath) {
        this.mainClass = mainClass;
        this.jvmArgs = jvmArgs;
        this.classpath = classpath;
    }

    /** Adds a scenario: the application's arguments, and the session (conversation id) its agent lines name. */
    ScenarioBatch scenario(String session, String... args) {
        if (sessions.containsValue(session)) {
            throw new IllegalArgumentException("session " + session + " is already a scenario's in this batch: each needs its own");
        }
        if (sessions.put(List.of(args), session) != null) {
            throw new IllegalArgumentException("scenario " + List.of(args) + " is in this batch twice");
        }
        return this;
    }

    /** The part of the batch's JVM that ran the scenario with these arguments (the JVM runs on the first call). */
    synchronized ForkedJvm.Result run(String... args) {
        List<String> key = List.of(args);
        if (!sessions.containsKey(key)) {
            throw new IllegalArgumentException("no scenario " + key + " in this batch; its scenarios: " + sessions.keySet());
        }
        if (failed != null) throw failed;
        if (whole == null) {
            try {
                whole = runAll();
            } catch (RuntimeException | Error e) {
                failed = new IllegalStateException("the batch's JVM failed: " + e.getMessage(), e);
                throw failed;
            }
        }
        return part(new ArrayList<>(sessions.keySet()).indexOf(key) + 1);
    }

    private ForkedJvm.Result runAll() {
        List<String> command = new ArrayList<>();
        command.add(ForkedJvm.java());
        command.addAll(jvmArgs.get());
        command.add("-cp");
        command.add(classpath.get() + File.pathSeparator + runnerDirectory());
        command.add(Scenarios.class.getName());
        command.add(mainClass);
        boolean first = true;
        for (List<String> args : sessions.keySet()) {
            if (!first) command.add(Scenarios.SEPARATOR);
            command.addAll(args);
            first = false;
        }
        return ForkedJvm.exec(command);
    }

    private ForkedJvm.Result part(int n) {
        List<String> args = new ArrayList<>(sessions.keySet()).get(n - 1);
        String session = sessions.get(args);
        List<String> label = new ArrayList<>(whole.command());
        label.add("(scenario " + n + " of " + sessions.size() + ", session " + session + ": " + String.join(" ", args) + ")");
        // a line of a session no scenario has is in no part: it fails them all
        Set<String> stray = new LinkedHashSet<>();
        for (String line : whole.stderr().lines().toList()) {
            String s = sessionOf(line);
            if (s != null && !sessions.containsValue(s)) stray.add(line);
        }
        if (!stray.isEmpty()) {
            throw new AssertionError("lines of a session that is no scenario's (the batch's sessions: " + sessions.values() + "): " + stray
                    + "\n" + whole);
        }
        String begin = "=== scenario " + n + " begins: ";
        StringBuilder out = new StringBuilder();
        boolean in = false;
        boolean ended = false;
        for (String line : whole.stdout().split("\n", -1)) {
            if (!in && line.startsWith(begin)) {
                in = true;
            } else if (in && line.startsWith("=== scenario " + n + " ")) {
                // an application that ends the JVM itself may do so only as the last scenario
                ended = line.equals("=== scenario " + n + " ends") || (n == sessions.size() && line.equals("=== scenario " + n + " exits the JVM"));
                break;
            } else if (in) {
                out.append(line).append('\n');
            }
        }
        if (!in) {
            out.append("(this scenario never began: an earlier one ended the JVM)\n");
        }
        StringBuilder err = new StringBuilder();
        for (String line : whole.stderr().lines().toList()) {
            String s = sessionOf(line);
            if (s == null || s.equals(session)) err.append(line).append('\n');
        }
        return new ForkedJvm.Result(ended ? whole.exit() : (whole.exit() != 0 ? whole.exit() : 1), out.toString(), err.toString(), label);
    }

    /**
     * The records of an audit log (JSONL) that a batch's JVM wrote which are {@code session}'s, with those that name no
     * session (the header, the libraries): a scenario's part of the log, as {@link #run} gives its part of standard error.
     */
    static String recordsOf(String jsonl, String session) {
        StringBuilder out = new StringBuilder();
        for (String line : jsonl.lines().toList()) {
            Matcher m = RECORD_SESSION.matcher(line);
            if (!m.find() || m.group(1).equals(session)) out.append(line).append('\n');
        }
        return out.toString();
    }

    /**
     * {@link #recordsOf} for an audit log this batch's JVM wrote: a record of a session that is no scenario's fails, as a
     * line of one does in {@link #run}, so that a test which counted the whole log's records still sees every stray one.
     */
    String auditOf(String jsonl, String session) {
        if (!sessions.containsValue(session)) {
            throw new IllegalArgumentException("no scenario has session " + session + "; the batch's sessions: " + sessions.values());
        }
        Set<String> stray = new LinkedHashSet<>();
        for (String line : jsonl.lines().toList()) {
            Matcher m = RECORD_SESSION.matcher(line);
            if (m.find() && !sessions.containsValue(m.group(1))) stray.add(line);
        }
        if (!stray.isEmpty()) {
            throw new AssertionError("audit records of a session that is no scenario's (the batch's sessions: " + sessions.values() + "): " + stray);
        }
        return recordsOf(jsonl, session);
    }

    /** Where {@link #runnerDirectory()} puts the runner (nothing is written). */
    static Path runnerPath() {
        return Path.of(System.getProperty("tracegate.app.classes", "target/classes")).toAbsolutePath().normalize().resolveSibling("scenario-runner");
    }

    private static String sessionOf(String line) {
        Matcher m = SESSION.matcher(line);
        return m.find() ? m.group(1) : null;
    }

    /** A directory that holds only the runner's class file (target/scenario-runner), so the application's class path gains nothing else. */
    static Path runnerDirectory() {
        Path dir = runnerPath();
        String name = Scenarios.class.getName().replace('.', '/') + ".class";
        synchronized (RUNNER_LOCK) {
            try (InputStream in = Scenarios.class.getClassLoader().getResourceAsStream(name)) {
                if (in == null) throw new IllegalStateException(name + " not found on the test class path");
                byte[] bytes = in.readAllBytes();
                Path file = dir.resolve(name);
                if (!Files.isRegularFile(file) || !Arrays.equals(Files.readAllBytes(file), bytes)) {
                    Files.createDirectories(file.getParent());
                    Path tmp = Files.createTempFile(file.getParent(), "Scenarios", ".tmp");
                    Files.write(tmp, bytes);
                    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write the scenario runner to " + dir, e);
            }
        }
        return dir;
    }
}
