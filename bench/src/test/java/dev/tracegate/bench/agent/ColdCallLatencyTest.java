package dev.tracegate.bench.agent;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The cold-call harness's smoke run (detached, a few samples): what its JSON holds, and its refusals of bad options. */
class ColdCallLatencyTest {

    @Test
    void aShortDetachedRunReportsColdAndHotCallsOfEverySampleAndTheBufferItEvicted(@TempDir Path dir) throws Exception {
        Path out = dir.resolve("cold.json");
        ColdCallLatency.cli(new String[] {"--samples", "20", "--warmup-calls", "100", "--evict", "256K", "--hot-calls", "4",
                "--hot-timed", "2", "--interval-us", "10", "--out", out.toString()});
        JsonNode d = new ObjectMapper().readTree(Files.readString(out));
        assertThat(d.get("harness").asText()).isEqualTo("ColdCallLatency");
        assertThat(d.get("samples").asInt()).isEqualTo(20);
        assertThat(d.get("evictedBytes").asLong()).isEqualTo(256 * 1024);
        assertThat(d.get("coldNs").get("count").asLong()).isEqualTo(20);
        assertThat(d.get("hotNs").get("count").asLong()).as("the last 2 of each sample's 4 hot calls").isEqualTo(40);
        assertThat(d.get("coldNs").get("p50").asLong()).isPositive();
    }

    @Test
    void anUnknownOptionIsRefusedWithTheKnownOnes() {
        assertThatThrownBy(() -> ColdCallLatency.cli(new String[] {"--sampels", "5"}))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--samples").hasMessageContaining("--evict");
    }
}
