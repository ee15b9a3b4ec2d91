package dev.tracegate.agent.hardening;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Many events over many sessions through the {@link ContractSupervisor} (and so the engine's
 * SessionMonitor) with eviction by {@code sessions.max}: the retained heap after the first tenth
 * does not keep growing, every event has its audit record, every session is ended, and the chain
 * verifies. The default run is a small smoke; {@code -Plong} runs {@code tracegate.soak.events}
 * (default 2,000,000) over {@code tracegate.soak.sessions} (default 100,000).
 */
class SoakTest {
    @TempDir Path dir;

    @Test void smoke() throws Exception { soak(30_000, 3_000, 300); }

    @Test @Tag("long") void longSoak() throws Exception {
        soak(Long.getLong("tracegate.soak.events", 2_000_000), Integer.getInteger("tracegate.soak.sessions", 100_000), 10_000);
    }

    private void soak(long events, int sessions, int maxLive) throws Exception {
        Path log = dir.resolve("soak.jsonl");
        AgentConfig config = AgentConfig.load("libraries=gdpr;injection;sop-refund,sessions.max=" + maxLive + ",audit.path=" + log,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
        Random rnd = new Random(42);
        long tenth = Math.max(1, events / 10), baseline = -1, peak = 0;
        long sent = 0;
        java.util.List<Long> tenths = new java.util.ArrayList<>();
        for (long i = 0; i < events; i++) {
            // sessions arrive in waves, so old ones go idle and are evicted while new ones start
            String session = "s" + ((i / 7 + rnd.nextInt(50)) % sessions);
            switch ((int) (i % 4)) {
                case 0 -> s.onUserMessage(new Message("soak", session, "refund order " + i + " please, mail me at a" + (i % 97) + "@example.com"));
                case 1 -> s.onToolCall(new ToolCall("soak", session, "approve_refund", "{\"order\":" + i + ",\"amount\":" + (i % 300) + "}", "t" + i));
                case 2 -> s.onToolResult(new ToolResult("soak", session, "approve_refund", "t" + (i - 1), "approved", false));
                default -> s.onToolCall(new ToolCall("soak", session, "refund", "{\"order\":" + i + ",\"amount\":" + (i % 400) + "}", "u" + i));
            }
            sent++;
            if ((i + 1) % tenth == 0) {
                long used = usedAfterGc(memory);
                if (baseline < 0) baseline = used;
                peak = Math.max(peak, used);
                tenths.add(used >> 20);
            }
        }
        s.close();
        assertThat(audit.close(60, TimeUnit.SECONDS)).isTrue();
        System.out.printf("[hardening] soak: %d events over %d session ids (at most %d live): heap after GC %d MB at 10%%, peak %d MB after; per tenth (MB) %s%n",
                sent, sessions, maxLive, baseline >> 20, peak >> 20, tenths);
        assertThat(peak - baseline).as("retained heap growth after the first tenth, bytes").isLessThan(64L << 20);

        long nonEnd = 0, ends = 0;
        ObjectMapper json = new ObjectMapper();
        try (BufferedReader in = Files.newBufferedReader(log, StandardCharsets.UTF_8)) {
            for (String line = in.readLine(); line != null; line = in.readLine()) {
                JsonNode r = json.readTree(line);
                if (!"event".equals(r.path("rec").asText())) continue;
                if ("end".equals(r.path("kind").asText())) ends++; else nonEnd++;
            }
        }
        assertThat(nonEnd).as("one audit record per event").isEqualTo(sent);
        assertThat(ends).as("end records (evictions and close) cover more than the live limit").isGreaterThan(maxLive);
        // Evicted sessions' END records must follow their events in sequence (see EvictionAuditTest).
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.describe()).isTrue();
    }

    private static long usedAfterGc(MemoryMXBean memory) {
        System.gc();
        System.gc();
        return memory.getHeapMemoryUsage().getUsed();
    }
}
