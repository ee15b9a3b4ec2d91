package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A session ended to make room under {@code sessions.max} resets its conversation's counts and history, so it must not
 * pass unseen (trial12: sessions.max 2 with three conversations gave no block where 54 were due, and nothing said so):
 * the MBean counts it in Evictions, and standard error says so the first time and then at most once a minute. Ends of
 * the idle sweep are not evictions.
 */
class EvictionWarningTest {
    @TempDir Path dir;

    @Test
    void sessionsEndedToMakeRoomAreCountedAndWarnedAboutOnceIdleEndsAreNot() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=sop-refund,sessions.max=2,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        SupervisorMetrics metrics = new SupervisorMetrics();
        ContractSupervisor supervisor = new ContractSupervisor(config, audit, metrics, null);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        try {
            for (int round = 0; round < 3; round++) {
                for (String id : new String[] {"a", "b", "c"}) {
                    supervisor.onToolCall(new ToolCall("test", id, "lookup_order", "{\"order\":7}", id + round));
                    supervisor.onToolResult(new ToolResult("test", id, "lookup_order", id + round, "order 7: shipped", false));
                }
            }
            // three conversations over two places: sessions were ended, each by an eviction (no sweep ran yet)
            long ends = metrics.getDecisions().get("end");
            assertThat(ends).isGreaterThanOrEqualTo(3);
            assertThat(metrics.getEvictions()).isEqualTo(ends);
            String said = err.toString(StandardCharsets.UTF_8);
            assertThat(said).containsOnlyOnce("sessions.max (2) reached: session a, the least recently used with no tool call in flight, was ended to make room")
                    .contains("[tracegate] WARN ");
            assertThat(said.lines().filter(l -> l.contains("sessions.max")).count()).as("one line within the minute").isEqualTo(1);

            supervisor.evictIdle(Long.MAX_VALUE);   // the idle sweep ends the two live sessions (no call in flight): not evictions
            assertThat(metrics.getSessions()).isZero();
            assertThat(metrics.getDecisions().get("end")).isEqualTo(ends + 2);
            assertThat(metrics.getEvictions()).isEqualTo(ends);
        } finally {
            AgentLog.captureForTest(null);
            supervisor.close();
            audit.close(30, TimeUnit.SECONDS);
        }
    }
}
