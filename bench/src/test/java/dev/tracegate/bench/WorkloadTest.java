package dev.tracegate.bench;

import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The benchmarks measure what they claim only if their traffic is decided as built: passing events
 * pass, refused ones are refused by the contract they target. Checked on the online monitor and on
 * the offline replay.
 */
class WorkloadTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 10, 100})
    void passingTrafficPassesForSeveralCycles(int contracts) {
        ContractSet set = Workload.compile(contracts);
        assertThat(set.contracts()).hasSize(contracts);
        Workload.Traffic t = Workload.ordered(set, 1024, 0, 42);
        assertThat(t.refusals()).isZero();
        SessionMonitor<long[]> m = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = m.newWorker();
        Session s = m.session("s");
        for (int i = 0; i < 3 * t.length(); i++) {
            int e = i % t.length();
            assertThat(m.step(s, t.valuations()[e], t.agent()[e], true, w)).as("event %d", e).isSameAs(Decision.PASS);
        }
        assertThat(s.applied()).isEqualTo(3L * t.length());
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 100})
    void refusedEventsAreRefusedByTheContractTheyTarget(int contracts) {
        ContractSet set = Workload.compile(contracts);
        Workload.Traffic t = Workload.ordered(set, 1024, 0.06, 42);
        assertThat(t.refusals()).isBetween(30, 110);
        SessionMonitor<long[]> m = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = m.newWorker();
        Session s = m.session("s");
        Replay<long[]> offline = new Replay<>(set, PregroundedEvents.INSTANCE, true, "s");
        int blocks = 0, suppressions = 0;
        for (int cycle = 0; cycle < 2; cycle++) {
            for (int e = 0; e < t.length(); e++) {
                Decision d = m.step(s, t.valuations()[e], t.agent()[e], true, w);
                Replay.Step r = offline.next(t.valuations()[e], t.agent()[e], true);
                assertThat(d.kind()).as("event %d", e).isEqualTo(t.expected()[e]).isEqualTo(r.decision());
                if (t.blamed()[e] >= 0) {
                    assertThat(d.contracts()).as("event %d", e).containsExactly(t.blamed()[e]);
                    String id = set.contracts().get(t.blamed()[e]).id();
                    if (d.kind() == Decision.Kind.BLOCK) assertThat(id).matches("(bounded-existence|allowlist)-\\d+");
                    else assertThat(id).matches("assume-guarantee-\\d+");
                    assertThat(d.applied()).isFalse();
                }
                if (d.kind() == Decision.Kind.BLOCK) blocks++;
                if (d.kind() == Decision.Kind.SUPPRESS) suppressions++;
            }
        }
        assertThat(blocks).isPositive();
        assertThat(suppressions).isPositive();
    }

    @Test
    void commutativeTrafficPassesInAnyOrderAfterThePrelude() {
        ContractSet set = Workload.compile(10);
        Workload.Traffic prelude = Workload.prelude(set);
        Workload.Traffic pool = Workload.commutative(set, 1024, 7);
        SessionMonitor<long[]> m = new SessionMonitor<>(set, PregroundedEvents.INSTANCE);
        Worker w = m.newWorker();
        java.util.SplittableRandom rnd = new java.util.SplittableRandom(3);
        for (int k = 0; k < 20; k++) {
            Session s = m.session("s" + k);
            for (int e = 0; e < prelude.length(); e++) {
                assertThat(m.step(s, prelude.valuations()[e], prelude.agent()[e], true, w)).isSameAs(Decision.PASS);
            }
            for (int i = 0; i < 2000; i++) {
                int e = rnd.nextInt(pool.length());
                assertThat(m.step(s, pool.valuations()[e], pool.agent()[e], true, w)).as("event %d", e).isSameAs(Decision.PASS);
            }
        }
    }

    @Test
    void everyPatternIsReadByItsOwnFamilyOnly() {
        ContractSet set = Workload.compile(20);
        assertThat(set.contracts().get(13).id()).isEqualTo("absence-after-1");
        assertThat(set.atoms()).allSatisfy(a -> assertThat(a.key()).matches(".*_[01]\\b.*"));
    }
}
