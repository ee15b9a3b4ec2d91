package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * A forked JVM that hangs fails its test with what it printed and where it hung, and neither it nor the processes it
 * started outlive the test: the harness's side of the applications' long waits for a peer (demoapp.Patience), which
 * must not hide a hang of the agent.
 */
class HungProcessTest {

    @Test
    void aHungForkFailsWithItsOutputAndTheThreadDumpsOfItsProcessTreeAndIsEnded() {
        // a shell that starts a JVM and waits for it: an MCP stdio server, which never ends by itself (as an MCP client
        // starts its server); the shell is the fork, the server JVM its child
        List<String> command = List.of("/bin/sh", "-c", "echo SHELL STARTED; \"$0\" -cp \"$1\" demoapp.mcp.McpApp server & wait",
                ForkedJvm.java(), ForkedJvm.appClasspath());
        AssertionError hang = catchThrowableOfType(() -> ForkedJvm.exec(command, Map.of(), null, 20), AssertionError.class);
        assertThat(hang).as("the fork hangs: the harness must fail it").isNotNull();
        String message = hang.getMessage();
        assertThat(message).contains("forked JVM did not finish in 20 s")
                .contains("SHELL STARTED")                    // its output
                .contains("SERVER READY demo-server")         // the child's standard error (inherited by the shell's)
                .contains("--- threads of process ");
        // the server JVM's thread dump, where its main thread waits
        assertThat(message).containsPattern("--- threads of process \\d+ \\S*/java -cp ")
                .contains("\"main\"").contains("java.lang.Thread.sleep").contains("at demoapp.mcp.McpApp.server(");
        // nothing of the tree is left
        java.util.regex.Matcher pids = java.util.regex.Pattern.compile("--- threads of process (\\d+) ").matcher(message);
        int seen = 0;
        while (pids.find()) {
            seen++;
            long pid = Long.parseLong(pids.group(1));
            ProcessHandle p = ProcessHandle.of(pid).orElse(null);
            if (p != null) {
                p.onExit().orTimeout(30, java.util.concurrent.TimeUnit.SECONDS).join();
            }
            assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).as("process %s ended", pid).isFalse();
        }
        assertThat(seen).as(message).isEqualTo(2);
    }
}
