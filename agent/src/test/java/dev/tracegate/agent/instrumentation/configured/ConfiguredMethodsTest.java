package dev.tracegate.agent.instrumentation.configured;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConfiguredMethodsTest {

    @Test
    void globsMatchWholeNamesOnly() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of(
                "# comment", "", "tool com.acme.*Tools#send* name=$method", "erasure com.acme.Privacy#forget subject=0"));
        assertThat(m.rules()).hasSize(2);
        assertThat(m.find("com.acme.MailTools", "sendEmail")).isNotNull();
        assertThat(m.find("com.acme.MailTools", "resend")).isNull();
        assertThat(m.find("com.acme.MailToolsX", "sendEmail")).isNull();
        assertThat(m.find("com.acme.Privacy", "forget").kind()).isEqualTo(MethodRule.Kind.ERASURE);
        assertThat(m.namesClass("org.other.Privacy")).isFalse();
    }

    @Test
    void errorsNameFileLineAndColumn() {
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B#c", "  consent a.B#grant purpose=1")))
                .hasMessage("m.txt:2:11: consent needs subject=<index|literal>");
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B")))
                .hasMessageStartingWith("m.txt:1:6: expected class#method");
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B#c args")))
                .hasMessageStartingWith("m.txt:1:12: expected key=value");
    }
}
