package dev.tracegate.agent.core;

import dev.tracegate.agent.config.AgentConfig;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The start-up line speaks the keys of agent/CONFIG.md, with the values in effect whatever source set them (trial2 R5). */
class StartedLineTest {

    private static String line(String arguments, Map<String, String> properties, boolean attached) {
        AgentArguments options = AgentArguments.parse(arguments);
        AgentConfig config = AgentConfig.load(arguments, Map.of(), properties, AgentCore.FREE_KEYS);
        return AgentCore.startedLine(attached, options, config, AgentCore.bridgeOptions(arguments, options, config),
                List.of("langchain4j", "springai"), 0);
    }

    @Test
    void aConfiguredBlockStyleIsReportedUnderItsOwnKeyNotTheDevelopmentOne() {
        String line = line("libraries=gdpr,block.style=substitute", Map.of(), false);
        assertThat(line).isEqualTo("agent started (premain) libraries=gdpr mode=enforce fail=closed block.style=substitute"
                + " instrumentations=[langchain4j, springai]");
    }

    @Test
    void valuesFromPropertiesAreTheOnesInEffect() {
        String line = line("libraries=gdpr;injection", Map.of("tracegate.block.style", "exception", "tracegate.mode", "shadow",
                "tracegate.fail", "open"), true);
        assertThat(line).isEqualTo("agent started (attached) libraries=gdpr;injection mode=shadow fail=open block.style=exception"
                + " instrumentations=[langchain4j, springai]");
    }

    @Test
    void developmentOptionsAreTranslatedAndOnlyAChosenSupervisorIsNamed() {
        assertThat(line("supervisor=rules,onBlock=throw,shadow=true", Map.of(), false))
                .isEqualTo("agent started (premain) supervisor=rules mode=shadow fail=closed block.style=exception"
                        + " instrumentations=[langchain4j, springai]");
        assertThat(line("block=charge", Map.of(), false))
                .startsWith("agent started (premain) libraries=none (no contracts) mode=enforce")
                .doesNotContain("supervisor").doesNotContain("onBlock");
    }

    @Test
    void configuredMethodsAreCountedWhenThereAreAny() {
        AgentArguments options = AgentArguments.parse("libraries=gdpr");
        AgentConfig config = AgentConfig.load("libraries=gdpr", Map.of(), Map.of(), AgentCore.FREE_KEYS);
        assertThat(AgentCore.startedLine(false, options, config, options, List.of("configured"), 3))
                .endsWith(" instrumentations=[configured] configured-methods=3");
    }
}
