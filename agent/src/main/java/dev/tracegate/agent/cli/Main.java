package dev.tracegate.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.util.concurrent.Callable;

/**
 * The command line of the agent jar ({@code java -jar tracegate-agent.jar <command>}). A new command
 * is one picocli class added to {@link #COMMANDS}.
 */
@Command(name = "tracegate", mixinStandardHelpOptions = true, version = Main.VERSION,
        description = "Supervise LLM agents on the JVM with temporal contracts.",
        footer = {"", "Exit status: 0 success; 1 a contract fails (replay), findings (check)",
                "  a broken chain (audit verify), or an attached agent that cannot do its work (attach);",
                "  2 bad input or usage;",
                "  3 an internal error (printed with its stack trace).",
                "A command's options: tracegate help COMMAND [SUBCOMMAND], or tracegate COMMAND [SUBCOMMAND] --help."})
public final class Main implements Callable<Integer> {

    /** What {@code --version} prints, for the jar and for each command (picocli gives a command's -V no text of its own). */
    static final String VERSION = "tracegate 0.1.0";

    /** Exit status of a command that failed on its input or was called wrongly. */
    static final int BAD_INPUT = 2;

    /** Exit status of an unexpected exception inside a command (a bug). */
    static final int INTERNAL_ERROR = 3;

    /** The subcommands, in help order. */
    static final Class<?>[] COMMANDS = {CheckCommand.class, ExplainCommand.class, ReplayCommand.class, AuditCommand.class,
            ImportCommand.class, EvalCommand.class, AttachCommand.class, HelpCommand.class};

    @Spec CommandSpec spec;

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs a command and returns its exit code (for tests). */
    public static int run(String... args) {
        CommandLine line = new CommandLine(new Main());
        for (Class<?> command : COMMANDS) {
            line.addSubcommand(command);
        }
        line.setExecutionExceptionHandler((e, cmd, parsed) -> failed(e, cmd));
        line.setParameterExceptionHandler(Main::misused);
        try {
            return line.execute(args);
        } catch (OutOfMemoryError e) {
            // an Error passes picocli's handler; unanswered it kills the JVM with a stack trace and exit 1 ("a contract fails")
            System.err.println("tracegate: out of memory (Java heap, max " + Runtime.getRuntime().maxMemory() / (1 << 20) + " MB): the input"
                    + " needs more than the JVM may use. Give it more (java -Xmx2g -jar tracegate-agent.jar ...), or, for replay,"
                    + " replay the traces in parts (sessions that end with an end line free their memory; open ones hold it to the end)");
            return INTERNAL_ERROR;
        }
    }

    /**
     * A mistake in the arguments (a bad option value, a missing or unknown argument): the command's one-line synopsis and
     * where its options are explained, then the mistake as the last line, where it is seen; not the whole help text,
     * under which the mistake scrolled away. Exit 2.
     */
    static int misused(CommandLine.ParameterException e, String[] args) {
        CommandLine cmd = e.getCommandLine();
        java.io.PrintWriter err = cmd.getErr();
        String name = cmd.getCommandSpec().qualifiedName();
        err.println("Usage: " + new CommandLine.Help(cmd.getCommandSpec(), CommandLine.Help.defaultColorScheme(CommandLine.Help.Ansi.OFF))
                .synopsis(0).stripTrailing());
        // the command's whole path (tracegate help audit verify): help with the last name alone fails for a subcommand
        err.println("  (" + (cmd.getCommandSpec().parent() == null ? name + " --help" : "tracegate help " + name.substring(name.indexOf(' ') + 1))
                + " explains each argument and option)");
        CommandLine.UnmatchedArgumentException.printSuggestions(e, err);
        err.println(name + ": " + e.getMessage());
        err.flush();
        return BAD_INPUT;
    }

    /** No command given: the full usage, with the list of commands, as a usage error. */
    @Override
    public Integer call() {
        return usage(spec);
    }

    /** Prints a command group's usage (with its subcommands) on standard error and returns the usage-error status. */
    static int usage(CommandSpec spec) {
        System.err.println(spec.qualifiedName() + ": name a command.");
        spec.commandLine().usage(System.err);
        return BAD_INPUT;
    }

    /**
     * An exception that escaped a command: a file that cannot be read or a bad value is bad input and
     * gets one line naming the command and what is wrong; anything else is a bug and keeps its stack trace.
     */
    static int failed(Exception e, CommandLine cmd) {
        String where = cmd.getCommandSpec().qualifiedName();
        Throwable t = e instanceof UncheckedIOException u ? u.getCause() : e;
        if (t instanceof NoSuchFileException n) {
            System.err.println(where + ": no such file: " + n.getFile() + ". Check the path (relative paths start at "
                    + System.getProperty("user.dir") + ").");
            return BAD_INPUT;
        }
        if (t instanceof AccessDeniedException a) {
            System.err.println(where + ": permission denied: " + a.getFile() + ". Check the file's permissions.");
            return BAD_INPUT;
        }
        if (t instanceof FileSystemException f) {
            System.err.println(where + ": cannot use " + f.getFile()
                    + (f.getReason() != null ? ": " + f.getReason() : " (" + f.getClass().getSimpleName() + ")"));
            return BAD_INPUT;
        }
        if (t instanceof IOException || t instanceof IllegalArgumentException) {
            System.err.println(where + ": " + (t.getMessage() == null ? t.toString() : t.getMessage()));
            return BAD_INPUT;
        }
        System.err.println(where + ": internal error, please report it with the command line and this trace:");
        e.printStackTrace(System.err);
        return INTERNAL_ERROR;
    }
}
