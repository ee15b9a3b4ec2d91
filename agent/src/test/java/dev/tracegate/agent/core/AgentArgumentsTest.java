package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class AgentArgumentsTest {

    @Test
    void parsesPairsAndKeepsListsInsideValues() {
        AgentArguments a = AgentArguments.parse("block=a;b, shadow=true,redirect=x:y");
        assertThat(a.get("block")).isEqualTo("a;b");
        assertThat(a.flag("shadow", false)).isTrue();
        assertThat(a.get("redirect")).isEqualTo("x:y");
        assertThat(a.get("missing", "fallback")).isEqualTo("fallback");
    }

    @Test
    void theAgentArgumentWinsOverTheSystemProperty() {
        System.setProperty("tracegate.testKey", "fromProperty");
        try {
            assertThat(AgentArguments.parse("").get("testKey")).isEqualTo("fromProperty");
            assertThat(AgentArguments.parse("testKey=fromArgument").get("testKey")).isEqualTo("fromArgument");
        } finally {
            System.clearProperty("tracegate.testKey");
        }
    }

    @Test
    void aPairWithoutEqualsSignIsNamedWithItsPosition() {
        assertThatThrownBy(() -> AgentArguments.parse("shadow=true,oops"))
                .hasMessageContaining("'oops' at character 13")
                .hasMessageContaining("is not key=value")
                .hasMessageContaining("write e.g. -javaagent:tracegate-agent.jar=config=/etc/tracegate/tracegate.yaml,mode=shadow")
                .hasMessageNotContaining("onBlock");
    }

    @Test
    void aFlagThatIsNotABooleanIsRefused() {
        assertThatThrownBy(() -> AgentArguments.parse("shadow=maybe").flag("shadow", false))
                .hasMessageContaining("shadow=maybe is not a boolean");
    }
}
