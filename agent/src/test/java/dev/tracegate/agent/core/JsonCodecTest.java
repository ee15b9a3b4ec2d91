package dev.tracegate.agent.core;

import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneId;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent writes a configured method's parameters and results as JSON: everyday types must be written, never refused
 * (trial7 finding 15: a java.time or Optional parameter made every call an internal error, refused under fail: closed).
 */
class JsonCodecTest {
    private final JsonCodec json = new JsonCodec();

    @Test
    void everydayTypesAreWrittenAsTheirUsualJson() {
        Map<String, Object> args = new LinkedHashMap<>();
        args.put("due", LocalDate.of(2026, 11, 30));
        args.put("at", Instant.parse("2026-11-30T10:00:00Z"));
        args.put("within", Duration.ofMinutes(5));
        args.put("zone", ZoneId.of("Europe/Berlin"));
        args.put("note", Optional.of("call back"));
        args.put("none", Optional.empty());
        args.put("amount", new BigDecimal("12.50"));
        args.put("id", UUID.fromString("123e4567-e89b-12d3-a456-426614174000"));
        assertThat(json.write(args)).isEqualTo("{\"due\":\"2026-11-30\",\"at\":\"2026-11-30T10:00:00Z\",\"within\":\"PT5M\","
                + "\"zone\":\"Europe/Berlin\",\"note\":\"call back\",\"none\":null,\"amount\":12.50,"
                + "\"id\":\"123e4567-e89b-12d3-a456-426614174000\"}");
        assertThat(json.write(LocalDate.of(2026, 1, 2))).isEqualTo("\"2026-01-02\"");
    }

    /** A cycle is cut where it closes, with a marker; the other entries keep their structure, and the cut is reported. */
    @Test
    void aCycleIsCutWhereItClosesAndReported() {
        Map<String, Object> cyclic = new LinkedHashMap<>();
        cyclic.put("n", 3);
        cyclic.put("self", cyclic);
        ValueText.Written w = json.written(cyclic);
        assertThat(w.json()).isEqualTo("{\"n\":3,\"self\":\"[cut: cycle, a java.util.LinkedHashMap that contains itself]\"}");
        assertThat(w.cut()).isEqualTo("a cycle: a java.util.LinkedHashMap contains itself");
        Looping looping = new Looping();
        assertThat(json.write(Map.of("odd", looping))).isEqualTo("{\"odd\":{\"me\":\"[cut: cycle, a " + Looping.class.getName() + " that contains itself]\"}}");
    }

    /** A bean whose field holds itself. */
    static final class Looping {
        private final Looping me = this;
        public Looping getMe() { return me; }
    }
}
