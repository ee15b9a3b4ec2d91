package dev.tracegate.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The command line of the agent jar ({@code java -jar tracegate-agent.jar <command>}). A new command
 * is one picocli class added to {@link #COMMANDS}.
 */
@Command(name = "tracegate", mixinStandardHelpOptions = true, version = "tracegate 0.1.0",
        description = "Supervise LLM agents on the JVM with temporal contracts.")
public final class Main implements Runnable {

    /** The subcommands, in help order. */
    static final Class<?>[] COMMANDS = {CheckCommand.class, ExplainCommand.class, ReplayCommand.class, AuditCommand.class,
            ImportCommand.class, EvalCommand.class, AttachCommand.class};

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command and returns its exit code (for tests). */
    public static int run(String... args) {
        CommandLine line = new CommandLine(new Main());
        for (Class<?> command : COMMANDS) {
            line.addSubcommand(command);
        }
        return line.execute(args);
    }

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }
}
