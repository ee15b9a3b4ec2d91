package dev.tracegate.matchers.predicate;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.pii.CategorySpan;
import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.pii.DataCategoryExtractor;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RedactionTest {
    private final Policy policy = Policy.builder()
            .purpose("billing", "email", "iban")
            .toolPurposes("send_invoice", "billing")
            .fieldCategory("send_invoice", "notes", "health")
            .build();
    private final Grounding g = Grounding.compile(java.util.List.of(Session.atom("excess_data")), policy);

    @Test void namesTheFieldsAndSpansThePurposeDoesNotNeed() {
        Event e = Event.builder(EventKind.CALL).tool("send_invoice")
                .args("{\"to\":\"ann@example.com\",\"phone\":\"+44 20 7946 0958\",\"customer\":{\"dob\":\"1990-01-01\",\"iban\":\"DE89370400440532013000\"},"
                        + "\"cc\":[\"bob@example.com\",\"call +1 202 555 0175\"],\"notes\":\"recovering\",\"amount\":120}")
                .text("Ann's number is +44 20 7946 0958, mail ann@example.com")
                .build();
        Redaction r = g.redaction(e);
        assertThat(r.excessCategories()).containsExactlyInAnyOrder("phone", "date_of_birth", "health");
        assertThat(r.argumentPaths()).containsExactly("phone", "customer.dob", "cc.1", "notes");
        assertThat(r.textSpans()).extracting(sp -> sp.in(e.text())).containsExactly("+44 20 7946 0958");
        assertThat(r.resultSpans()).isEmpty();
        assertThat(r.isEmpty()).isFalse();
        assertThat(r.maskText(e.text())).isEqualTo("Ann's number is [redacted: phone], mail ann@example.com");
    }

    @Test void nothingToRedactWithoutPurposeOrExcess() {
        Event noPurpose = Event.call("s", 1, "other", "{\"phone\":\"+44 20 7946 0958\"}");
        assertThat(g.redaction(noPurpose).isEmpty()).isTrue();
        Event needed = Event.call("s", 1, "send_invoice", "{\"to\":\"ann@example.com\"}");
        assertThat(g.redaction(needed).isEmpty()).isTrue();
    }

    /**
     * trial9 redact-answer-other-category: the extractor gives an e-mail's span before a card's that comes earlier in
     * the text; masking them in the order given skipped the card (and a redacted answer that still held the card was
     * replaced whole by the notice).
     */
    @Test void masksTheSpansWhateverOrderTheyComeIn() {
        String text = "The card on file is 4111 1111 1111 1111, we write to ada@example.com.";
        List<CategorySpan> spans = DataCategoryExtractor.INSTANCE.spans(text);
        assertThat(spans).extracting(CategorySpan::category).contains(DataCategory.EMAIL, DataCategory.PAYMENT_CARD);
        assertThat(Redaction.mask(text, spans)).isEqualTo("The card on file is [redacted: payment_card], we write to [redacted: email].");
        List<CategorySpan> cards = spans.stream().filter(s -> s.category() == DataCategory.PAYMENT_CARD).toList();
        assertThat(Redaction.mask(text, cards)).isEqualTo("The card on file is [redacted: payment_card], we write to ada@example.com.");
        assertThat(Redaction.mask(text, List.of())).isSameAs(text);
        assertThatThrownBy(() -> Redaction.mask("short", List.of(new CategorySpan(2, 9, DataCategory.EMAIL))))
                .hasMessageContaining("reaches past the end of a text of 5 chars");
    }

    /**
     * Masking agrees with a reference that works char by char: every char a span covers is gone, each maximal run of
     * covered chars becomes one {@code [redacted: c]} named by the span that starts it (the longest, then the first
     * given), every other char stays in place; spans in random order, overlapping, nested and touching.
     */
    @Property(tries = 1000)
    void maskingAgreesWithACharByCharReference(@ForAll long seed) {
        Random rnd = new Random(seed);
        StringBuilder t = new StringBuilder();
        int len = rnd.nextInt(40);
        for (int i = 0; i < len; i++) t.append((char) ('a' + rnd.nextInt(26)));
        String text = t.toString();
        List<CategorySpan> spans = new ArrayList<>();
        DataCategory[] cats = DataCategory.values();
        for (int k = rnd.nextInt(6); k > 0 && len > 0; k--) {
            int s = rnd.nextInt(len);
            int e = s + 1 + rnd.nextInt(Math.min(8, len - s));
            spans.add(new CategorySpan(s, e, cats[rnd.nextInt(cats.length)]));
        }
        assertThat(Redaction.mask(text, spans)).as("%s over %s", spans, text).isEqualTo(referenceMask(text, spans));
    }

    private static String referenceMask(String text, List<CategorySpan> spans) {
        boolean[] covered = new boolean[text.length()];
        for (CategorySpan s : spans) for (int i = s.start(); i < s.end(); i++) covered[i] = true;
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < text.length(); ) {
            if (!covered[i]) {
                out.append(text.charAt(i++));
                continue;
            }
            CategorySpan best = null;
            for (CategorySpan s : spans) if (s.start() == i && (best == null || s.end() > best.end())) best = s;
            out.append("[redacted: ").append(best.category().key()).append(']');
            while (i < text.length() && covered[i]) i++;
        }
        return out.toString();
    }

    @Test void removedPathsNameTheNestedFieldsAndListElementsThatWent() throws Exception {
        ObjectMapper m = new ObjectMapper();
        JsonNode before = m.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\",\"city\":\"Leeds\"},"
                + "\"notes\":[\"card 4111 1111 1111 1111\",\"hello\"],\"tag\":\"vip\"}");
        JsonNode after = m.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"city\":\"Leeds\"},\"notes\":[\"hello\"]}");
        assertThat(Redaction.removedPaths(before, after)).containsExactly("profile.card", "notes.0", "tag");
        assertThat(Redaction.removedPaths(before, before)).isEmpty();
        JsonNode masked = m.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\",\"city\":\"Leeds\"},"
                + "\"notes\":[\"card [redacted: payment_card]\",\"hello\"],\"tag\":\"vip\"}");
        assertThat(Redaction.removedPaths(before, masked)).as("a changed value is named: the original is gone").containsExactly("notes.0");
    }

    /**
     * On random trees whose leaves are all different and whose containers never lose all their children, the paths
     * named are exactly the topmost nodes removed (array elements by their index before); on any removal, taking the
     * named paths out of the tree gives the tree after.
     */
    @Property(tries = 1000)
    void removedPathsAreTheRemovalsMade(@ForAll long seed) {
        Random rnd = new Random(seed);
        int[] leaf = {0};
        JsonNode before = tree(rnd, 0, leaf);
        List<String> made = new ArrayList<>();
        boolean keepOne = rnd.nextBoolean();
        JsonNode after = remove(rnd, before, "", made, keepOne);
        List<String> named = Redaction.removedPaths(before, after);
        assertThat(without(before, "", named)).as("%s minus %s", before, named).isEqualTo(after);
        if (keepOne) assertThat(named).as("%s -> %s", before, after).containsExactlyElementsOf(made);
    }

    private static JsonNode tree(Random rnd, int depth, int[] leaf) {
        int kind = depth >= 4 ? 0 : rnd.nextInt(3);
        if (kind == 0) return JsonNodeFactory.instance.textNode("v" + leaf[0]++);
        int n = 1 + rnd.nextInt(4);
        if (kind == 1) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (int i = 0; i < n; i++) o.set("k" + i, tree(rnd, depth + 1, leaf));
            return o;
        }
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < n; i++) a.add(tree(rnd, depth + 1, leaf));
        return a;
    }

    /** A copy of {@code node} without random children (all but one at most when {@code keepOne}), the removed paths in {@code made}. */
    private static JsonNode remove(Random rnd, JsonNode node, String path, List<String> made, boolean keepOne) {
        if (!node.isContainerNode()) return node;
        int n = node.size();
        int kept = rnd.nextInt(n);   // with keepOne, this child stays
        if (node.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            int i = 0;
            for (Map.Entry<String, JsonNode> en : node.properties()) {
                String p = path.isEmpty() ? en.getKey() : path + "." + en.getKey();
                if ((!keepOne || i != kept) && rnd.nextInt(3) == 0) made.add(p);
                else o.set(en.getKey(), remove(rnd, en.getValue(), p, made, keepOne));
                i++;
            }
            return o;
        }
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < n; i++) {
            String p = path.isEmpty() ? Integer.toString(i) : path + "." + i;
            if ((!keepOne || i != kept) && rnd.nextInt(3) == 0) made.add(p);
            else a.add(remove(rnd, node.get(i), p, made, keepOne));
        }
        return a;
    }

    /** {@code node} without the nodes at {@code paths} (array indices as in {@code node}). */
    private static JsonNode without(JsonNode node, String path, List<String> paths) {
        if (!node.isContainerNode()) return node;
        if (node.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> en : node.properties()) {
                String p = path.isEmpty() ? en.getKey() : path + "." + en.getKey();
                if (!paths.contains(p)) o.set(en.getKey(), without(en.getValue(), p, paths));
            }
            return o;
        }
        ArrayNode a = JsonNodeFactory.instance.arrayNode();
        for (int i = 0; i < node.size(); i++) {
            String p = path.isEmpty() ? Integer.toString(i) : path + "." + i;
            if (!paths.contains(p)) a.add(without(node.get(i), p, paths));
        }
        return a;
    }
}
