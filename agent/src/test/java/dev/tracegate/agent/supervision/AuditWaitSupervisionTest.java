package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.FileAuditSink;
import dev.tracegate.agent.audit.WriteGate;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What the caller of a tool sees of the audit queue (trial22 01): the MBean's decision latency includes the time a call
 * waited for room in the queue, as it includes an approver's wait.
 */
class AuditWaitSupervisionTest {
    @TempDir Path dir;

    @AfterEach
    void release() {
        AgentLog.captureForTest(null);
    }

    private AgentConfig config(Path log) throws Exception {
        Path lib = Files.writeString(dir.resolve("w.yaml"), "library: w\ncontracts:\n  - id: w.no-wipe\n    guarantee: G !call(wipe)\n");
        return AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
    }

    @Test
    @Timeout(120)   // only stops a hung test
    void theLatencyOfACallThatWaitedForRoomInTheAuditQueueIncludesTheWait() throws Exception {
        AgentLog.captureForTest(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = config(log);
        WriteGate gate = new WriteGate();
        long maxBlock = TimeUnit.MILLISECONDS.toNanos(300);
        AuditWriter audit = AuditWriter.start(new FileAuditSink(log, gate::wrap),
                AuditWriter.Settings.from(config).queueSize(2).maxBlock(maxBlock, TimeUnit.NANOSECONDS));
        SupervisorMetrics metrics = new SupervisorMetrics();
        ContractSupervisor s = new ContractSupervisor(config, audit, metrics, null);
        try {
            gate.armed = true;
            assertThat(s.onToolCall(new ToolCall("t", "c1", "search", "{}", "0")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
            gate.entered.await();   // the writer's write does not return: the 2-slot queue fills behind it
            int refused = 0;
            for (int i = 1; i <= 4 && refused == 0; i++) {   // 2 fill the queue, the next waits max-block and is refused
                ToolDecision d = s.onToolCall(new ToolCall("t", "c1", "search", "{}", Integer.toString(i)));
                if (d.kind() == ToolDecision.Kind.BLOCK) {
                    refused++;
                    assertThat(d.reason()).contains("the audit log could not take this decision in time");
                }
            }
            assertThat(refused).as("a call that found no room for max-block (under the 2 s stall time) is refused").isEqualTo(1);
            // by the agent's own rule that call was held for at least max-block: no clock of the test's is compared
            assertThat(metrics.getLatencyMax()).as("LatencyMax includes the call's wait for room")
                    .isGreaterThanOrEqualTo(maxBlock * 99 / 100);   // the histogram's precision (LatencyCounts)
        } finally {
            gate.armed = false;
            gate.open.countDown();
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }
}
