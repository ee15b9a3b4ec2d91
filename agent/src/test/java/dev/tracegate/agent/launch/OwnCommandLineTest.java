package dev.tracegate.agent.launch;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent does not supervise tracegate's own command line (trial9: JAVA_TOOL_OPTIONS with the agent, set for a host,
 * made `java -jar tracegate-agent.jar audit verify` append a segment to the log it was verifying).
 */
class OwnCommandLineTest {
    @TempDir Path dir;

    @Test
    void theJvmOfJavaDashJarTheAgentJarIsItsOwnCommandLine() throws Exception {
        Path spaced = Files.createDirectories(dir.resolve("with space"));
        File jar = Files.createFile(spaced.resolve("tracegate-agent.jar")).toFile();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, jar.getPath() + " audit verify audit.jsonl")).isTrue();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, jar.getPath())).isTrue();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, spaced.resolve("..").resolve("with space").resolve("tracegate-agent.jar")
                + " replay x")).as("the same file by another path").isTrue();
    }

    @Test
    void aHostIsNot() throws Exception {
        File jar = Files.createFile(dir.resolve("tracegate-agent.jar")).toFile();
        File host = Files.createFile(dir.resolve("service.jar")).toFile();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, host.getPath() + " --port 8080")).isFalse();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, "com.acme.Main " + jar.getPath())).as("a main class, the jar only as an argument").isFalse();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, null)).isFalse();
        assertThat(AgentLauncher.runsOwnCommandLine(jar, "")).isFalse();
    }
}
