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
import java.util.concurrent.Callable;

/** {@code attach PID [key=value,...]}: loads this agent jar into a running JVM, which retransforms the classes it already loaded. */
@Command(name = "attach", mixinStandardHelpOptions = true,
        description = "Attach the agent to a running JVM (same options as -javaagent:tracegate-agent.jar=...).")
final class AttachCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "PID", description = "process id of the target JVM")
    String pid;

    @Parameters(index = "1", arity = "0..1", paramLabel = "OPTIONS", description = "agent options, e.g. block=sendEmail,onBlock=throw")
    String options;

    @Override
    public Integer call() throws URISyntaxException {
        File jar = new File(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        if (!jar.isFile()) {
            System.err.println("tracegate attach: the agent jar was not found at " + jar + "; run it as java -jar tracegate-agent.jar attach PID");
            return 2;
        }
        VirtualMachine vm;
        try {
            vm = VirtualMachine.attach(pid);
        } catch (AttachNotSupportedException | IOException e) {
            System.err.println("tracegate attach: cannot attach to process " + pid + ": " + e.getMessage()
                    + " (is it a running JVM of the same user, started without -XX:+DisableAttachMechanism?)");
            return 1;
        }
        try {
            vm.loadAgent(jar.getAbsolutePath(), options == null ? "" : options);
            System.out.println("tracegate: agent attached to " + pid);
            return 0;
        } catch (AgentLoadException | AgentInitializationException | IOException e) {
            System.err.println("tracegate attach: the agent failed to start in process " + pid + ": " + e.getMessage()
                    + " (see that process's standard error for the reason)");
            return 1;
        } finally {
            try {
                vm.detach();
            } catch (IOException ignored) {
                // the agent is loaded; a failed detach changes nothing
            }
        }
    }
}
