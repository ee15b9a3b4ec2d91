package dev.tracegate.agent.cli;

import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;

/** {@code attach PID [key=value,...]}: loads this agent jar into a running JVM, which retransforms the classes it already loaded. */
@Command(name = "attach", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = {"Attach the agent to a running JVM (same options as -javaagent:tracegate-agent.jar=...).",
                "Exit status: 0 attached, 2 not attached (no such JVM, a missing configuration file, tracegate already running there, "
                        + "or the agent did not start)."})
final class AttachCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    String pid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "OPTIONS",
            description = "agent options as after -javaagent:tracegate-agent.jar=, e.g. config=/etc/tracegate/tracegate.yaml,mode=shadow "
                    + "(relative paths in config=, libraries= and audit.path= are resolved here, where you run attach, "
                    + "not in the target JVM's working directory)")
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
        String agentOptions = absolutePaths(options, Path.of("").toAbsolutePath());
        Path config = configPath(agentOptions);
        if (config != null && !Files.isRegularFile(config)) {
            System.err.println("tracegate attach: the configuration file " + config + " does not exist; nothing was attached");
            return 2;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException | IOException e) {
            System.err.println("tracegate attach: cannot attach to process " + pid + ": " + e.getMessage()
                    + " (is it a running JVM of the same user, started without -XX:+DisableAttachMechanism?)");
            return 2;
        }
        try {
            String running = vm.getSystemProperties().getProperty(STARTED);
            if (running != null) {
                // the agent in the target would only print "ignoring the second start" there, and this command say "attached"
                System.err.println("tracegate attach: tracegate already runs in process " + pid + " (started " + running
                        + "); a second agent would be ignored there, so nothing was attached. Its libraries change only through "
                        + "hot-reload, if it was started with it (agent/CONFIG.md); other settings need a restart of the process");
                return 2;
            }
            File jar = new File(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            if (!jar.isFile()) {
                System.err.println("tracegate attach: the agent jar was not found at " + jar + "; run it as java -jar tracegate-agent.jar attach PID");
                return 2;
            }
            vm.loadAgent(jar.getAbsolutePath(), agentOptions);
            // an agent that refuses to start returns normally (no trace in the target) and leaves its reason in a property
            String failed = vm.getSystemProperties().getProperty(FAILED);
            if (failed != null) {
                System.err.println("tracegate attach: the agent did not start in process " + pid
                        + ", which runs on unsupervised; nothing was attached. The reason (also on that process's standard error):\n" + failed);
                return 2;
            }
            System.out.println("tracegate: agent attached to " + pid);
            return 0;
        } catch (AgentLoadException | AgentInitializationException | IOException e) {
            boolean alive = ProcessHandle.of(Long.parseLong(pid)).map(ProcessHandle::isAlive).orElse(false);
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

    /** The system property the agent sets in a JVM where it started ({@code AgentLauncher}). */
    static final String STARTED = "tracegate.agent.started";

    /** The system property an attached agent that did not start sets to its reason ({@code AgentCore}). */
    static final String FAILED = "tracegate.agent.failed";

    /**
     * The options with relative paths resolved against {@code cwd}, where the user typed them: {@code config=},
     * {@code audit.path=}, and each entry of {@code libraries=} (separated by {@code ;}) that names a file there
     * (built-in names such as {@code gdpr} are left as they are). The rest is unchanged.
     */
    static String absolutePaths(String options, Path cwd) {
        if (options == null || options.isBlank()) return "";
        String[] parts = options.split(",", -1);
        for (int i = 0; i < parts.length; i++) {
            String p = parts[i].strip();
            int eq = p.indexOf('=');
            if (eq <= 0 || eq == p.length() - 1) continue;
            String key = p.substring(0, eq).strip();
            String value = p.substring(eq + 1).strip();
            if (key.equals("config") || key.equals("audit.path")) {
                Path path = Path.of(value);
                if (!path.isAbsolute()) parts[i] = key + "=" + cwd.resolve(path).normalize();
            } else if (key.equals("libraries")) {
                String[] entries = value.split(";", -1);
                for (int j = 0; j < entries.length; j++) {
                    String entry = entries[j].strip();
                    if (entry.isEmpty()) continue;
                    Path path = Path.of(entry);
                    if (!path.isAbsolute() && Files.isRegularFile(cwd.resolve(path))) entries[j] = cwd.resolve(path).normalize().toString();
                }
                parts[i] = key + "=" + String.join(";", entries);
            }
        }
        return String.join(",", parts);
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
