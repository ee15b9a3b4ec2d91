package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's writer for a configured method's arguments and results (trial14): it bounds depth and detects cycles
 * without relying on a StackOverflowError, and reports every cut; its text stays valid JSON (read back by Jackson).
 */
class ValueTextTest {
    private static final ObjectMapper JACKSON = new ObjectMapper();

    private static Object nested(int depth) {
        Object o = "the secret is 42";
        for (int i = 0; i < depth; i++) o = List.of(o);
        return o;
    }

    @Test
    void aValueDeeperThanTheBoundIsCutAtTheBoundWithoutOverflowingTheStack() throws Exception {
        ValueText.Written shallow = ValueText.write(nested(ValueText.MAX_DEPTH));
        assertThat(shallow.cut()).isNull();
        assertThat(shallow.json()).contains("the secret is 42");
        // far deeper than the stack would allow to recurse through
        ValueText.Written deep = ValueText.write(nested(200_000));
        assertThat(deep.cut()).isEqualTo("nested deeper than " + ValueText.MAX_DEPTH + " levels");
        assertThat(deep.json()).doesNotContain("secret").contains("[cut: deeper than 100 levels]");
        assertThat(JACKSON.readTree(deep.json()).isArray()).isTrue();
    }

    @Test
    void aValueThatContainsItselfIsCutWhereTheCycleClosesButASharedValueIsNoCycle() throws Exception {
        List<Object> self = new ArrayList<>();
        self.add("a");
        self.add(self);
        ValueText.Written w = ValueText.write(self);
        assertThat(w.json()).isEqualTo("[\"a\",\"[cut: cycle, a java.util.ArrayList that contains itself]\"]");
        assertThat(w.cut()).startsWith("a cycle");
        List<Object> shared = List.of("x");
        ValueText.Written twice = ValueText.write(List.of(shared, shared, Map.of("k", shared)));
        assertThat(twice.cut()).isNull();
        assertThat(twice.json()).isEqualTo("[[\"x\"],[\"x\"],{\"k\":[\"x\"]}]");
    }
}
