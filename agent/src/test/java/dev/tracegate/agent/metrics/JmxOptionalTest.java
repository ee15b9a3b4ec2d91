package dev.tracegate.agent.metrics;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial40 03: on a jlink'd image without java.management the agent did not start (NoClassDefFoundError
 * javax/management/InstanceAlreadyExistsException, as the supervisor's metrics class was verified), even with
 * metrics.jmx: false. The classes every start loads must not name javax.management or java.lang.management: only
 * {@link Jmx} does, and it is loaded only where the module is present.
 */
class JmxOptionalTest {

    private static String constants(Class<?> c) throws Exception {
        try (InputStream in = c.getResourceAsStream(c.getSimpleName() + ".class")) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    @Test
    void theMetricsAndTheWarmUpNameNoManagementClass() throws Exception {
        for (Class<?> c : new Class<?>[] {SupervisorMetrics.class, SupervisorMetricsMXBean.class,
                Class.forName("dev.tracegate.agent.core.Warmup")}) {
            assertThat(constants(c)).as(c.getName()).doesNotContain("javax/management/").doesNotContain("java/lang/management/");
        }
        assertThat(constants(Jmx.class)).contains("javax/management/");
    }

    @Test
    void theModuleIsFoundWhereItIs() {
        assertThat(SupervisorMetrics.jmxAvailable()).isTrue();   // the test JVM has it (trial40 03 repro runs an image without it)
        assertThat(SupervisorMetrics.NO_JMX).contains("java.management").contains("jlink --add-modules").contains("metrics.jmx: false");
    }
}
