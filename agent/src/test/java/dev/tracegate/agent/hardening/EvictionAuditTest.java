package dev.tracegate.agent.hardening;

import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Regression test of a hardening finding (fixed): a session evicted by {@code sessions.max} used
 * to get an END record with seq 0, which AuditVerifier rejects as "sequence out of order" after
 * the session's records 1, 2, ...; now EndReport carries the number of events offered and the END
 * record follows them.
 */
class EvictionAuditTest {
    @TempDir Path dir;

    @Test void anEvictedSessionsEndRecordKeepsTheLogVerifiable() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=sop-refund,sessions.max=1,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        s.onUserMessage(new Message("t", "a", "hello"));
        s.onUserMessage(new Message("t", "b", "hello"));   // evicts session a
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readAllLines(log)).anySatisfy(l -> assertThat(l).contains("\"session\":\"a\"").contains("\"kind\":\"end\""));
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.describe()).isTrue();
    }
}
