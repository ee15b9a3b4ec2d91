package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The supervisor's step refuses to read the monitor's CLOSED answer as a decision: CLOSED is not refused, so an
 * event that met it would pass unchecked. The supervisor holds the session's lock, under which sessions end, so
 * CLOSED means a bug; it must surface as an error (which the failure policy then decides about and counts).
 */
class RuntimeStepTest {

    @Test
    void aStepOnASessionThatEndedUnderneathIsAnErrorNotAPass() {
        Runtime rt = new Runtime(Library.load(List.of("sop-refund"), null), 1, 1000, r -> { });
        Session s = rt.monitor.session("s1");
        Worker w = rt.worker();
        Event refund = Event.call("s1", 0, "refund", "{\"order_id\":\"A-1\",\"amount\":20}");
        assertThat(rt.monitor.step(s, refund, true, true, w).refused())
                .as("sop-refund refuses a refund nobody approved: the session is open and checked").isTrue();
        rt.monitor.end(s);
        assertThat(rt.monitor.step(s, refund, true, true, w).kind())
                .as("the engine's answer on an ended session, which a caller must not read as a decision").isEqualTo(Decision.Kind.CLOSED);
        assertThat(rt.monitor.step(s, refund, true, true, w).refused()).isFalse();
        assertThatThrownBy(() -> rt.step(s, refund, true, true, w))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("session s1 was closed");
        assertThatThrownBy(() -> rt.stepExcusing(s, refund, true, new int[] {0}, true, w))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("session s1 was closed");
    }
}
