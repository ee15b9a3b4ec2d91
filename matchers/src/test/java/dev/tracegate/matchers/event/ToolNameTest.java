package dev.tracegate.matchers.event;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class ToolNameTest {
    @Test void foldsCaseAndSpace() {
        assertThat(ToolName.fold("  Send_Email ")).isEqualTo("send_email");
        assertThat(ToolName.matches("SEND_EMAIL", "send_email")).isTrue();
        assertThat(ToolName.matches("send_emails", "send_email")).isFalse();
        assertThat(ToolName.fold(null)).isNull();
    }

    @Test void mcpQualifiedNameAnswersToBareName() {
        assertThat(ToolName.matches("mcp__gmail__send_email", "send_email")).isTrue();
        assertThat(ToolName.matches("MCP__Gmail__Send_Email", "send_email")).isTrue();
        assertThat(ToolName.matches("mcp__gmail__send_email", "mcp__gmail__send_email")).isTrue();
        assertThat(ToolName.matches("send_email", "mcp__gmail__send_email")).isFalse();
        assertThat(ToolName.bare("mcp__srv__a__b")).isEqualTo("a__b");
        assertThat(ToolName.bare("mcp__srv__")).isEqualTo("mcp__srv__");
        assertThat(ToolName.bare("mcp__nosep")).isEqualTo("mcp__nosep");
    }

    @Test void eventPrecomputesFoldedNames() {
        Event e = Event.call("s", 1, " MCP__x__Search ", "{}");
        assertThat(e.toolKey()).isEqualTo("mcp__x__search");
        assertThat(e.toolBare()).isEqualTo("search");
        assertThat(e.tool()).isEqualTo(" MCP__x__Search ");
    }
}
