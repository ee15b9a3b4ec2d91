package dev.tracegate.matchers.event;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The scalar leaves {@link Args} indexes (read by field hints, category detection, erased-subject
 * and provenance checks) are, on arbitrary trees, those of a plain recursive walk: every non-null
 * scalar in document order under the name of its field (an array element under its array's
 * field, a top-level scalar of a non-object under {@code _raw}), at most {@link Args#MAX_LEAVES}.
 */
class ArgsLeavesPropertyTest {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    @Provide Arbitrary<JsonNode> trees() {
        Arbitrary<JsonNode> scalar = Arbitraries.oneOf(
                Arbitraries.strings().ofMaxLength(6).map(s -> (JsonNode) NODES.textNode(s)),
                Arbitraries.integers().map(i -> (JsonNode) NODES.numberNode(i)),
                Arbitraries.of(true, false).map(b -> (JsonNode) NODES.booleanNode(b)),
                Arbitraries.just((JsonNode) NODES.nullNode()));
        Arbitrary<String> keys = Arbitraries.strings().alpha().ofMaxLength(3);
        return Arbitraries.recursive(() -> scalar, inner -> Arbitraries.oneOf(
                Arbitraries.maps(keys, inner).ofMaxSize(6).map(m -> {
                    ObjectNode o = NODES.objectNode();
                    m.forEach(o::set);
                    return (JsonNode) o;
                }),
                inner.list().ofMaxSize(6).map(l -> {
                    ArrayNode a = NODES.arrayNode();
                    l.forEach(a::add);
                    return (JsonNode) a;
                })), 0, 4);
    }

    @Property(tries = 500)
    void leavesAreThoseOfARecursiveWalk(@ForAll("trees") JsonNode tree) {
        Args a = Args.of(tree);
        List<String> expected = new ArrayList<>();
        walk(a.root(), null, expected);
        List<String> actual = new ArrayList<>();
        for (int i = 0; i < a.leafCount(); i++) actual.add(a.leafName(i) + "=" + a.leafValue(i));
        assertThat(actual).containsExactlyElementsOf(expected.subList(0, Math.min(expected.size(), Args.MAX_LEAVES)));
    }

    @Test
    void aWideAndDeepTreeKeepsTheFirstLeavesInDocumentOrder() {
        ObjectNode root = NODES.objectNode();
        JsonNode deep = NODES.textNode("bottom");
        for (int i = 0; i < 200; i++) deep = NODES.arrayNode().add(deep); // nesting deeper than any stack frame preset
        root.set("deep", deep);
        ArrayNode wide = root.putArray("wide");
        for (int i = 0; i < 400; i++) wide.add(NODES.objectNode().put("v", i));
        Args a = Args.of(root);
        assertThat(a.leafCount()).isEqualTo(Args.MAX_LEAVES);
        assertThat(a.leafName(0)).isEqualTo("deep");
        assertThat(a.leafValue(0).textValue()).isEqualTo("bottom");
        assertThat(a.leafName(1)).isEqualTo("v");
        assertThat(a.leafValue(Args.MAX_LEAVES - 1).intValue()).isEqualTo(Args.MAX_LEAVES - 2);
    }

    /** The oracle: plain recursion, document order. */
    private static void walk(JsonNode n, String name, List<String> out) {
        if (n.isObject()) {
            for (Map.Entry<String, JsonNode> e : n.properties()) walk(e.getValue(), e.getKey(), out);
        } else if (n.isArray()) {
            for (JsonNode x : n) walk(x, name, out);
        } else if (!n.isNull() && !n.isMissingNode()) {
            out.add((name == null ? "" : name) + "=" + n);
        }
    }
}
