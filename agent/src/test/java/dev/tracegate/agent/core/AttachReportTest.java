package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/** What an attached start hands the attach command: its console lines, and whether it cannot do its work (trial23 02, 05). */
class AttachReportTest {

    @Test
    void theTranscriptKeepsTheLinesPrintedBetweenItsBeginningAndEnd() {
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(console, true, StandardCharsets.UTF_8));
        try {
            AgentLog.info("before");
            AgentLog.beginTranscript();
            AgentLog.info("contracts loaded: shop");
            AgentLog.warn("something to mind");
            AgentLog.error("cannot open the audit log /x", null);
            String lines = AgentLog.endTranscript();
            AgentLog.info("after");
            assertThat(lines).isEqualTo("[tracegate] contracts loaded: shop\n[tracegate] WARN something to mind\n"
                    + "[tracegate] ERROR cannot open the audit log /x\n");
            assertThat(AgentLog.endTranscript()).isEmpty();
            // the console gets every line, as before
            assertThat(console.toString(StandardCharsets.UTF_8)).contains("before").contains("contracts loaded").contains("after");
        } finally {
            AgentLog.captureForTest(null);
        }
    }

    /**
     * The application's decisions while an attached agent starts go to its standard error as always, but not into the
     * start's report: under load they buried the start-up lines the attach command prints (trial38 01: 217 of 225).
     */
    @Test
    void decisionLinesPrintedDuringAnAttachedStartAreNotInItsReport() {
        AgentArguments args = AgentArguments.parse("block=sendEmail,suppress=lookup");
        JsonCodec json = new JsonCodec();
        SupervisorBridge b = new SupervisorBridge(new dev.tracegate.agent.rules.RuleSupervisor(args, json), args, json,
                dev.tracegate.agent.instrumentation.configured.ConfiguredMethods.none());
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(console, true, StandardCharsets.UTF_8));
        String lines;
        try {
            AgentLog.beginTranscript();
            AgentLog.info("contracts loaded: shop");
            b.onToolCall("lc", "s", "sendEmail", "{}", null);
            b.onToolResult("lc", "s", "lookup", null, "text", false);
            AgentLog.warn("something to mind");
            lines = AgentLog.endTranscript();
        } finally {
            AgentLog.captureForTest(null);
        }
        assertThat(lines).isEqualTo("[tracegate] contracts loaded: shop\n[tracegate] WARN something to mind\n");
        assertThat(console.toString(StandardCharsets.UTF_8)).contains("[tracegate] BLOCK lc session=s tool=sendEmail")
                .contains("SUPPRESS lc session=s tool=lookup");
    }

    @Test
    void aStartIsDegradedWhenItPrintedAnErrorOrChecksNothing() {
        String fine = "[tracegate] contracts loaded: shop\n[tracegate] WARN instrumentation mcp-server matched nothing\n";
        assertThat(AgentCore.degraded(fine, false)).isNull();
        assertThat(AgentCore.degraded(fine + "[tracegate] ERROR cannot open the audit log /sys/a.jsonl: ...\n", false))
                .isEqualTo("it reported an error at start (above)");
        assertThat(AgentCore.degraded("[tracegate] WARN no contract libraries configured: nothing is supervised\n", true))
                .contains("it has no contract libraries, so it supervises nothing");
    }
}
