package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.pii.CategorySpan;
import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.pii.DataCategoryExtractor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The redact strategy on a call whose personal data sits inside an object or a list argument: the field or element that
 * carries the category goes, the rest of the argument stays (trial9 redact-nested-whole-argument).
 */
class RedactNestedArgumentsTest {
    @TempDir Path dir;
    private final ObjectMapper json = new ObjectMapper();
    private final Redaction redaction = new Redaction();

    private Library library(String yaml) throws Exception {
        Path lib = dir.resolve("lib.yaml");
        Files.writeString(lib, yaml);
        return Library.load(List.of(lib.toString()), dir);
    }

    private Library cards() throws Exception {
        return library("""
                library: prof
                contracts:
                  - id: prof.no-card
                    guarantee: G(call(updateProfile) -> !category(payment_card))
                    strategy: redact
                """);
    }

    private static Event call(String tool, String args) {
        return Event.builder(EventKind.CALL).session("s").tool(tool).args(args).build();
    }

    /** The trial's call: the card inside the profile goes, the profile's id and city stay, and the removed path is named. */
    @Test
    void aCardInsideAnObjectArgumentRemovesOnlyThatField() throws Exception {
        Library lib = cards();
        Event e = call("updateProfile", "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\",\"city\":\"Leeds\"}}");
        Redaction.Arguments r = redaction.redact(lib, e, Set.of("payment_card"), field -> null);
        assertThat(json.readTree(r.json())).isEqualTo(json.readTree("{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"city\":\"Leeds\"}}"));
        assertThat(r.removed()).containsExactly("profile.card");
        assertThat(r.cannot()).isNull();
        assertThat(redaction.redactArguments(lib, e, Set.of("payment_card"))).as("the top-level form drops the whole argument")
                .isEqualTo("{\"customer_id\":\"C1\"}");
    }

    /** A list element with the card goes (named by its index), the others stay; a text field inside a nested object likewise. */
    @Test
    void aCardInAListElementOrANestedTextRemovesOnlyThatElementOrField() throws Exception {
        Library lib = cards();
        Redaction.Arguments list = redaction.redact(lib, call("updateProfile",
                "{\"customer_id\":\"C1\",\"note\":[\"hello\",\"card 4111 1111 1111 1111\",\"bye\"]}"), Set.of("payment_card"), f -> null);
        assertThat(json.readTree(list.json())).isEqualTo(json.readTree("{\"customer_id\":\"C1\",\"note\":[\"hello\",\"bye\"]}"));
        assertThat(list.removed()).containsExactly("note.1");
        Redaction.Arguments nested = redaction.redact(lib, call("updateProfile",
                "{\"customer_id\":\"C1\",\"note\":{\"text\":\"card 4111 1111 1111 1111\",\"tag\":\"vip\"}}"), Set.of("payment_card"), f -> null);
        assertThat(json.readTree(nested.json())).isEqualTo(json.readTree("{\"customer_id\":\"C1\",\"note\":{\"tag\":\"vip\"}}"));
        assertThat(nested.removed()).containsExactly("note.text");
        assertThat(redaction.redact(lib, call("updateProfile", "{\"customer_id\":\"C1\",\"note\":{\"tag\":\"vip\"}}"), Set.of("payment_card"), f -> null))
                .isEqualTo(new Redaction.Arguments(null, List.of(), null));
    }

    /**
     * A field hint names the field, not what is inside: under {@code card} a number goes as a whole value; a policy field
     * map that names an object makes the object go whole, since what is left of it would still be that category.
     */
    @Test
    void aPolicyFieldMapOnAnObjectRemovesTheObjectWhole() throws Exception {
        Library lib = library("""
                library: mapped
                gdpr:
                  fields:
                    updateProfile: {profile: payment_card}
                contracts:
                  - id: mapped.no-card
                    guarantee: G(call(updateProfile) -> !category(payment_card))
                    strategy: redact
                """);
        Redaction.Arguments r = redaction.redact(lib, call("updateProfile",
                "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\"}}"), Set.of("payment_card"), f -> null);
        assertThat(json.readTree(r.json())).isEqualTo(json.readTree("{\"customer_id\":\"C1\"}"));
        assertThat(r.removed()).containsExactly("profile");
    }

    /** Where the call site cannot remove a part of an argument alone (a configured method's record parameter), it says so. */
    @Test
    void aRemovalInsideAnArgumentTheSiteCannotRewriteSaysWhy() throws Exception {
        Library lib = cards();
        Event e = call("updateProfile", "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\",\"city\":\"Leeds\"},"
                + "\"card\":\"5500 0000 0000 0004\"}");
        Redaction.Arguments r = redaction.redact(lib, e, Set.of("payment_card"),
                f -> f.equals("profile") ? "a r.App$Profile parameter of r.App$Crm.updateProfile" : null);
        assertThat(r.removed()).containsExactly("profile.card", "card");
        assertThat(r.cannot()).isEqualTo("profile.card lies inside the argument profile, a r.App$Profile parameter of r.App$Crm.updateProfile,"
                + " whose parts cannot be removed one by one");
        assertThat(redaction.redact(lib, call("updateProfile", "{\"customer_id\":\"C1\",\"card\":\"5500 0000 0000 0004\"}"), Set.of("payment_card"),
                f -> "a r.App$Profile parameter").cannot()).as("a whole argument goes as before: the call site's own check decides").isNull();
    }

    /** Without named categories the purposes decide: what the call's purposes need stays at any depth. */
    @Test
    void withoutNamedCategoriesThePurposesDecideAtEveryDepth() throws Exception {
        Library lib = library("""
                library: shop
                gdpr:
                  purposes:
                    support: [email]
                  tools:
                    updateProfile: [support]
                contracts:
                  - id: shop.min
                    guarantee: G(call -> !excess_data)
                    strategy: redact
                """);
        Redaction.Arguments r = redaction.redact(lib, call("updateProfile",
                "{\"profile\":{\"mail\":\"ann@example.com\",\"cards\":[\"4111 1111 1111 1111\",\"none\"]}}"), null, f -> null);
        assertThat(json.readTree(r.json())).isEqualTo(json.readTree("{\"profile\":{\"mail\":\"ann@example.com\",\"cards\":[\"none\"]}}"));
        assertThat(r.removed()).containsExactly("profile.cards.0");
    }

    /**
     * Against a reference that walks the JSON tree and removes every value the category detector or the field-name hint
     * flags (containers stay, emptied or not), on random nested arguments with neutral and hinted field names: the same
     * arguments and the same removed paths, for a contract naming cards, one naming e-mail, and one naming no category.
     */
    @Test
    void randomNestedArgumentsLoseExactlyTheValuesTheDetectorFlags() throws Exception {
        Library lib = cards();
        Random rnd = new Random(913);
        int removedSome = 0;
        for (int trial = 0; trial < 300; trial++) {
            ObjectNode args = JsonNodeFactory.instance.objectNode();
            for (int k = 1 + rnd.nextInt(4); k > 0; k--) args.set(KEYS[rnd.nextInt(KEYS.length)] + k, value(rnd, 0));
            if (rnd.nextInt(4) == 0) args.set(HINTED[rnd.nextInt(HINTED.length)], value(rnd, 2));
            Set<String> only = switch (trial % 3) {
                case 0 -> Set.of("payment_card");
                case 1 -> Set.of("email");
                default -> null;   // no purposes declared: every category found goes
            };
            Event e = Event.builder(EventKind.CALL).session("s").tool("updateProfile").args(args).build();
            Redaction.Arguments r = redaction.redact(lib, e, only, f -> null);
            List<String> expectedPaths = new ArrayList<>();
            JsonNode expected = reference(args, null, "", only, expectedPaths);
            assertThat(r.removed()).as("%s for %s", args, only).isEqualTo(expectedPaths);
            if (expectedPaths.isEmpty()) {
                assertThat(r.json()).isNull();
            } else {
                removedSome++;
                assertThat(json.readTree(r.json())).as("%s for %s", args, only).isEqualTo(expected);
            }
        }
        assertThat(removedSome).as("the trials exercise removals").isGreaterThan(100);
    }

    private static final String[] KEYS = {"a", "info", "items", "x", "tags"};
    private static final String[] HINTED = {"email", "card", "credit_card"};
    private static final String[] LEAVES = {"hello", "vip", "order 7", "4111 1111 1111 1111", "card 5500 0000 0000 0004 ok",
            "ann@example.com", "write to bob.smith@acme.org", "", "4012888888881881"};

    private static JsonNode value(Random rnd, int depth) {
        int kind = depth >= 3 ? 0 : rnd.nextInt(4);
        switch (kind) {
            case 1: {
                ObjectNode o = JsonNodeFactory.instance.objectNode();
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    String key = rnd.nextInt(5) == 0 ? HINTED[rnd.nextInt(HINTED.length)] : KEYS[rnd.nextInt(KEYS.length)] + i;
                    o.set(key, value(rnd, depth + 1));
                }
                return o;
            }
            case 2: {
                ArrayNode a = JsonNodeFactory.instance.arrayNode();
                for (int i = rnd.nextInt(4); i > 0; i--) a.add(value(rnd, depth + 1));
                return a;
            }
            case 3:
                return rnd.nextBoolean() ? JsonNodeFactory.instance.numberNode(rnd.nextInt(100)) : JsonNodeFactory.instance.numberNode(4111111111111111L);
            default:
                return JsonNodeFactory.instance.textNode(LEAVES[rnd.nextInt(LEAVES.length)]);
        }
    }

    /** {@code node} without the values flagged: by the detector on its text, or by the hint of the field it sits under. */
    private static JsonNode reference(JsonNode node, String field, String path, Set<String> only, List<String> removed) {
        if (node.isObject()) {
            ObjectNode o = JsonNodeFactory.instance.objectNode();
            for (Map.Entry<String, JsonNode> en : node.properties()) {
                String p = path.isEmpty() ? en.getKey() : path + "." + en.getKey();
                JsonNode kept = reference(en.getValue(), en.getKey(), p, only, removed);
                if (kept != null) o.set(en.getKey(), kept);
            }
            return o;
        }
        if (node.isArray()) {
            ArrayNode a = JsonNodeFactory.instance.arrayNode();
            for (int i = 0; i < node.size(); i++) {
                JsonNode kept = reference(node.get(i), field, path + "." + i, only, removed);
                if (kept != null) a.add(kept);
            }
            return a;
        }
        if (node.isNull() || (node.isTextual() && node.textValue().isBlank())) return node;
        List<String> categories = new ArrayList<>();
        DataCategory hint = DataCategoryExtractor.INSTANCE.fieldHint(field);
        if (hint != null) categories.add(hint.key());
        if (node.isTextual() || (hint == null && node.isIntegralNumber() && Math.abs(node.doubleValue()) >= 1_000_000)) {
            for (CategorySpan s : DataCategoryExtractor.INSTANCE.spans(node.asText())) categories.add(s.category().key());
        }
        boolean flagged = only == null ? !categories.isEmpty() : categories.stream().anyMatch(only::contains);
        if (!flagged) return node;
        removed.add(path);
        return null;
    }
}
