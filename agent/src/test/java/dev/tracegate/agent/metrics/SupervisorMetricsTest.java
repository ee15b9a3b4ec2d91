package dev.tracegate.agent.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.AuditRecord;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.Decision;
import dev.tracegate.agent.config.FailPolicy;
import java.lang.management.ManagementFactory;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.Random;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SupervisorMetricsTest {
    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    @TempDir Path dir;

    private final SupervisorMetrics metrics = new SupervisorMetrics(Long.MAX_VALUE); // intervals end only when asked

    @AfterEach
    void unregister() {
        metrics.unregister();
    }

    private static ObjectName name() throws Exception {
        return new ObjectName("dev.tracegate:type=Supervisor");
    }

    /** An MXBean map attribute as the JMX client sees it: TabularData of key/value rows. */
    @SuppressWarnings("unchecked")
    private static Map<String, Long> map(String attribute) throws Exception {
        TabularData t = (TabularData) SERVER.getAttribute(name(), attribute);
        Map<String, Long> m = new HashMap<>();
        for (CompositeData row : (java.util.Collection<CompositeData>) t.values()) m.put((String) row.get("key"), (Long) row.get("value"));
        return m;
    }

    @Test
    void auditHeadGivesTheHeadThatVerifyPrintsForTheLogWrittenSoFar() throws Exception {
        // trial23 doc request: an operator had no way to read the trusted head of a running service's log
        Path log = dir.resolve("audit.jsonl");
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.defaults());
        metrics.audit(audit);
        metrics.register();
        for (int i = 1; i <= 3; i++) {
            audit.append(dev.tracegate.agent.audit.AuditRecord.of("s", i, "END", Decision.END).time(i).ts(i));
        }
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        Object head = SERVER.getAttribute(name(), "AuditHead");
        dev.tracegate.agent.audit.AuditVerification v = dev.tracegate.agent.audit.AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.describe()).isTrue();
        assertThat(head).isInstanceOf(String.class).isEqualTo(v.head());
    }

    @Test
    void countsAndLatencyPercentilesAreReadableThroughThePlatformMBeanServer() throws Exception {
        metrics.contracts(new String[] {"no-refund", "gdpr-p4"});
        metrics.sessions(() -> 3);
        metrics.register();
        assertThat(SERVER.isRegistered(name())).isTrue();

        Random random = new Random(7);
        long[] latencies = new long[10_000];
        for (int i = 0; i < latencies.length; i++) {
            latencies[i] = 200 + random.nextInt(50_000);
            metrics.onDecision(i % 10 == 0 ? Decision.BLOCK : Decision.PASS, latencies[i]);
        }
        metrics.onFire(1);
        metrics.onFire(1);
        metrics.onFire(0);
        metrics.onFire(9);   // not a contract of the library: ignored
        metrics.onInternalError(FailPolicy.CLOSED);
        metrics.onInternalError(FailPolicy.OPEN);
        metrics.onInternalError(FailPolicy.OPEN);
        metrics.onSessionEnd();   // an end is a decision of its own, not an event

        assertThat(SERVER.getAttribute(name(), "Events")).isEqualTo(10_000L);
        Map<String, Long> decisions = map("Decisions");
        assertThat(decisions).containsEntry("pass", 9_000L).containsEntry("block", 1_000L).containsEntry("shadow-would-block", 0L)
                .containsEntry("end", 1L);
        assertThat(decisions).hasSize(Decision.values().length);
        assertThat(map("Fires")).containsOnly(Map.entry("no-refund", 1L), Map.entry("gdpr-p4", 2L));
        assertThat(map("InternalErrors")).containsOnly(Map.entry("closed", 1L), Map.entry("open", 2L));
        assertThat(SERVER.getAttribute(name(), "Sessions")).isEqualTo(3L);

        // the oracle: exact percentiles of the recorded values; HdrHistogram keeps 3 significant digits
        long[] sorted = latencies.clone();
        Arrays.sort(sorted);
        assertThat(SERVER.getAttribute(name(), "LatencyCount")).isEqualTo(10_000L);
        assertWithinPrecision((Long) SERVER.getAttribute(name(), "LatencyP50"), sorted[(int) Math.ceil(0.50 * sorted.length) - 1]);
        assertWithinPrecision((Long) SERVER.getAttribute(name(), "LatencyP99"), sorted[(int) Math.ceil(0.99 * sorted.length) - 1]);
        assertWithinPrecision((Long) SERVER.getAttribute(name(), "LatencyP999"), sorted[(int) Math.ceil(0.999 * sorted.length) - 1]);
        assertWithinPrecision((Long) SERVER.getAttribute(name(), "LatencyMax"), sorted[sorted.length - 1]);

        // a new interval holds only what was recorded since
        metrics.endInterval();
        metrics.onDecision(Decision.PASS, 1_000);
        metrics.endInterval();
        assertThat(SERVER.getAttribute(name(), "LatencyCount")).isEqualTo(1L);

        metrics.unregister();
        assertThat(SERVER.isRegistered(name())).isFalse();
    }

    private static void assertWithinPrecision(long reported, long exact) {
        assertThat((double) Math.abs(reported - exact)).as("reported %d, exact %d", reported, exact).isLessThanOrEqualTo(exact * 0.001 + 1);
    }

    @Test
    void theAuditWritersStateIsShown() throws Exception {
        AuditWriter w = AuditWriter.start(dir.resolve("a.jsonl"), AuditWriter.Settings.defaults().queueSize(128));
        metrics.audit(w);
        metrics.register();
        for (int i = 0; i < 5; i++) w.append(AuditRecord.of("s", i, "CALL", Decision.PASS));
        w.close();
        assertThat(SERVER.getAttribute(name(), "AuditWritten")).isEqualTo(5L);
        assertThat(SERVER.getAttribute(name(), "AuditQueueDepth")).isEqualTo(0);
        assertThat(SERVER.getAttribute(name(), "AuditQueueCapacity")).isEqualTo(128);
        assertThat(SERVER.getAttribute(name(), "AuditErrors")).isEqualTo(0L);
        assertThat(SERVER.getAttribute(name(), "AuditHealthy")).isEqualTo(false);   // closed
    }

    @Test
    void fireCountsSurviveALibraryReloadById() throws Exception {
        SupervisorMetrics.FireCounts old = metrics.contracts(new String[] {"a", "b"});
        metrics.onFire(1);
        metrics.contracts(new String[] {"b", "c"});
        metrics.onFire(0);
        metrics.onFire(1);
        old.fire(0);   // an event still decided by the old library counts for its own contract "a"
        metrics.register();
        assertThat(map("Fires")).containsOnly(Map.entry("a", 1L), Map.entry("b", 2L), Map.entry("c", 1L));
    }

    @Test
    void sessionsEndedWithUnmetObligationsAreCountedInTotalAndPerContractAcrossAReload() throws Exception {
        metrics.contracts(new String[] {"a", "b"});
        metrics.register();
        assertThat(map("UnmetAtEnd")).containsOnly(Map.entry("a", 0L), Map.entry("b", 0L));
        metrics.onSessionEndUnmet(java.util.List.of());   // an end that owed nothing
        metrics.onSessionEndUnmet(java.util.List.of("a", "b"));
        metrics.onSessionEndUnmet(java.util.List.of("b"));
        metrics.contracts(new String[] {"b", "c"});
        metrics.onSessionEndUnmet(java.util.List.of("a"));   // a session of the old version ends after the reload
        assertThat(SERVER.getAttribute(name(), "SessionsEndedUnmet")).isEqualTo(3L);
        assertThat(map("UnmetAtEnd")).containsOnly(Map.entry("a", 2L), Map.entry("b", 2L), Map.entry("c", 0L));
    }

    @Test
    void registeringAgainReplacesAnEarlierInstance() throws Exception {
        SupervisorMetrics earlier = new SupervisorMetrics();
        earlier.register();
        earlier.onDecision(Decision.PASS, 1);
        metrics.register();
        assertThat(SERVER.getAttribute(name(), "Events")).isEqualTo(0L);
        earlier.unregister();   // not the registered instance any more: must not remove the new one
        assertThat(SERVER.isRegistered(name())).isTrue();
    }

    @Test
    void recordingAnEventAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        metrics.contracts(new String[] {"a", "b"});
        long id = Thread.currentThread().getId();
        Runnable work = () -> {
            for (int i = 0; i < 100_000; i++) {
                metrics.onDecision(Decision.PASS, 100 + (i & 1023));
                metrics.onFire(i & 1);
            }
        };
        work.run();   // warm up (and let the JIT settle)
        long before = threads.getThreadAllocatedBytes(id);
        work.run();
        long allocated = threads.getThreadAllocatedBytes(id) - before;
        // one object per event would be at least 1.6 MB here
        assertThat(allocated).isLessThan(64 * 1024);
    }
}
