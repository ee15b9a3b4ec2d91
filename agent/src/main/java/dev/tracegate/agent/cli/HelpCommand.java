package dev.tracegate.agent.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code tracegate help [COMMAND [SUBCOMMAND...]]}: the options of a command at any depth. picocli's own help command reads
 * one name only, so {@code help audit verify} printed the usage of {@code audit} (trial24 03), while the usage hint of a
 * mistaken {@code audit verify} named {@code help verify}, which failed.
 */
@Command(name = "help", helpCommand = true, usageHelpAutoWidth = true,
        description = "A command's options: tracegate help COMMAND [SUBCOMMAND], e.g. tracegate help audit verify.")
final class HelpCommand implements CommandLine.IHelpCommandInitializable2, Callable<Integer> {
    @Parameters(paramLabel = "COMMAND", arity = "0..*", description = "The command, then its subcommand if it has them.")
    List<String> names = new ArrayList<>();

    private CommandLine self;
    private CommandLine.Help.ColorScheme colors;
    private PrintWriter out;
    private PrintWriter err;

    @Override
    public void init(CommandLine helpCommandLine, CommandLine.Help.ColorScheme colorScheme, PrintWriter outWriter,
                     PrintWriter errWriter) {
        self = helpCommandLine;
        colors = colorScheme;
        out = outWriter;
        err = errWriter;
    }

    @Override
    public Integer call() {
        CommandLine target = self.getParent();
        for (String name : names) {
            CommandLine sub = target.getSubcommands().get(name);
            if (sub == null) {
                err.println(target.getCommandSpec().qualifiedName() + ": unknown command '" + name + "'; its commands: "
                        + String.join(", ", target.getSubcommands().keySet()) + ".");
                err.flush();
                return Main.BAD_INPUT;
            }
            target = sub;
        }
        target.usage(out, colors);
        out.flush();
        return 0;
    }
}
