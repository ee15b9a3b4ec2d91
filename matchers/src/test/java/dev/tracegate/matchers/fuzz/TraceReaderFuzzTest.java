package dev.tracegate.matchers.fuzz;

import dev.tracegate.matchers.trace.TraceFormatException;
import dev.tracegate.matchers.trace.TraceReader;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

/**
 * The JSONL reader, fed mutated real traces and random text: strict mode yields events or throws
 * {@link TraceFormatException} (with {@code source:line}), lenient mode never throws for a line and
 * accounts for every non-blank line as an event or a skip. {@code -Plong} runs {@link #longRun}.
 */
class TraceReaderFuzzTest {
    static final String REAL = real();
    static final String[] PIECES = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u", "\\ud800", "null", "true", "-0", "1e999",
        "\"kind\":\"call\"", "\"seq\":", "\"depth\":99999999999999999999", "\"args\":", "\"result\":", "\n", "\r\n", "\uFEFF", "\u0000", "🙂", " "};
    private static final Bounded BOUNDED = new Bounded();

    private static String real() {
        try (InputStream in = TraceReaderFuzzTest.class.getResourceAsStream("/traces/refund.jsonl")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Provide Arbitrary<String> trace() {
        Arbitrary<String> mutated = Combinators.combine(Arbitraries.integers().between(1, 10), Arbitraries.longs())
                .as((n, seed) -> Mutation.mutate(REAL, n, new Random(seed), PIECES));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, mutated), net.jqwik.api.Tuple.of(2, Arbitraries.strings().ofMaxLength(200)),
                net.jqwik.api.Tuple.of(1, Arbitraries.of(PIECES).list().ofMaxSize(50).map(l -> String.join("", l))));
    }

    @Property(tries = 500) void strictThrowsOnlyTraceFormatException(@ForAll("trace") String text) throws Throwable { strict(text); }

    @Property(tries = 500) void lenientNeverThrowsForALine(@ForAll("trace") String text) throws Throwable { lenient(text); }

    /** Over bytes (the fast line reader with Jackson behind it) the same events and the same problems as over chars. */
    @Property(tries = 500) void bytesReadAsCharsDo(@ForAll("trace") String text) throws Throwable {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8); // a lone surrogate becomes '?': compare with what the bytes say
        String decoded = new String(bytes, StandardCharsets.UTF_8);
        for (TraceReader.Mode mode : TraceReader.Mode.values()) {
            assertThat(BOUNDED.run(text, () -> outcomes(new TraceReader(new java.io.ByteArrayInputStream(bytes), "f.jsonl", mode))))
                    .isEqualTo(outcomes(new TraceReader(new StringReader(decoded), "f.jsonl", mode)));
        }
    }

    private static java.util.List<Object> outcomes(TraceReader r) throws IOException {
        java.util.List<Object> out = new java.util.ArrayList<>();
        try (r) {
            while (true) {
                try {
                    Object e = r.next();
                    if (e == null) break;
                    out.add(e);
                } catch (TraceFormatException e) {
                    out.add(e.getMessage());
                    break;
                }
            }
            out.add(r.problems().stream().map(Throwable::getMessage).toList());
            out.add(java.util.List.of(r.lines(), r.events(), r.skipped()));
        }
        return out;
    }

    @Test void unmutatedTraceReadsInBothModes() throws Throwable {
        assertThat(strict(REAL)).isEqualTo(REAL.lines().filter(l -> !l.isBlank()).count());
        lenient(REAL);
    }

    @Test @Tag("long") void longRun() throws Throwable {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("tracegate.fuzz.minutes", 10));
        var it = trace().sampleStream().iterator();
        long inputs = 0;
        while (System.nanoTime() < end) {
            String t = it.next();
            strict(t);
            lenient(t);
            inputs++;
        }
        System.out.println("TraceReaderFuzzTest.longRun: " + inputs + " traces, 0 findings");
    }

    /** Reads strictly; returns the events read before the end or the first error. */
    static long strict(String text) throws Throwable {
        try {
            return BOUNDED.run(text, () -> {
                try (TraceReader r = new TraceReader(new StringReader(text), "f.jsonl", TraceReader.Mode.STRICT)) {
                    while (true) {
                        try {
                            if (r.next() == null) return r.events();
                        } catch (TraceFormatException e) {
                            assertThat(e.getMessage()).startsWith("f.jsonl:");
                            return r.events();
                        }
                    }
                }
            });
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            return fail("strict TraceReader threw " + t + " for:\n" + Bounded.abbreviate(text), t);
        }
    }

    static void lenient(String text) throws Throwable {
        try {
            BOUNDED.run(text, () -> {
                try (TraceReader r = new TraceReader(new StringReader(text), "f.jsonl", TraceReader.Mode.LENIENT)) {
                    while (r.next() != null) { /* every line is an event or a skip */ }
                    long nonBlank = text.replace("\r\n", "\n").split("\n", -1).length;
                    assertThat(r.events() + r.skipped()).isLessThanOrEqualTo(r.lines()).isLessThanOrEqualTo(nonBlank);
                    assertThat(r.problems()).hasSize((int) Math.min(r.skipped(), TraceReader.KEPT_PROBLEMS));
                    return null;
                }
            });
        } catch (AssertionError e) {
            throw e;
        } catch (Throwable t) {
            fail("lenient TraceReader threw " + t + " for:\n" + Bounded.abbreviate(text), t);
        }
    }
}
