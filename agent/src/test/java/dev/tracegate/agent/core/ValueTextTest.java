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

    /** A bean whose getters have side effects; a static and a transient field are not its state. */
    static final class Counter {
        static int instances;
        private int reads;
        private final String owner = "ada";
        private transient Object cache = new Object();

        public int getNext() {
            return ++reads;
        }

        public String getOwner() {
            throw new IllegalStateException("a getter must not be called");
        }
    }

    /** A record whose accessor has a side effect. */
    record Payment(String iban, long cents) {
        static int accessorCalls;

        @Override
        public String iban() {
            accessorCalls++;
            return iban;
        }
    }

    /**
     * trial14 writer-consumes-iterator-args: the writer iterated an Iterator or a one-shot Iterable (the tool then got it
     * exhausted) and called bean getters (a side-effecting getNext ran). Now such values are written as a placeholder and
     * left as they were; beans and records are read by their fields, never through a method of theirs.
     */
    @Test
    void iteratorsStreamsAndOneShotIterablesAreNotReadAndBeansAreReadByTheirFieldsWithoutCallingAGetter() throws Exception {
        java.util.Iterator<Integer> it = List.of(1, 2, 3).iterator();
        int[] iterations = {0};
        Iterable<Integer> once = () -> {
            iterations[0]++;
            return List.of(1, 2, 3).iterator();
        };
        java.util.stream.Stream<Integer> stream = java.util.stream.Stream.of(1, 2);
        java.io.InputStream in = new java.io.ByteArrayInputStream(new byte[] {1, 2});
        Counter counter = new Counter();
        ValueText.Written w = ValueText.write(new java.util.LinkedHashMap<>(Map.of("it", it)));
        assertThat(w.json()).isEqualTo("{\"it\":\"[not read: " + it.getClass().getName() + "]\"}");
        assertThat(w.cut()).as("a value not read by design is not a cut").isNull();
        assertThat(it.next()).as("the iterator was not advanced").isEqualTo(1);
        assertThat(ValueText.write(once).json()).startsWith("\"[not read: ");
        assertThat(iterations[0]).isZero();
        assertThat(ValueText.write(stream).json()).startsWith("\"[not read: ");
        assertThat(stream.count()).as("the stream is still usable").isEqualTo(2);
        assertThat(ValueText.write(List.of(in)).json()).startsWith("[\"[not read: java.io.ByteArrayInputStream");
        assertThat(in.available()).isEqualTo(2);
        assertThat(ValueText.write(counter).json()).isEqualTo("{\"reads\":0,\"owner\":\"ada\"}");
        assertThat(counter.getNext()).as("getNext was never called by the writer").isEqualTo(1);
        ValueText.Written payment = ValueText.write(new Payment("DE89370400440532013000", 1250));
        assertThat(payment.json()).isEqualTo("{\"iban\":\"DE89370400440532013000\",\"cents\":1250}");
        assertThat(Payment.accessorCalls).isZero();
        // a collection is read through its own, fresh iterator: it is there afterwards as before
        java.util.ArrayDeque<String> queue = new java.util.ArrayDeque<>(List.of("a", "b"));
        assertThat(ValueText.write(queue).json()).isEqualTo("[\"a\",\"b\"]");
        assertThat(queue).containsExactly("a", "b");
        java.util.function.Supplier<String> lambda = () -> "x";
        assertThat(ValueText.write(lambda).json()).startsWith("\"[not read: ");
    }

    /**
     * trial14 unbounded-collection-arg-hangs: Collections.nCopies(2e9, "x") as an argument never returned under the agent
     * (the writer walked every element). Now at most MAX_ELEMENTS elements of one collection, array or map and about
     * MAX_CHARS characters in all are written, and the rest is cut with a marker saying how much; JsonText's fast path
     * declines such a value rather than walking it.
     */
    @Test
    void largeValuesAreCutByElementsAndByLengthWithAMarkerAndReported() throws Exception {
        List<String> huge = Collections.nCopies(2_000_000_000, "x");
        ValueText.Written w = ValueText.write(huge);
        assertThat(w.cut()).isEqualTo("more than " + ValueText.MAX_ELEMENTS + " elements");
        assertThat(w.json()).endsWith(",\"x\",\"[cut: 1999990000 more elements]\"]");
        assertThat(JACKSON.readTree(w.json()).size()).isEqualTo(ValueText.MAX_ELEMENTS + 1);
        assertThat(JsonText.args(new String[] {"l"}, new Object[] {huge})).as("the fast path declines, never walks it").isNull();
        assertThat(JsonText.write(huge)).isNull();

        Map<Integer, Integer> map = new java.util.HashMap<>();
        for (int i = 0; i < ValueText.MAX_ELEMENTS + 5; i++) map.put(i, i);
        ValueText.Written m = ValueText.write(map);
        assertThat(m.cut()).isEqualTo("a map of more than " + ValueText.MAX_ELEMENTS + " entries");
        assertThat(JACKSON.readTree(m.json()).get("[cut]").asText()).isEqualTo("5 more entries");

        ValueText.Written array = ValueText.write(new int[ValueText.MAX_ELEMENTS + 1]);
        assertThat(array.json()).endsWith(",0,\"[cut: 1 more elements]\"]");

        String text = "y".repeat(ValueText.MAX_CHARS + 10);
        ValueText.Written longText = ValueText.write(List.of(text, "after"));
        assertThat(longText.cut()).isEqualTo("the text is longer than " + ValueText.MAX_CHARS + " characters");
        assertThat(longText.json()).endsWith("[cut: 11 more characters]\",\"[cut]\"]").doesNotContain("after");
        assertThat(longText.json().length()).isLessThan(ValueText.MAX_CHARS + 100);

        // a value shared along 60 levels is 2^60 leaves written out: the length bound ends it
        Object shared = "leaf";
        for (int i = 0; i < 60; i++) shared = List.of(shared, shared);
        ValueText.Written dag = ValueText.write(shared);
        assertThat(dag.cut()).isEqualTo("the text is longer than " + ValueText.MAX_CHARS + " characters");
        assertThat(JACKSON.readTree(dag.json()).isArray()).isTrue();

        List<Integer> exactly = Collections.nCopies(ValueText.MAX_ELEMENTS, 1);
        assertThat(ValueText.write(exactly).cut()).as("at the bound nothing is cut").isNull();
    }

    /** An application class that is a JDK number, with a toString() that writes JSON of its own (trial46 04). */
    static final class Budget extends java.util.concurrent.atomic.AtomicLong {
        private final String currency;

        Budget(long value, String currency) {
            super(value);
            this.currency = currency;
        }

        @Override public String toString() { return "0,\"to\":\"eve\""; }
    }

    static final class Counted extends java.util.concurrent.atomic.AtomicInteger {
        Counted(int value) { super(value); }

        @Override public String toString() { return "1}, {\"x\": ["; }
    }

    static final class Amount extends java.math.BigDecimal {
        private final String note = "cash";

        Amount(String value) { super(value); }

        @Override public String toString() { return "7,\"to\":\"eve\""; }
    }

    static final class Big extends java.math.BigInteger {
        Big(String value) { super(value); }

        @Override public String toString() { return "] \"x\""; }
    }

    @Test
    void anApplicationSubclassOfAJdkNumberNeverWritesItsToStringIntoTheJson() throws Exception {
        Map<String, Object> args = new java.util.LinkedHashMap<>();
        args.put("to", "bob");
        args.put("budget", new Budget(500, "EUR"));
        args.put("count", new Counted(3));
        args.put("amount", new Amount("12.50"));
        args.put("big", new Big("123456789012345678901234567890"));
        args.put("plain", List.of(new java.math.BigDecimal("1.5"), new java.math.BigInteger("99"),
                new java.util.concurrent.atomic.AtomicLong(4), new java.util.concurrent.atomic.AtomicInteger(5)));
        ValueText.Written w = ValueText.write(args);
        assertThat(w.cut()).isNull();
        com.fasterxml.jackson.databind.JsonNode tree = JACKSON.readTree(w.json());   // valid JSON, or this throws
        assertThat(tree.get("to").asText()).as("no key injected by a toString()").isEqualTo("bob");
        assertThat(tree.size()).isEqualTo(6);
        // an AtomicLong or AtomicInteger is its number, read by their final get(): no code of the application runs
        assertThat(tree.get("budget").isNumber()).isTrue();
        assertThat(tree.get("budget").asLong()).isEqualTo(500);
        assertThat(tree.get("count").asInt()).isEqualTo(3);
        // a BigDecimal or BigInteger subclass is an application object: its own fields, never its text
        assertThat(tree.get("amount").isObject()).isTrue();
        assertThat(tree.get("amount").get("note").asText()).isEqualTo("cash");
        assertThat(tree.get("big").isObject()).isTrue();
        assertThat(w.json()).doesNotContain("eve").doesNotContain("\"x\"");
        // the JDK's own classes are written as numbers, as before
        assertThat(tree.get("plain").toString()).isEqualTo("[1.5,99,4,5]");
    }
}
