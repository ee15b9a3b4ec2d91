package dev.tracegate.agent.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import dev.tracegate.agent.config.AgentConfig;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.Callable;

/** {@code attach PID [key=value,...]}: loads this agent jar into a running JVM, which retransforms the classes it already loaded. */
@Command(name = "attach", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = {"Attach the agent to a running JVM (same options as -javaagent:tracegate-agent.jar=...).",
                "This command's own TRACEGATE_* variables and -Dtracegate.* properties are passed to the agent as options, below "
                        + "the OPTIONS written here; the target JVM's own ones count too (README, \"Supervise a service\").",
                "The agent's start-up lines (printed on the target's standard error) are printed here too.",
                "Exit status: 0 attached; 1 attached, but the agent cannot do its work (it reported an ERROR at start, e.g. an "
                        + "audit log it cannot open, or it has no libraries); 2 not attached (no such JVM, a missing configuration "
                        + "file, tracegate already running there, or the agent did not start)."})
final class AttachCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    String pid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "OPTIONS",
            description = "agent options as after -javaagent:tracegate-agent.jar=, e.g. config=/etc/tracegate/tracegate.yaml,mode=shadow "
                    + "(relative paths in config=, libraries=, audit.path=, register.path= and methods= are resolved here, where you run "
                    + "attach, not in the target JVM's working directory, and attach says so)")
    String options;

    @Override
    public Integer call() throws URISyntaxException {
        if (pid.isEmpty() || pid.length() > 18 || !pid.chars().allMatch(Character::isDigit)) {
            System.err.println("tracegate attach: PID must be a process id (a whole number, see jps or ps), got '" + pid + "'");
            return 2;
        }
        if (ProcessHandle.of(Long.parseLong(pid)).isEmpty()) {
            System.err.println("tracegate attach: there is no process " + pid + " (list the running JVMs with jps)");
            return 2;
        }
        Path cwd = Path.of("").toAbsolutePath();
        AttachSettings own;
        try {
            own = AttachSettings.of(System.getenv(), tracegateProperties());
        } catch (IllegalArgumentException e) {
            System.err.println("tracegate attach: " + e.getMessage() + "; nothing was attached");
            return 2;
        }
        own.notes().forEach(n -> System.err.println("tracegate attach: " + n));
        Path config = configPath(absolutePaths(options, cwd));
        if (config != null && !Files.isRegularFile(config)) {
            System.err.println("tracegate attach: the configuration file " + config + " does not exist; nothing was attached");
            return 2;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException | IOException e) {
            System.err.println("tracegate attach: cannot attach to process " + pid + ": " + e.getMessage()
                    + " (is it a running JVM of the same user, started without -XX:+DisableAttachMechanism? The attach handshake"
                    + " uses the target's temporary directory, /tmp on Linux, which must be writable and shared with this command)");
            return 2;
        }
        Properties target = null;
        try {
            target = vm.getSystemProperties();
            String running = target.getProperty(STARTED);
            if (running != null) {
                String unsupervised = target.getProperty(UNSUPERVISED);
                // the agent in the target would only print "ignoring the second start" there, and this command say "attached"
                System.err.println(unsupervised != null
                        ? "tracegate attach: tracegate runs UNSUPERVISED in process " + pid + " (started " + running
                                + ", it could not start and fail: open let the application run); a second agent would be ignored"
                                + " there, so nothing was attached. " + unsupervised
                        : "tracegate attach: tracegate already runs in process " + pid + " (started " + running
                                + "); a second agent would be ignored there, so nothing was attached. " + howItChanges(target.getProperty(HOT_RELOAD)));
                return 2;
            }
            List<String> passed = new ArrayList<>();
            List<String> notes = new ArrayList<>();
            List<String> resolved = new ArrayList<>();
            String agentOptions = absolutePaths(own.options(options, target, passed, notes), cwd, resolved);
            notes.forEach(n -> System.err.println("tracegate attach: " + n));
            if (!resolved.isEmpty()) {
                // the agent runs in the target JVM, whose working directory is not this one: say which file it gets
                System.out.println("tracegate attach: relative paths are read in " + cwd + ", where attach runs, not in the"
                        + " working directory of process " + pid + ": " + String.join(", ", resolved));
            }
            if (!passed.isEmpty()) {
                System.out.println("tracegate attach: passing " + String.join(", ", passed) + " of this command to the agent as options"
                        + " (options written after the PID win over them)");
            }
            config = configPath(agentOptions);
            if (config != null && !Files.isRegularFile(config)) {
                System.err.println("tracegate attach: the configuration file " + config + " does not exist; nothing was attached");
                return 2;
            }
            File jar = new File(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!jar.isFile()) {
                System.err.println("tracegate attach: the agent jar was not found at " + jar + "; run it as java -jar tracegate-agent.jar attach PID");
                return 2;
            }
            if (lacksInstrument(null, target, pid)) {
                System.err.println(noInstrument(pid, target));
                return 2;
            }
            vm.loadAgent(jar.getAbsolutePath(), agentOptions);
            // an agent that refuses to start returns normally (no trace in the target) and leaves its reason in a property
            Properties after = vm.getSystemProperties();
            String failed = after.getProperty(FAILED);
            if (failed != null) {
                System.err.println("tracegate attach: the agent did not start in process " + pid
                        + ", which runs on unsupervised; nothing was attached. The reason (also on that process's standard error):\n" + failed);
                return 2;
            }
            // what the agent printed at its start, on the target's standard error, which whoever attaches rarely sees
            String report = after.getProperty(REPORT, "");
            String degraded = after.getProperty(DEGRADED);
            (degraded == null ? System.out : System.err).print(report);
            if (degraded != null) {
                System.err.println("tracegate attach: the agent is attached to " + pid + " but cannot do its work: " + degraded
                        + ". It stays in place (there is no detach, and a second attach is refused): fix what the lines above name"
                        + " (an audit log that cannot be opened is retried; until then calls are refused, or pass unaudited under"
                        + " fail: open), or restart the process and attach again");
                return 1;
            }
            System.out.println("tracegate: agent attached to " + pid);
            return 0;
        } catch (AgentLoadException | AgentInitializationException | IOException e) {
            boolean alive = ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
            if (alive && lacksInstrument(e, target, pid)) {
                // the JVM could not even load the agent library: nothing is on its standard error
                System.err.println(noInstrument(pid, target));
                return 2;
            }
            System.err.println(alive
                    ? "tracegate attach: the agent failed to start in process " + pid + ": " + e.getMessage()
                            + " (the reason is on that process's standard error; the process runs on, unsupervised)"
                    : "tracegate attach: process " + pid + " ended while the agent was starting (" + e.getMessage()
                            + "); what it did before the agent was in place was not supervised");
            return 2;
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the agent is loaded; a failed detach changes nothing
            }
        }
    }

    /**
     * Whether the target JVM runs on a runtime without the {@code java.instrument} module (a jlink image built without
     * it), where no Java agent can be loaded: the attach API's failure says so ({@code Failed to load agent library:
     * java.lang.module.FindException: Module java.instrument not found} on JDK 17), or, before loading, the runtime's
     * {@code release} file lists its modules without it (a jlink image writes {@code MODULES="..."}; a JDK package may
     * write none, and then only the failure tells). The file is read through {@code /proc/PID/root} where that exists, so
     * a process in a container of its own is read in its own file system.
     */
    static boolean lacksInstrument(Throwable failure, Properties target, String pid) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            String message = t.getMessage();
            if (message != null && message.contains("java.instrument") && message.contains("not found")) return true;
        }
        String home = target == null ? null : target.getProperty("java.home");
        if (home == null || home.isEmpty()) return false;
        String modules = releaseModules(home, pid);
        return modules != null && !List.of(modules.trim().split("\\s+")).contains("java.instrument");
    }

    /** The {@code MODULES} line of the target runtime's {@code release} file (without quotes), or null when none was read. */
    private static String releaseModules(String javaHome, String pid) {
        Path[] candidates = {Path.of("/proc", pid, "root").resolve(javaHome.replaceFirst("^/+", "")).resolve("release"),
                Path.of(javaHome, "release")};
        for (Path release : candidates) {
            try {
                if (!Files.isRegularFile(release)) continue;
                for (String line : Files.readAllLines(release, java.nio.charset.StandardCharsets.UTF_8)) {
                    if (line.startsWith("MODULES=")) return line.substring("MODULES=".length()).replace("\"", "");
                }
                return null;   // a release file without a module list: unknown
            } catch (IOException | RuntimeException unreadable) {
                // not ours to read (another user's /proc entry): try the next, else unknown
            }
        }
        return null;
    }

    /** What attach says about a target runtime without {@code java.instrument}. */
    static String noInstrument(String pid, Properties target) {
        String home = target == null ? null : target.getProperty("java.home");
        return "tracegate attach: process " + pid + " runs on a Java runtime without the java.instrument module"
                + (home == null ? "" : " (" + home + ", a jlink image built without it; " + home + "/bin/java --list-modules lists what it has)")
                + ", so no Java agent can be loaded into it: not by attach, and not by -javaagent either (that runtime refuses"
                + " -javaagent at start). Nothing was attached; the process runs on, unsupervised, and its standard error says"
                + " nothing about it. To supervise it, build the image with the module (jlink --add-modules ...,java.instrument,"
                + " and java.management for the JMX MBean), restart the application on it, and attach again or start it with"
                + " -javaagent:tracegate-agent.jar";
    }

    /** The system property the agent sets in a JVM where it started ({@code AgentLauncher}). */
    static final String STARTED = "tracegate.agent.started";

    /** The system property an attached agent that did not start sets to its reason ({@code AgentCore}). */
    static final String FAILED = "tracegate.agent.failed";

    /** The system property an attached start sets to the lines it printed ({@code AgentCore.REPORT}). */
    static final String REPORT = "tracegate.agent.start-report";

    /** The system property an attached agent that started but cannot do its work sets to why ({@code AgentCore.DEGRADED}). */
    static final String DEGRADED = "tracegate.agent.degraded";

    /** The system property an agent that runs unsupervised under fail: open sets to what ends that ({@code AgentCore.UNSUPERVISED}). */
    static final String UNSUPERVISED = "tracegate.agent.unsupervised";

    /** The system property a supervising agent sets to its hot reload interval in ms, 0 when off ({@code AgentCore.HOT_RELOAD}). */
    static final String HOT_RELOAD = "tracegate.agent.hot-reload-ms";

    /** How the libraries of a running agent change, from its {@link #HOT_RELOAD} property (null: not said, an older agent). */
    static String howItChanges(String hotReloadMillis) {
        if (hotReloadMillis == null) {
            return "Its libraries change only through hot-reload, if it was started with it (agent/CONFIG.md); other settings need"
                    + " a restart of the process";
        }
        if (hotReloadMillis.equals("0")) {
            return "It runs without hot-reload, so its libraries, like every other setting, change only with a restart of the"
                    + " process (with hot-reload it would load edited library files: agent/CONFIG.md)";
        }
        return "It runs with hot-reload (every " + hotReloadMillis + " ms): edit or replace the library files it loaded (write a"
                + " new file, then rename it over the old one) and it loads them; the list of libraries and every other setting"
                + " change only with a restart of the process";
    }

    /** This command's own {@code -Dtracegate.*} properties. */
    private static Map<String, String> tracegateProperties() {
        Map<String, String> props = new TreeMap<>();
        for (String name : System.getProperties().stringPropertyNames()) {
            if (name.startsWith("tracegate.")) props.put(name, System.getProperty(name));
        }
        return props;
    }

    /** The options with relative paths resolved against {@code cwd}, where the user typed them (see the three-argument form). */
    static String absolutePaths(String options, Path cwd) {
        return absolutePaths(options, cwd, new ArrayList<>());
    }

    /**
     * The options with relative paths resolved against {@code cwd}, where the user typed them, by the agent's own rule
     * ({@link AgentConfig#namesFile}, {@link AgentConfig#namesLibraryFile}): {@code config=}, {@code audit.path=},
     * {@code register.path=}, {@code methods=}, and each entry of {@code libraries=} (separated by {@code ;}) that is not a
     * built-in name such as {@code gdpr}, whether or not the file exists here: the agent, in the target JVM, would read a
     * relative one in that JVM's working directory. The rest is unchanged; {@code resolved} receives one
     * {@code key=written as /absolute} per path resolved, for the user.
     */
    static String absolutePaths(String options, Path cwd, List<String> resolved) {
        if (options == null || options.isBlank()) return "";
        String[] parts = options.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].strip();
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) continue;
            String key = p.substring(0, eq).strip();
            String value = p.substring(eq + 1).strip();
            if (AgentConfig.namesFile(key)) {
                String absolute = absolute(value, cwd);
                if (!absolute.equals(value)) {
                    parts[i] = key + "=" + absolute;
                    resolved.add(key + "=" + value + " as " + absolute);
                }
            } else if (key.equals("libraries")) {
                String[] entries = value.split(";", -1);
                for (int j = 0; j < entries.length; j++) {
                    String entry = entries[j].strip();
                    if (entry.isEmpty() || !AgentConfig.namesLibraryFile(entry)) continue;
                    String absolute = absolute(entry, cwd);
                    if (!absolute.equals(entry)) {
                        entries[j] = absolute;
                        resolved.add("libraries entry " + entry + " as " + absolute);
                    }
                }
                parts[i] = key + "=" + String.join(";", entries);
            }
        }
        return String.join(",", parts);
    }

    /** {@code path} read in {@code cwd} if relative; as written if absolute or no path at all (the agent then says so). */
    private static String absolute(String path, Path cwd) {
        try {
            Path p = Path.of(path);
            return p.isAbsolute() ? path : cwd.resolve(p).normalize().toString();
        } catch (java.nio.file.InvalidPathException e) {
            return path;
        }
    }

    /** The {@code config=} path of the options, or null. */
    static Path configPath(String options) {
        for (String p : options.split(",")) {
            p = p.strip();
            if (p.startsWith("config=") && p.length() > "config=".length()) return Path.of(p.substring("config=".length()));
        }
        return null;
    }
}
