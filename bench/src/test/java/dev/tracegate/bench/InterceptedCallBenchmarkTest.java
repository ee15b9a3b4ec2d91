package dev.tracegate.bench;

import dev.tracegate.bench.agent.InterceptedCallBenchmark;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Without the agent, the host's tools run as written, and the benchmark refuses to pass an unattached JVM off as attached. */
class InterceptedCallBenchmarkTest {

    @Test
    void detachedCallsRunTheToolBodies() {
        InterceptedCallBenchmark.Host h = new InterceptedCallBenchmark.Host();
        h.agent = "detached";
        h.setUp();
        InterceptedCallBenchmark b = new InterceptedCallBenchmark();
        assertThat(b.passedCall(h)).isEqualTo("found 3 articles");
        assertThat(b.passedCallVaried(h)).isEqualTo("found 3 articles");
        assertThat(b.blockedCall(h)).isEqualTo("refunded");
        h.amount = 0;
        assertThat(b.blockedCall(h)).as("the measured call reads the state's arguments").isEqualTo("nothing to refund");
    }

    @Test
    void theVariedQueriesDifferAndPassTheSearchContracts() {
        String[] q = InterceptedCallBenchmark.queries();
        assertThat(java.util.Set.of(q)).as("4,096 distinct texts").hasSize(4096);
        java.util.regex.Pattern credential = java.util.regex.Pattern.compile("(?i)passw(or)?d|api[_ -]?key|secret");   // support-desk.yaml
        for (String s : q) {
            assertThat(credential.matcher(s).find()).as(s).isFalse();
            assertThat(s.length()).as("support.search-query-length").isLessThanOrEqualTo(1000);
        }
    }

    @Test
    void anAttachedMeasurementInAJvmWithoutTheAgentFailsItsSetup() {
        InterceptedCallBenchmark.Host h = new InterceptedCallBenchmark.Host();
        h.agent = "attached";
        assertThatThrownBy(h::setUp).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("launched with -Dbench.agent=detached but measures agent=attached");
        System.setProperty("bench.agent", "attached");
        try {
            assertThatThrownBy(h::setUp).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("the agent is not active in this JVM");
        } finally {
            System.clearProperty("bench.agent");
        }
    }
}
