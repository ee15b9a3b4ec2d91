package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.FileAuditSink;
import dev.tracegate.agent.audit.WriteGate;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial16 queue-full-refusals-counted-as-pass: under fail: closed with audit.on-full: block, a call whose record found no
 * room in the queue within audit.max-block is refused; the MBean's Decisions must count it as the block the host got
 * (it counted the contracts' pass), and the log's dropped record must say its event was refused.
 */
@Timeout(120)
class RefusedCallCountTest {
    @TempDir Path dir;


    @Test
    void aCallRefusedBecauseTheQueueStayedFullCountsAsTheBlockTheHostGot() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=sop-refund,fail=closed,audit.queue-size=2,audit.on-full=block,audit.max-block=1ms"
                + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        WriteGate gate = new WriteGate();
        AuditWriter audit = AuditWriter.start(new FileAuditSink(log, gate::wrap), AuditWriter.Settings.from(config));
        SupervisorMetrics metrics = new SupervisorMetrics();
        metrics.audit(audit);
        ContractSupervisor supervisor = new ContractSupervisor(config, audit, metrics, null);
        gate.armed = true;   // the header is written; from now on the writer is stuck at its first write

        Map<ToolDecision.Kind, Integer> host = new LinkedHashMap<>();
        int calls = 0;
        while (host.getOrDefault(ToolDecision.Kind.BLOCK, 0) < 20) {
            ToolDecision d = supervisor.onToolCall(new ToolCall("lc4j", "s" + (calls % 5), "search_kb", "{\"query\":\"q" + calls + "\"}", "c" + calls));
            host.merge(d.kind(), 1, Integer::sum);
            if (d.kind() == ToolDecision.Kind.BLOCK) assertThat(d.reason()).contains("the audit log could not take this decision in time");
            calls++;
            assertThat(calls).as("the queue of 2 fills").isLessThan(10_000);
        }
        int ran = host.getOrDefault(ToolDecision.Kind.PROCEED, 0);
        int refused = host.get(ToolDecision.Kind.BLOCK);
        assertThat(ran + refused).isEqualTo(calls);
        // what the host saw, not what the contracts said (they passed every call)
        assertThat(metrics.getDecisions()).containsEntry("block", (long) refused).containsEntry("pass", (long) ran);
        assertThat(metrics.getEvents()).isEqualTo(calls);
        // trial20 01: a refused call's record counts in AuditRefused, not with the records whose events went on
        assertThat(metrics.getAuditRefused()).isEqualTo(refused);
        assertThat(metrics.getAuditDropped()).isZero();

        gate.armed = false;
        gate.open.countDown();
        supervisor.close();
        assertThat(audit.close(30, TimeUnit.SECONDS)).isTrue();
        ObjectMapper json = new ObjectMapper();
        long refusedNoted = 0;
        for (String line : Files.readAllLines(log)) {
            JsonNode n = json.readTree(line);
            if (!n.path("rec").asText().equals("dropped")) continue;
            // session ends that found the queue full when the sessions closed went on: queue-full, not refused calls
            assertThat(n.path("reason").asText()).isIn("queue-full (calls refused)", "queue-full");
            if (n.path("reason").asText().equals("queue-full (calls refused)")) refusedNoted += n.path("count").asLong();
        }
        assertThat(refusedNoted).isEqualTo(refused);
    }

    /**
     * fix10d: a redacted or redirected call whose record the log refused (fail: closed) ran anyway, as redacted or
     * redirected, with nothing in the log; it must be refused like a passed call whose record was refused.
     */
    @Test
    void aRedactedOrRedirectedCallWhoseRecordTheLogRefusedDoesNotRun() throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), """
                library: shop
                gdpr:
                  purposes:
                    shipping: [name, postal_address]
                  tools:
                    create_shipment: [shipping]
                contracts:
                  - id: min
                    guarantee: G(call -> !excess_data)
                    strategy: redact
                    message: Only the data shipping needs.
                  - id: safe-read
                    guarantee: G !call(readStatement)
                    strategy: redirect
                    redirect-to: readStatementSafe
                    message: Raw statements are not read.
                """);
        Path log = dir.resolve("audit-rewritten.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",fail=closed,audit.queue-size=2,audit.on-full=block,audit.max-block=1ms"
                + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        WriteGate gate = new WriteGate();
        AuditWriter audit = AuditWriter.start(new FileAuditSink(log, gate::wrap), AuditWriter.Settings.from(config));
        SupervisorMetrics metrics = new SupervisorMetrics();
        metrics.audit(audit);
        ContractSupervisor supervisor = new ContractSupervisor(config, audit, metrics, null);
        gate.armed = true;

        Map<ToolDecision.Kind, Integer> host = new LinkedHashMap<>();
        for (int calls = 0; calls < 200; calls++) {
            ToolDecision d = calls % 2 == 0
                    ? supervisor.onToolCall(new ToolCall("x", "s" + (calls % 5), "create_shipment",
                            "{\"name\": \"Ada Lovelace\", \"address\": \"12 Baker Street, London NW1 6XE\", \"email\": \"ada@example.com\"}", "c" + calls))
                    : supervisor.onToolCall(new ToolCall("x", "s" + (calls % 5), "readStatement", "{}", "c" + calls));
            host.merge(d.kind(), 1, Integer::sum);
            if (d.kind() == ToolDecision.Kind.BLOCK) assertThat(d.reason()).contains("the audit log could not take this decision in time");
        }
        assertThat(metrics.getAuditRefused()).as("the queue of 2 fills and turns records away").isPositive();
        gate.armed = false;
        gate.open.countDown();
        supervisor.close();
        assertThat(audit.close(30, TimeUnit.SECONDS)).isTrue();
        ObjectMapper json = new ObjectMapper();
        Map<String, Integer> recorded = new LinkedHashMap<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode n = json.readTree(line);
            if (n.path("rec").asText().equals("event")) recorded.merge(n.path("decision").asText(), 1, Integer::sum);
        }
        // every call the host ran rewritten is in the log as such; the others were refused and counted as blocks
        assertThat(host.getOrDefault(ToolDecision.Kind.REDACT, 0)).as(host + " vs " + recorded).isEqualTo(recorded.getOrDefault("redact", 0));
        assertThat(host.getOrDefault(ToolDecision.Kind.REDIRECT, 0)).as(host + " vs " + recorded).isEqualTo(recorded.getOrDefault("redirect", 0));
        assertThat(metrics.getDecisions()).containsEntry("block", (long) host.get(ToolDecision.Kind.BLOCK));
    }
}
