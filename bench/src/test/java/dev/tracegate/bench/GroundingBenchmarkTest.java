package dev.tracegate.bench;

import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The grounding benchmark's events pass as built, its library still blocks what it should, and the baseline judges the same events. */
class GroundingBenchmarkTest {

    @Test
    void measuredEventsPassRepeatedly() {
        GroundingBenchmark.Library l = new GroundingBenchmark.Library();
        l.setUp();
        GroundingBenchmark b = new GroundingBenchmark();
        assertThat(l.result2k.result()).hasSizeBetween(2000, 2100);
        assertThat(l.user1k.text()).hasSize(1024);
        assertThat(l.call3.args().size()).isEqualTo(3);
        for (int i = 0; i < 20; i++) {
            assertThat(b.stepCall(l)).isSameAs(Decision.PASS);
            assertThat(b.stepResult(l)).isSameAs(Decision.PASS);
            assertThat(b.stepUser(l)).isSameAs(Decision.PASS);
            assertThat(b.groundCall(l)).isZero();
            assertThat(b.baselineCall(l)).isTrue();
            assertThat(b.baselineResult(l)).isTrue();
            assertThat(b.baselineUser(l)).isTrue();
        }
    }

    @Test
    void libraryBlocksARefundOverTheBoundAndTheBaselineCannotSeeHistory() {
        GroundingBenchmark.Library l = new GroundingBenchmark.Library();
        l.setUp();
        Event big = Event.call("call", 50, "refund", "{\"order_id\":\"A-1234\",\"amount\":900,\"reason\":\"damaged\"}");
        Decision d = l.monitor.step(l.callSession, big, true, true, l.worker);
        assertThat(d.kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(l.monitor.contracts().contracts().get(d.contract(0)).id()).isEqualTo("support-1");
        assertThat(l.guard.allows(big)).isFalse();

        // A refund with no order looked up first: only a guard that remembers history can refuse it.
        var fresh = l.monitor.session("fresh");
        Event refund = Event.call("fresh", 0, "refund", "{\"order_id\":\"A-1234\",\"amount\":20,\"reason\":\"damaged\"}");
        assertThat(l.monitor.step(fresh, refund, true, true, l.worker).kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(l.guard.allows(refund)).isTrue();
    }
}
