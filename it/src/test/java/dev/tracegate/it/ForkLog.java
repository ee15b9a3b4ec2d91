package dev.tracegate.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

/**
 * One line per command that starts JVMs, in {@code target/forked-jvms.tsv}: the test class that asked for it, how many
 * JVMs the command names (an MCP client's server command is a second one), and the main class or jar. Summed by class it
 * says where the module's forks go ({@code cut -f1 | sort | uniq -c}); the commands that tests start with a
 * {@link ProcessBuilder} of their own (attach, shutdown) are not in it. Each test JVM (each run) starts the file anew.
 */
public final class ForkLog {
    private static final Object LOCK = new Object();
    /** Whether this JVM has written the file yet: its first line replaces what an earlier run left. */
    private static boolean written;

    private ForkLog() {
    }

    /** Records {@code command} under the test class on this thread's stack (or "?" if none). */
    public static void record(List<String> command) {
        String java = ForkedJvm.java();
        int jvms = 0;
        String main = "?";
        for (int i = 0; i < command.size(); i++) {
            String t = command.get(i);
            if (t.equals(java) || t.endsWith("/bin/java")) {
                jvms++;
                if (jvms == 1) main = mainOf(command, i + 1);
            }
        }
        if (jvms == 0) return;
        String line = testClass() + "\t" + jvms + "\t" + main + "\n";
        Path file = Path.of(System.getProperty("tracegate.app.classes", "target/classes")).toAbsolutePath().normalize().resolveSibling("forked-jvms.tsv");
        synchronized (LOCK) {
            try {
                Files.writeString(file, line, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        written ? StandardOpenOption.APPEND : StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
                written = true;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot append to " + file, e);
            }
        }
    }

    private static String mainOf(List<String> command, int from) {
        for (int j = from; j < command.size(); j++) {
            String o = command.get(j);
            if (o.equals("-cp") || o.equals("-classpath") || o.equals("--class-path")) {
                j++;
            } else if (o.equals("-jar")) {
                return j + 1 < command.size() ? Path.of(command.get(j + 1)).getFileName() + (j + 2 < command.size() ? " " + command.get(j + 2) : "") : "-jar";
            } else if (!o.startsWith("-")) {
                return o;
            }
        }
        return "?";
    }

    private static String testClass() {
        return StackWalker.getInstance().walk(frames -> frames.map(StackWalker.StackFrame::getClassName)
                .map(c -> c.contains("$") ? c.substring(0, c.indexOf('$')) : c)
                .filter(c -> c.startsWith("dev.tracegate.it") && c.endsWith("Test"))
                .reduce((first, second) -> second).orElse("?"));
    }
}
