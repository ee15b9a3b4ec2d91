package dev.tracegate.bench;

import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.matchers.event.Event;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;

/** The grounding benchmark's events pass as built, its library still blocks what it should, and the baseline judges the same events. */
class GroundingBenchmarkTest {

    @Test
    void measuredEventsPassRepeatedly() {
        GroundingBenchmark.Subject l = new GroundingBenchmark.Subject();
        l.setUp();
        GroundingBenchmark b = new GroundingBenchmark();
        GroundingBenchmark.Baseline base = new GroundingBenchmark.Baseline();
        base.setUp();
        assertThat(l.result2k.result()).hasSizeBetween(2000, 2100);
        assertThat(l.user1k.text()).hasSize(1024);
        assertThat(l.call3.args().size()).isEqualTo(3);
        for (int i = 0; i < 20; i++) {
            assertThat(b.stepCall(l)).isSameAs(Decision.PASS);
            assertThat(b.stepCallFresh(l)).isSameAs(Decision.PASS);
            assertThat(b.stepResult(l)).isSameAs(Decision.PASS);
            assertThat(b.stepUser(l)).isSameAs(Decision.PASS);
            assertThat(b.stepResultFresh(l)).isSameAs(Decision.PASS);
            assertThat(b.stepUserFresh(l)).isSameAs(Decision.PASS);
            assertThat(b.groundCall(l)).isZero();
            assertThat(b.baselineCall(base)).isTrue();
            assertThat(b.baselineResult(base)).isTrue();
            assertThat(b.baselineUser(base)).isTrue();
            assertThat(b.baselinePrefilteredCall(base)).isTrue();
            assertThat(b.baselinePrefilteredResult(base)).isTrue();
            assertThat(b.baselinePrefilteredUser(base)).isTrue();
        }
    }

    @Test
    void libraryBlocksARefundOverTheBoundAndTheBaselineCannotSeeHistory() {
        GroundingBenchmark.Subject l = new GroundingBenchmark.Subject();
        l.setUp();
        Event big = Event.call("call", 50, "refund", "{\"order_id\":\"A-1234\",\"amount\":900,\"reason\":\"damaged\"}");
        Decision d = l.monitor.step(l.callSession, big, true, true, l.worker);
        assertThat(d.kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(l.monitor.contracts().contracts().get(d.contract(0)).id()).isEqualTo("support-1");
        StatelessGuard guard = new StatelessGuard(java.util.Set.of("lookup_order", "refund", "send_email", "search_kb"), 500);
        assertThat(guard.allows(big)).isFalse();
        assertThat(StatelessGuard.prefiltered(java.util.Set.of("lookup_order", "refund", "send_email", "search_kb"), 500).allows(big)).isFalse();

        // A refund with no order looked up first: only a guard that remembers history can refuse it.
        var fresh = l.monitor.session("fresh");
        Event refund = Event.call("fresh", 0, "refund", "{\"order_id\":\"A-1234\",\"amount\":20,\"reason\":\"damaged\"}");
        assertThat(l.monitor.step(fresh, refund, true, true, l.worker).kind()).isEqualTo(Decision.Kind.BLOCK);
        assertThat(guard.allows(refund)).isTrue();
    }

    /** The fresh call is the measured call again, as the agent would report it: equal arguments, a new object each time. */
    @Test
    void theFreshCallIsTheSameCallBuiltAnewAsTheAgentBuildsIt() {
        GroundingBenchmark.Subject l = new GroundingBenchmark.Subject();
        l.setUp();
        Event a = l.freshCall(), b = l.freshCall();
        assertThat(a).isNotSameAs(b);
        assertThat(a.args()).isNotSameAs(b.args());
        assertThat(a.args()).isEqualTo(l.call3.args());
        assertThat(a.args().json()).isEqualTo(l.call3.args().json());
        assertThat(a.kind()).isEqualTo(l.call3.kind());
        assertThat(a.tool()).isEqualTo(l.call3.tool());
        // a changed argument reaches the event: the body does not step a constant
        l.callQuery = "return label for order A-9";
        l.callLimit = 2;
        assertThat(l.freshCall().args().json()).contains("return label for order A-9").contains("2");
    }

    /** The built-in libraries need not pass these events, but a benchmark must measure a steady state: the same decision every time. */
    @ParameterizedTest
    @ValueSource(strings = {"gdpr", "injection", "sop-refund"})
    void builtinLibrariesDecideTheMeasuredEventsTheSameWayEveryTime(String library) {
        GroundingBenchmark.Subject l = new GroundingBenchmark.Subject();
        l.library = library;
        try {
            l.setUp();
        } catch (dev.tracegate.contracts.library.LibraryException e) {
            // The library's own module tests own its loading; here it only means there is nothing to measure.
            org.junit.jupiter.api.Assumptions.abort("built-in library " + library + " does not load: " + e.getMessage());
        }
        GroundingBenchmark b = new GroundingBenchmark();
        Decision call = b.stepCall(l), result = b.stepResult(l), user = b.stepUser(l);
        System.out.println(library + ": call " + call + ", result " + result + ", user " + user
                + " (" + l.monitor.contracts().contracts().size() + " contracts)");
        for (int i = 0; i < 10; i++) {
            assertThat(b.stepCall(l).kind()).isEqualTo(call.kind());
            assertThat(b.stepCallFresh(l).kind()).as("a new event with the same arguments").isEqualTo(call.kind());
            assertThat(b.stepResult(l).kind()).isEqualTo(result.kind());
            assertThat(b.stepUser(l).kind()).isEqualTo(user.kind());
        }
    }
}
