package dev.tracegate.matchers.event;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ArgsTest {
    @Test void readsDottedPathsAndArrayIndices() {
        Args a = Args.ofJson("{\"customer\":{\"emails\":[\"a@x.io\",\"b@x.io\"],\"age\":41},\"n\":null}");
        assertThat(a.get(Args.Path.of("customer.emails.1")).textValue()).isEqualTo("b@x.io");
        assertThat(a.get(Args.Path.of("customer.age")).intValue()).isEqualTo(41);
        assertThat(a.get(Args.Path.of("customer.missing"))).isNull();
        assertThat(a.get(Args.Path.of("n"))).isNull();
        assertThat(a.get(Args.Path.of("customer.emails.9"))).isNull();
        assertThat(a.malformed()).isFalse();
    }

    @Test void malformedJsonIsKeptRaw() {
        Args a = Args.ofJson("{\"to\": \"x\"");
        assertThat(a.malformed()).isTrue();
        assertThat(a.get(Args.Path.of("_raw")).textValue()).isEqualTo("{\"to\": \"x\"");
        assertThat(a.get(Args.Path.of("to"))).isNull();
        assertThat(Args.ofJson("[1,2]").malformed()).isTrue();
        assertThat(Args.ofJson("  ")).isSameAs(Args.NONE);
    }

    /**
     * SECURITY.md, "Not defended": JSON text with a key twice is read as its last value, as Jackson reads it, and written
     * back (the audit record, a redaction) with that value only; a host parser that keeps the first would act on a value
     * no contract saw (trial30 doc request). Pins the documented behaviour.
     */
    @Test void aDuplicateKeyReadsAsItsLastValue() {
        Args a = Args.ofJson("{\"to\":\"ok@x.io\",\"amount\":10,\"to\":\"evil@x.io\"}");
        assertThat(a.malformed()).isFalse();
        assertThat(a.get(Args.Path.of("to")).textValue()).isEqualTo("evil@x.io");
        assertThat(a.json()).isEqualTo("{\"to\":\"evil@x.io\",\"amount\":10}");
    }

    @Test void javaMapsConvertLikeJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("amount", 12.5);
        m.put("tags", List.of("a", 2, true));
        m.put("nested", Map.of("k", new int[] {1, 2}));
        m.put("other", new StringBuilder("sb"));
        Args a = Args.of(m);
        assertThat(a.json()).isEqualTo("{\"amount\":12.5,\"tags\":[\"a\",2,true],\"nested\":{\"k\":[1,2]},\"other\":\"sb\"}");
        assertThat(a).isEqualTo(Args.ofJson(a.json()));
    }

    @Test void cyclicMapIsRejectedWithAClearMessage() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("self", m);
        assertThatThrownBy(() -> Args.of(m)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("cyclic");
    }

    @Test void leavesAreIndexedWithTheirFieldNames() {
        Args a = Args.ofJson("{\"to\":\"a@x.io\",\"cc\":[\"b@x.io\"],\"meta\":{\"dob\":\"2001-01-01\"},\"n\":null}");
        assertThat(a.leafCount()).isEqualTo(3);
        assertThat(a.leafName(0)).isEqualTo("to");
        assertThat(a.leafName(1)).isEqualTo("cc");
        assertThat(a.leafName(2)).isEqualTo("dob");
        assertThat(a.leafValue(2).textValue()).isEqualTo("2001-01-01");
    }

    @Test void pathsRejectEmptySegments() {
        assertThatThrownBy(() -> Args.Path.of("a..b")).hasMessageContaining("empty segment");
        assertThatThrownBy(() -> Args.Path.of(" ")).hasMessageContaining("empty");
    }
}
