package dev.tracegate.matchers.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A configured method's call makes one {@link Args} from its parameters ({@link Args#ofFields}), so its size is part of
 * what every intercepted call allocates (bench/README, session 21); whether the arguments were malformed reads back as
 * given all the same.
 */
class ArgsSizeTest {

    @Test
    void argumentsBuiltFromFieldsAreAtMost64Bytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        String[] names = {"query", "limit"};
        JsonNode[] values = {JsonNodeFactory.instance.textNode("refund policy"), JsonNodeFactory.instance.numberNode(5)};
        int n = 20_000;
        Args[] kept = new Args[n];   // kept, so that none is scalar-replaced away
        long id = Thread.currentThread().getId();
        for (int i = 0; i < n; i++) kept[i] = Args.ofFields(names, values, 2);
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) kept[i] = Args.ofFields(names, values, 2);
        long perArgs = (threads.getThreadAllocatedBytes(id) - before) / n;
        // 72 B before session 21 (a boolean of its own for malformed); 64 B with compressed oops
        assertThat(perArgs).as("bytes per Args of two fields").isLessThanOrEqualTo(64);
        assertThat(kept[n - 1].size()).isEqualTo(2);
    }

    @Test
    void malformedReadsBackAsGiven() {
        assertThat(Args.ofJson("not json at all").malformed()).isTrue();
        assertThat(Args.ofJson("\"a bare string\"").malformed()).isTrue();
        assertThat(Args.ofJson("{\"q\":\"x\"}").malformed()).isFalse();
        assertThat(Args.ofJson("{}").malformed()).isFalse();
        assertThat(Args.NONE.malformed()).isFalse();
        Args fields = Args.ofFields(new String[] {"q"}, new JsonNode[] {JsonNodeFactory.instance.nullNode()}, 1);
        assertThat(fields.malformed()).isFalse();
        assertThat(fields.size()).isEqualTo(1);
        assertThat(fields.leafCount()).as("a JSON null is no leaf").isZero();
    }
}
