package dev.tracegate.agent.config;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The development options (AgentConfig.DEVELOPMENT_KEYS) are read from the start's own sources: the agent argument,
 * -Dtracegate.KEY and TRACEGATE_KEY. In the configuration file one was taken without a word and never read
 * ('block: charge' let every charge run); it is now refused there, with its place and where to give it.
 */
class DevelopmentKeysTest {
    @TempDir Path dir;

    @Test
    void aDevelopmentOptionInTheFileIsRefusedWithWhereItIsRead() throws Exception {
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), "audit.path: audit.jsonl\nblock: charge\n");
        assertThatThrownBy(() -> AgentConfig.load("config=" + yaml, Map.of(), Map.of(), AgentConfig.DEVELOPMENT_KEYS))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(yaml + ":2")
                .hasMessageContaining("'block' is a development option (agent/README.md), read from the agent argument (block=...),"
                        + " -Dtracegate.block or TRACEGATE_BLOCK, not from the configuration file");
    }

    @Test
    void theSameOptionIsTakenFromTheAgentArgumentAPropertyAndTheEnvironment() {
        assertThat(AgentConfig.load("block=charge", Map.of(), Map.of(), AgentConfig.DEVELOPMENT_KEYS).extra("block")).isEqualTo("charge");
        assertThat(AgentConfig.load(null, Map.of(), Map.of("tracegate.trace", "true"), AgentConfig.DEVELOPMENT_KEYS).extra("trace"))
                .isEqualTo("true");
        assertThat(AgentConfig.load(null, Map.of("TRACEGATE_SUPERVISOR", "rules"), Map.of(), AgentConfig.DEVELOPMENT_KEYS).extra("supervisor"))
                .isEqualTo("rules");
    }
}
