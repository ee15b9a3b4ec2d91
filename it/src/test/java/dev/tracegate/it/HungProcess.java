package dev.tracegate.it;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** What the harness does with a forked JVM that does not finish: how long it waits, and how it ends it. */
public final class HungProcess {
    /**
     * How long a forked JVM may take before its test fails: {@code -Dit.fork.timeout=SECONDS} (the pom's
     * {@code it.fork.timeout}), 600 by default. It bounds a hang, never a normal run: the applications' own waits for a
     * peer (demoapp.Patience, 240 s: an MCP client for its server) end first, so a server that hangs fails with the
     * client's own error and the lines the server wrote.
     */
    public static final long TIMEOUT_SECONDS = Long.getLong("tracegate.it.fork.timeout", 600);

    private HungProcess() {
    }

    /**
     * Ends a JVM that did not finish in time, and every process it started (an MCP client's server JVM, which would
     * otherwise outlive it), each after its thread dump ({@code jcmd PID Thread.print}): where they hung is then in the
     * failure, which the forked JVM's own output cannot say. Returns the dumps.
     */
    public static String stop(ProcessHandle process) {
        List<ProcessHandle> tree = new ArrayList<>();
        tree.add(process);
        process.descendants().forEach(tree::add);
        StringBuilder dumps = new StringBuilder();
        for (ProcessHandle p : tree) {
            if (!p.isAlive()) continue;
            dumps.append("\n--- threads of process ").append(p.pid()).append(' ').append(abbreviated(p.info().commandLine().orElse(""))).append(" ---\n");
            if (!p.info().command().map(c -> c.endsWith("/java")).orElse(false)) {
                dumps.append("(not a JVM: no thread dump)\n");
                continue;
            }
            try {
                Path dump = Files.createTempFile("forked-threads", ".txt");
                Process jcmd = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(), Long.toString(p.pid()), "Thread.print")
                        .redirectErrorStream(true).redirectOutput(dump.toFile()).start();
                if (!jcmd.waitFor(60, TimeUnit.SECONDS)) {
                    jcmd.destroyForcibly();
                    dumps.append("(jcmd did not answer in 60 s)\n");
                }
                dumps.append(Files.readString(dump));
                Files.deleteIfExists(dump);
            } catch (IOException e) {
                dumps.append("(no thread dump: ").append(e).append(")\n");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
        }
        for (int i = tree.size() - 1; i >= 0; i--) {
            tree.get(i).destroyForcibly();
        }
        return dumps.toString();
    }


    private static String abbreviated(String commandLine) {
        return commandLine.length() <= 200 ? commandLine : commandLine.substring(0, 200) + "...";
    }
}
