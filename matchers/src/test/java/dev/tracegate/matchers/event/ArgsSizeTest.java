package dev.tracegate.matchers.event;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * A configured method's call makes one {@link Args} from its parameters ({@link Args#ofFields}), so its size is part of
 * what every intercepted call allocates (bench/HISTORY.md, session 21); whether the arguments were malformed reads back as
 * given all the same.
 */
class ArgsSizeTest {

    @Test
    void argumentsBuiltFromFieldsAreAtMost48Bytes() {
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
        // 72 B before session 21 (a boolean of its own for malformed), 64 B before session 23 (two longs for the
        // categories memo, two ints for the field and leaf counts); 48 B with compressed oops
        assertThat(perArgs).as("bytes per Args of two fields").isLessThanOrEqualTo(48);
        assertThat(kept[n - 1].size()).isEqualTo(2);
        assertThat(kept[n - 1].leafCount()).isEqualTo(2);
    }

    @Test
    void theCountsAndTheCategoriesMemoReadBackAsGiven() {
        int n = Args.MAX_LEAVES;
        String[] names = new String[n];
        JsonNode[] values = new JsonNode[n];
        for (int i = 0; i < n; i++) {
            names[i] = "f" + i;
            values[i] = i % 2 == 0 ? JsonNodeFactory.instance.numberNode(i) : JsonNodeFactory.instance.nullNode();
        }
        Args wide = Args.ofFields(names, values, n);
        assertThat(wide.size()).isEqualTo(n);
        assertThat(wide.leafCount()).isEqualTo(n / 2);
        assertThat(wide.malformed()).isFalse();
        Args raw = Args.ofJson("[1, 2, 3]");
        assertThat(raw.malformed()).isTrue();
        assertThat(raw.size()).isEqualTo(1);
        assertThat(raw.leafCount()).as("the raw text").isEqualTo(1);

        long email = dev.tracegate.matchers.pii.DataCategory.EMAIL.bit();
        long last = dev.tracegate.matchers.pii.DataCategory.FINANCIAL.bit();
        Args a = Args.ofJson("{\"to\":\"x\"}");
        assertThat(a.knownCategoryMask()).isEqualTo(-1);
        assertThat(a.categoriesFound()).isZero();
        a.rememberCategoriesFound(last);
        assertThat(a.knownCategoryMask()).as("found is not known").isEqualTo(-1);
        a.rememberCategoryMask(0);
        assertThat(a.knownCategoryMask()).as("a scan that found nothing is known").isZero();
        assertThat(a.categoriesFound()).isEqualTo(last);
        a.rememberCategoryMask(email);
        assertThat(a.knownCategoryMask()).as("a mask remembered before stays").isZero();
        Args b = Args.ofJson("{\"to\":\"x\"}");
        b.rememberCategoryMask(email | last);
        b.rememberCategoriesFound(email);
        assertThat(b.knownCategoryMask()).isEqualTo(email | last);
        assertThat(b.categoriesFound()).isEqualTo(email);
        assertThat(b.malformed()).isFalse();
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
