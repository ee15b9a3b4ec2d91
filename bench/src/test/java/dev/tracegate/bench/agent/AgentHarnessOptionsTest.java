package dev.tracegate.bench.agent;

import dev.tracegate.bench.Args;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The intercepted-call harnesses refuse an option value they cannot measure with, naming the option, before they make a
 * call (trial22 04: InterceptedCallLatency, like StepLatency, took --rate 0 to "/ by zero" and --seconds 0 to a histogram
 * of no calls; a non-number gave NumberFormatException "For input string", naming no option).
 */
class AgentHarnessOptionsTest {

    private static final Map<String, Args.Body> HARNESSES = Map.of(
            "InterceptedCallLatency", InterceptedCallLatency::cli, "InterceptedCallCpuTime", InterceptedCallCpuTime::cli,
            "ColdCallLatency", ColdCallLatency::cli, "CallFootprint", CallFootprint::cli, "WriterCpuAtRate", WriterCpuAtRate::cli);

    @ParameterizedTest(name = "{0} {1} {2}")
    @CsvSource({
        "InterceptedCallLatency, --rate, 0", "InterceptedCallLatency, --rate, -5", "InterceptedCallLatency, --seconds, 0",
        "InterceptedCallLatency, --seconds, -1", "InterceptedCallLatency, --warmup-calls, x",
        "InterceptedCallCpuTime, --calls, 0", "InterceptedCallCpuTime, --rounds, 0", "InterceptedCallCpuTime, --warmup-calls, -1",
        "ColdCallLatency, --samples, 0", "ColdCallLatency, --hot-calls, 0", "ColdCallLatency, --hot-timed, 0",
        "ColdCallLatency, --interval-us, -1", "ColdCallLatency, --warmup-calls, abc", "ColdCallLatency, --evict, 2Q",
        "CallFootprint, --samples, 0", "CallFootprint, --pause-ms, -1", "CallFootprint, --warmup-calls, -1",
        "WriterCpuAtRate, --rates, '10,-1'", "WriterCpuAtRate, --seconds, 0", "WriterCpuAtRate, --warmup-calls, -1",
    })
    void anOutOfRangeValueIsRefusedNamingTheOption(String harness, String option, String value) {
        assertThatThrownBy(() -> HARNESSES.get(harness).run(new String[] {option, value}))
                .isInstanceOf(Args.BadOption.class).hasMessageContaining(option);
    }
}
