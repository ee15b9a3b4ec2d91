package dev.tracegate.agent.core;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.tracegate.matchers.event.Args;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * {@link JsonText} against Jackson (the oracle) on random values and texts: whatever it writes or reads
 * is exactly what Jackson writes or reads, and it covers the usual shapes of tool arguments.
 */
class JsonTextTest {
    private static final ObjectMapper JACKSON = new ObjectMapper();

    @Test
    void writesWhatJacksonWritesAndCoversPlainArguments() throws Exception {
        Random rnd = new Random(7);
        int covered = 0;
        for (int i = 0; i < 20_000; i++) {
            Object v = value(rnd, 0, i % 3 == 0);
            String fast = JsonText.write(v);
            if (fast != null) {
                assertThat(fast).as("value %s", v).isEqualTo(JACKSON.writeValueAsString(v));
                covered++;
            }
            if (i % 3 == 1) {
                assertThat(fast).as("a plain value must be covered: %s", v).isNotNull();
            }
        }
        assertThat(covered).isGreaterThan(10_000);
    }

    @Test
    void buildsFromValuesTheTreeThatReadingJacksonsTextGives() throws Exception {
        Random rnd = new Random(13);
        int covered = 0;
        for (int i = 0; i < 20_000; i++) {
            boolean exotic = i % 3 == 0;
            int n = rnd.nextInt(6);
            String[] names = new String[n];
            Object[] values = new Object[n];
            Map<String, Object> asMap = new LinkedHashMap<>();
            for (int p = 0; p < n; p++) {
                names[p] = "p" + p + text(rnd);
                values[p] = value(rnd, 1, exotic);
                asMap.put(names[p], values[p]);
            }
            ObjectNode fromValues = JsonText.tree(names, values);
            ObjectNode fromMap = JsonText.tree(asMap);
            Args args = JsonText.args(names, values);
            String text = JACKSON.writeValueAsString(asMap);
            if (fromValues != null) {
                assertSameTree(fromValues, JACKSON.readTree(text), text);
                assertSameTree(fromMap, JACKSON.readTree(text), text);
                assertSameArgs(args, Args.of(JACKSON.readTree(text)), names, text);
                covered++;
            } else {
                assertThat(fromMap).as("the map and the parameter list decline alike: %s", text).isNull();
                assertThat(args).as("the arguments decline as the tree does: %s", text).isNull();
            }
            if (!exotic) {
                assertThat(fromValues).as("plain values must be covered: %s", text).isNotNull();
            }
        }
        assertThat(covered).isGreaterThan(10_000);
    }

    @Test
    void buildsTheNumberNodesJsonTextWouldGive() throws Exception {
        Object[] values = {Integer.MIN_VALUE, (long) Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MIN_VALUE, Long.MAX_VALUE,
            (short) -7, (byte) 3, -0.0, 1e300, 5e-324, 20.0};
        String[] names = new String[values.length];
        Map<String, Object> asMap = new LinkedHashMap<>();
        for (int i = 0; i < values.length; i++) {
            names[i] = "n" + i;
            asMap.put(names[i], values[i]);
        }
        String text = JACKSON.writeValueAsString(asMap);
        assertSameTree(JsonText.tree(names, values), JACKSON.readTree(text), text);
        assertThat(JsonText.tree(new String[] {"f"}, new Object[] {1.5f})).as("floats are written by Jackson").isNull();
        assertThat(JsonText.tree(new String[] {"d"}, new Object[] {Double.POSITIVE_INFINITY})).isNull();
        Map<String, Object> cyclic = new LinkedHashMap<>();
        cyclic.put("self", cyclic);
        assertThat(JsonText.tree(new String[] {"c"}, new Object[] {cyclic})).as("nested too deep").isNull();
    }

    @Test
    void declinesWhatItDoesNotCover() {
        assertThat(JsonText.write(Double.NaN)).isNull();
        assertThat(JsonText.write(Map.of(1, "a"))).isNull();
        assertThat(JsonText.write(List.of(new BigDecimal("1.50")))).isNull();
        assertThat(JsonText.write(new StringBuilder("x"))).isNull();
        Map<String, Object> cyclic = new LinkedHashMap<>();
        cyclic.put("self", cyclic);
        assertThat(JsonText.write(cyclic)).isNull();
    }

    @Test
    void readsWhatJacksonReadsOnValidAndMutatedTexts() throws Exception {
        Random rnd = new Random(11);
        int read = 0, flatRead = 0;
        for (int i = 0; i < 30_000; i++) {
            String text = objectText(rnd, 0);
            if (i % 2 == 1) text = mutate(rnd, text);
            ObjectNode fast = JsonText.readObject(text);
            Args args = JsonText.readArgs(text);
            if (i % 2 == 0) {
                assertThat(fast).as("a valid object must be read: %s", text).isNotNull();
            }
            if (fast != null) {
                JsonNode jackson = JACKSON.readTree(text);
                assertSameTree(fast, jackson, text);
                List<String> names = new ArrayList<>();
                jackson.fieldNames().forEachRemaining(names::add);
                assertSameArgs(args, Args.of(jackson), names.toArray(new String[0]), text);
                if (flat(jackson)) flatRead++;
                read++;
            } else {
                assertThat(args).as("the arguments decline what the tree declines: %s", text).isNull();
            }
        }
        assertThat(read).isGreaterThan(15_000);
        assertThat(flatRead).as("objects of scalars only (read as flat fields)").isGreaterThan(1_000);
    }

    private static boolean flat(JsonNode object) {
        for (JsonNode v : object) if (v.isContainerNode()) return false;
        return true;
    }

    @Test
    void readsTheEdgesAsJacksonDoes() throws Exception {
        String[] texts = {
            "{}", " {\"a\" : 1 } \n", "{\"a\":1,\"a\":2,\"b\":3}", "{\"n\":-0,\"d\":-0.0,\"e\":1E+2,\"f\":2.50e-3}",
            "{\"i\":2147483647,\"j\":2147483648,\"k\":-2147483648,\"l\":-2147483649,\"m\":999999999999999999}",
            "{\"s\":\"\\u00e9\\uD83D\\uDE00\\ud800\\/\\\"\\\\\\b\\f\\n\\r\\t\"}", "{\"a\":[1,[],{},[null,true,false]]}",
            "{\"a\":\"\u2028 caf\u00e9 \uD83D\uDE00\"}",
        };
        for (String t : texts) {
            ObjectNode fast = JsonText.readObject(t);
            assertThat(fast).as(t).isNotNull();
            assertSameTree(fast, JACKSON.readTree(t), t);
            List<String> names = new ArrayList<>();
            fast.fieldNames().forEachRemaining(names::add);
            assertSameArgs(JsonText.readArgs(t), Args.of(JACKSON.readTree(t)), names.toArray(new String[0]), t);
        }
        String[] declined = {"", "[1]", "{\"a\":01}", "{\"a\":1} x", "{'a':1}", "{\"a\":NaN}", "{\"a\":1.}", "{\"a\":tru}",
            "{\"a\":\"\t\"}", "{\"a\":1,}", "{\"a\":12345678901234567890}", "{\"a\":\"\\x\"}", "{\"a\":1e999}", "{\"a\"", "{\"a\":truex}"};
        for (String t : declined) {
            assertThat(JsonText.readObject(t)).as(t).isNull();
            assertThat(JsonText.readArgs(t)).as(t).isNull();
        }
    }

    /** The arguments a grounder and the audit writer read: fields, leaves in order, lookups by name, text, tree. */
    private static void assertSameArgs(Args fast, Args jackson, String[] names, String text) {
        assertThat(fast).as("covered values give arguments: %s", text).isNotNull();
        assertThat(fast.size()).as(text).isEqualTo(jackson.size());
        assertThat(fast.leafCount()).as(text).isEqualTo(jackson.leafCount());
        for (int i = 0; i < fast.leafCount(); i++) {
            assertThat(fast.leafName(i)).as(text).isEqualTo(jackson.leafName(i));
            assertSameTree(fast.leafValue(i), jackson.leafValue(i), text);
        }
        for (String name : names) {
            JsonNode a = fast.get(Args.Path.field(name));
            JsonNode b = jackson.get(Args.Path.field(name));
            if (a == null || b == null) assertThat(a).as("%s in %s", name, text).isEqualTo(b);
            else assertSameTree(a, b, text);
        }
        assertThat(fast.json()).as(text).isEqualTo(jackson.json());
        assertSameTree(fast.root(), jackson.root(), text);
        assertThat(fast).as(text).isEqualTo(jackson);
    }

    /** Same structure, same node classes (IntNode vs LongNode, DoubleNode), same values and field order. */
    private static void assertSameTree(JsonNode fast, JsonNode jackson, String text) {
        assertThat(fast.getClass()).as("node class in %s", text).isEqualTo(jackson.getClass());
        assertThat(fast).as(text).isEqualTo(jackson);
        assertThat(fast.toString()).as(text).isEqualTo(jackson.toString());
        if (fast.isObject()) {
            Iterator<String> a = fast.fieldNames();
            Iterator<String> b = jackson.fieldNames();
            while (a.hasNext()) {
                String name = a.next();
                assertThat(b.next()).as(text).isEqualTo(name);
                assertSameTree(fast.get(name), jackson.get(name), text);
            }
        } else if (fast.isArray()) {
            for (int i = 0; i < fast.size(); i++) assertSameTree(fast.get(i), jackson.get(i), text);
        } else if (fast.isDouble()) {
            assertThat(Double.doubleToRawLongBits(fast.doubleValue())).as(text).isEqualTo(Double.doubleToRawLongBits(jackson.doubleValue()));
        }
    }

    private static Object value(Random rnd, int depth, boolean exotic) {
        int k = rnd.nextInt(depth > 3 ? 8 : 10) + (exotic ? 0 : 0);
        if (exotic && rnd.nextInt(6) == 0) {
            return switch (rnd.nextInt(6)) {
                case 0 -> Double.NaN;
                case 1 -> 1.5f;
                case 2 -> new BigDecimal("2.50");
                case 3 -> new TreeMap<>(Map.of(3, "x"));
                case 4 -> 'c';
                default -> new String[] {"a"};
            };
        }
        return switch (k) {
            case 0 -> null;
            case 1, 2 -> text(rnd);
            case 3 -> rnd.nextInt();
            case 4 -> rnd.nextLong();
            case 5 -> rnd.nextBoolean() ? (short) rnd.nextInt() : (byte) rnd.nextInt();
            case 6 -> rnd.nextDouble() * Math.pow(10, rnd.nextInt(40) - 20) * (rnd.nextBoolean() ? -1 : 1);
            case 7 -> rnd.nextBoolean();
            case 8 -> {
                Map<String, Object> m = new LinkedHashMap<>();
                for (int i = rnd.nextInt(5); i > 0; i--) m.put(text(rnd), value(rnd, depth + 1, exotic));
                yield m;
            }
            default -> {
                List<Object> l = new ArrayList<>();
                for (int i = rnd.nextInt(5); i > 0; i--) l.add(value(rnd, depth + 1, exotic));
                yield l;
            }
        };
    }

    private static String text(Random rnd) {
        int n = rnd.nextInt(10);
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            switch (rnd.nextInt(8)) {
                case 0 -> b.append((char) rnd.nextInt(0x20));
                case 1 -> b.append(new char[] {'"', '\\', '/', '\u2028', '\u007f'}[rnd.nextInt(5)]);
                case 2 -> b.append((char) (0x80 + rnd.nextInt(0xD000)));
                case 3 -> b.append(rnd.nextBoolean() ? "\uD83D\uDE00" : String.valueOf((char) (0xD800 + rnd.nextInt(0x800))));
                default -> b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.toString();
    }

    /** A random valid JSON object text, with random white space, escapes and number forms. */
    private static String objectText(Random rnd, int depth) throws Exception {
        StringBuilder b = new StringBuilder();
        b.append(ws(rnd)).append('{');
        int n = rnd.nextInt(depth > 2 ? 2 : 5);
        for (int i = 0; i < n; i++) {
            if (i > 0) b.append(',');
            b.append(ws(rnd)).append(rnd.nextInt(8) == 0 ? "\"dup\"" : JACKSON.writeValueAsString(text(rnd))).append(ws(rnd)).append(':').append(ws(rnd));
            b.append(valueText(rnd, depth + 1)).append(ws(rnd));
        }
        return b.append('}').append(ws(rnd)).toString();
    }

    private static String valueText(Random rnd, int depth) throws Exception {
        switch (rnd.nextInt(depth > 3 ? 7 : 9)) {
            case 0: return "null";
            case 1: return rnd.nextBoolean() ? "true" : "false";
            case 2: return escaped(rnd);
            case 3: return Long.toString(rnd.nextInt(5) == 0 ? (rnd.nextLong() % 1_000_000_000_000_000_000L) / (1L << rnd.nextInt(60)) : rnd.nextInt(2000) - 1000);
            case 4: return (rnd.nextBoolean() ? "-" : "") + rnd.nextInt(1000) + "." + rnd.nextInt(100000);
            case 5: return (rnd.nextBoolean() ? "-" : "") + (1 + rnd.nextInt(9)) + (rnd.nextBoolean() ? "." + rnd.nextInt(99) : "")
                    + (rnd.nextBoolean() ? "e" : "E") + new String[] {"", "+", "-"}[rnd.nextInt(3)] + rnd.nextInt(300);
            case 6: return JACKSON.writeValueAsString(text(rnd));
            case 7: return objectText(rnd, depth);
            default: {
                StringBuilder b = new StringBuilder("[");
                for (int i = rnd.nextInt(4); i > 0; i--) {
                    b.append(ws(rnd)).append(valueText(rnd, depth + 1)).append(ws(rnd));
                    if (i > 1) b.append(',');
                }
                return b.append(']').toString();
            }
        }
    }

    /** A string with the escapes a model may write (\\uXXXX in either case, \\/). */
    private static String escaped(Random rnd) {
        StringBuilder b = new StringBuilder("\"");
        for (int i = rnd.nextInt(8); i > 0; i--) {
            switch (rnd.nextInt(5)) {
                case 0 -> b.append(String.format(rnd.nextBoolean() ? "\\u%04x" : "\\u%04X", rnd.nextInt(0x10000)));
                case 1 -> b.append(new String[] {"\\/", "\\\"", "\\\\", "\\n", "\\t", "\\b", "\\f", "\\r"}[rnd.nextInt(8)]);
                default -> b.append((char) ('a' + rnd.nextInt(26)));
            }
        }
        return b.append('"').toString();
    }

    private static String ws(Random rnd) {
        return rnd.nextInt(4) == 0 ? new String[] {" ", "\n", "\t ", "\r\n"}[rnd.nextInt(4)] : "";
    }

    /** Deletes, duplicates or replaces one character: often invalid, sometimes still valid. */
    private static String mutate(Random rnd, String text) {
        if (text.isEmpty()) return "{";
        int at = rnd.nextInt(text.length());
        String alphabet = "{}[]\":,.-+eE0159tfnu\\ x\u0001";
        char c = alphabet.charAt(rnd.nextInt(alphabet.length()));
        return switch (rnd.nextInt(3)) {
            case 0 -> text.substring(0, at) + text.substring(at + 1);
            case 1 -> text.substring(0, at) + c + text.substring(at);
            default -> text.substring(0, at) + c + text.substring(at + 1);
        };
    }
}
