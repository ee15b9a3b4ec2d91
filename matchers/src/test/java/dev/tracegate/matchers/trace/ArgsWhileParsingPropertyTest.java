package dev.tracegate.matchers.trace;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.pii.SpanSink;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Arguments the byte reader builds while parsing (straight from the fields when all are scalars, else
 * from its own tree) against {@link Args#of(JsonNode)} of Jackson's tree of the same text as the
 * oracle: equal in every reading (leaves, paths, size, field names, text, equality, categories).
 */
class ArgsWhileParsingPropertyTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** Keys for objects the byte reader must read itself: plain, some with a dot, some that look like indices. */
    private static final String[] PLAIN_KEYS = {"to", "body", "amount", "customer_id", "email", "phone", "iban", "a.b", "0", "x"};
    private static final String[] SCALAR_STRINGS = {"\"jane.roe@example.com\"", "\"+44 20 7946 0958\"", "\"DE89 3704 0044 0532 0130 00\"",
        "\"caf\\u00e9 \\\"q\\\" \\\\ \\/ \\n\"", "\"\\ud83d\\ude42 \u00df \u20ac \ud83d\ude42\"", "\"\\ud800\"", "\"\"", "\"   \"",
        "\"4111 1111 1111 1111\"", "\"$5,000\""};

    private static String line(String args) {
        return "{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"t\",\"args\":" + args + "}";
    }

    /** The arguments the byte reader reads from a line holding {@code args}, or null when it leaves the line to Jackson. */
    private static Args readByBytes(String args) {
        byte[] l = line(args).getBytes(StandardCharsets.UTF_8);
        Event e = new EventLine().read(l, 0, l.length, 1);
        return e == null ? null : e.args();
    }

    /** A scalar in any JSON form the byte reader accepts: strings with escapes and non-ASCII, numbers in every form, literals. */
    private static String scalar(Random r) {
        return switch (r.nextInt(7)) {
            case 0 -> SCALAR_STRINGS[r.nextInt(SCALAR_STRINGS.length)];
            case 1 -> validString(r);
            case 2 -> switch (r.nextInt(5)) {
                case 0 -> Long.toString(r.nextLong() / 10); // at most 18 digits: longer integers go to Jackson
                case 1 -> Integer.toString(r.nextInt());
                case 2 -> "-0";
                case 3 -> Long.toString(Integer.MAX_VALUE + 1L);
                default -> Integer.toString(r.nextInt(100));
            };
            case 3 -> EventLineOracleTest.decimal(r);
            case 4 -> r.nextBoolean() ? "true" : "false";
            case 5 -> "null";
            default -> Long.toString(1_000_000_000L + r.nextInt(1_000_000_000)); // card- and phone-sized numbers
        };
    }

    /** Escapes as written in JSON, then characters of one to four UTF-8 bytes (Java escapes here), and plain pieces. */
    private static final String[] PIECES = {"\\\"", "\\\\", "\\u00e9", "\\ud83d\\ude42", "\\ud800", "\\n", "\\t", "\\/", "\\u0000",
        "\u00e9", "\u00df", "\u20ac", "\ud83d\ude42", "\u2028", "\u007f", "@", " ", ".", "+44 20 7946 0958", "jane@example.com"};

    /** A string in JSON: letters, escapes of every kind and characters of one to four UTF-8 bytes (no raw control chars). */
    private static String validString(Random r) {
        StringBuilder b = new StringBuilder("\"");
        int n = r.nextInt(12);
        for (int i = 0; i < n; i++) {
            if (r.nextBoolean()) b.append((char) ('a' + r.nextInt(26)));
            else b.append(PIECES[r.nextInt(PIECES.length)]);
        }
        return b.append('"').toString();
    }

    /** An object of up to 20 distinct plain keys (or numbered ones) whose values are scalars, with random white space. */
    private static String scalarObject(Random r) {
        int n = r.nextInt(21);
        Set<String> keys = new LinkedHashSet<>();
        while (keys.size() < n) keys.add(r.nextInt(3) == 0 ? PLAIN_KEYS[r.nextInt(PLAIN_KEYS.length)] : "f" + r.nextInt(40));
        StringBuilder b = new StringBuilder("{");
        int i = 0;
        for (String k : keys) {
            b.append(i++ > 0 ? "," : "").append(EventLineOracleTest.ws(r)).append('"').append(k).append('"')
                    .append(EventLineOracleTest.ws(r)).append(':').append(EventLineOracleTest.ws(r)).append(scalar(r));
        }
        return b.append(EventLineOracleTest.ws(r)).append('}').toString();
    }

    /** Any object: scalar fields mixed with nested objects and arrays, random keys (escapes, unicode, duplicates). */
    private static String anyObject(Random r) {
        int n = r.nextInt(8);
        StringBuilder b = new StringBuilder("{");
        for (int i = 0; i < n; i++) {
            b.append(i > 0 ? "," : "").append(EventLineOracleTest.ws(r));
            b.append(r.nextInt(3) == 0 ? EventLineOracleTest.string(r) : "\"k" + r.nextInt(6) + "\"").append(':');
            b.append(r.nextInt(3) == 0 ? EventLineOracleTest.value(r, 0) : scalar(r));
        }
        return b.append('}').toString();
    }

    @Property(tries = 2000)
    void objectsOfScalarsAreReadByTheByteReaderAndEqualJacksons(@ForAll long seed) throws Exception {
        String args = scalarObject(new Random(seed));
        Args actual = readByBytes(args);
        assertThat(actual).as("the byte reader declined %s", args).isNotNull();
        sameArgs(actual, Args.of(JSON.readTree(args)), args);
    }

    @Property(tries = 3000)
    void anyObjectTheByteReaderReadsEqualsJacksons(@ForAll long seed) throws Exception {
        String args = anyObject(new Random(seed));
        Args actual = readByBytes(args);
        if (actual == null) return; // left to Jackson: EventLineOracleTest checks those lines read as Jackson reads them
        sameArgs(actual, Args.of(JSON.readTree(args)), args);
    }

    @Test void nullsNestedValuesAndDuplicateKeysReadAsJacksonDoes() throws Exception {
        for (String args : List.of("{}", "{\"a\":null}", "{\"a\":null,\"b\":1,\"c\":null}", "{\"a\":{\"b\":1},\"c\":2}",
                "{\"c\":2,\"a\":[1,{\"b\":\"x\"}]}", "{\"a.b\":1}", "{\"0\":\"zero\"}")) {
            Args actual = readByBytes(args);
            assertThat(actual).as(args).isNotNull();
            sameArgs(actual, Args.of(JSON.readTree(args)), args);
        }
        assertThat(readByBytes("{\"a\":1,\"a\":2}")).as("duplicate keys are Jackson's to decide").isNull();
        assertThat(readByBytes("{\"a\":null,\"b\":[],\"a\":2}")).isNull();
    }

    @Test void ofFieldsRefusesNestedValues() {
        JsonNode[] values = {JSON.createObjectNode()};
        assertThatThrownBy(() -> Args.ofFields(new String[] {"a"}, values, 1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Args.of(JsonNode)");
        JsonNode[] missing = {null};
        assertThatThrownBy(() -> Args.ofFields(new String[] {"a"}, missing, 1)).isInstanceOf(IllegalArgumentException.class);
    }

    /** Every reading of {@code actual} equals that of {@code expected}. */
    static void sameArgs(Args actual, Args expected, String text) {
        String as = "arguments " + text;
        assertThat(actual.malformed()).as(as).isEqualTo(expected.malformed());
        assertThat(actual.size()).as(as).isEqualTo(expected.size());
        assertThat(names(actual.fieldNames())).as(as).isEqualTo(names(expected.fieldNames()));
        assertThat(actual.leafCount()).as(as).isEqualTo(expected.leafCount());
        for (int i = 0; i < expected.leafCount(); i++) {
            assertThat(actual.leafName(i)).as(as).isEqualTo(expected.leafName(i));
            sameNode(actual.leafValue(i), expected.leafValue(i), as);
        }
        for (Args.Path p : paths(expected)) sameNode(actual.get(p), expected.get(p), as + " at " + p);
        assertThat(actual.categoryMask(new SpanSink.Mask())).as(as).isEqualTo(expected.categoryMask(new SpanSink.Mask()));
        assertThat(actual.json()).as(as).isEqualTo(expected.json());
        assertThat(actual.root()).as(as).isEqualTo(expected.root());
        assertThat(actual).as(as).isEqualTo(expected);
        assertThat(expected).as(as).isEqualTo(actual);
        assertThat(actual.hashCode()).as(as).isEqualTo(expected.hashCode());
    }

    private static void sameNode(JsonNode actual, JsonNode expected, String as) {
        assertThat(actual).as(as).isEqualTo(expected);
        if (expected == null) return;
        assertThat(actual.getNodeType()).as(as).isEqualTo(expected.getNodeType());
        assertThat(actual.numberType()).as(as).isEqualTo(expected.numberType());
    }

    private static List<String> names(Iterator<String> it) {
        List<String> out = new ArrayList<>();
        it.forEachRemaining(out::add);
        return out;
    }

    /** Each top-level field as a whole name, dotted paths into every field (indices too, nested or not), and absent names. */
    private static List<Args.Path> paths(Args a) {
        List<Args.Path> out = new ArrayList<>();
        out.add(Args.Path.field("absent"));
        out.add(Args.Path.of("absent.0"));
        for (Map.Entry<String, JsonNode> e : a.root().properties()) {
            String k = e.getKey();
            if (k.isEmpty()) continue;
            out.add(Args.Path.field(k));
            // dotted paths only where Path.of takes the text (a library could not write the others: blank keys, keys that
            // trim to nothing or leave an empty segment); Path.of's own rule decides, not a copy of it
            if (!k.contains(".")) {
                for (String text : new String[] {k, k + ".0", k + ".b", k + ".0.b"}) addPath(out, text);
            } else {
                addPath(out, k);
            }
        }
        return out;
    }

    private static void addPath(List<Args.Path> out, String text) {
        try {
            out.add(Args.Path.of(text));
        } catch (IllegalArgumentException notAPath) {
            // not a path a library can write: nothing to compare
        }
    }
}
