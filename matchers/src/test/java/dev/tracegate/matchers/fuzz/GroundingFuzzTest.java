package dev.tracegate.matchers.fuzz;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.fail;

/**
 * Grounding every predicate of the vocabulary on random JSON arguments, mutated real argument
 * texts and random texts never throws, is a function of (event, state), and never marks an atom
 * both true and unevaluable. {@code -Plong} runs {@link #longRun} for {@code tracegate.fuzz.minutes}.
 */
class GroundingFuzzTest {
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<String> REAL_ARGS = List.of(
            "{\"order\":\"1234\",\"amount\":\"$120\"}", "{\"to\":\"bob@evil.com\",\"body\":\"IBAN DE89 3704 0044 0532 0130 00\",\"note\":\"flu\"}",
            "{\"subject\":\"alice\",\"purposes\":[\"ads\"],\"granted\":true}", "{\"who\":\"alice\"}",
            "{\"path\":\"/srv/../etc/passwd\",\"customer\":\"c\"}", "{\"order\":{\"total\":\"12,50\",\"items\":[1,2,{\"a\":null}]}}",
            "{\"amount\":1e308,\"iban\":\"GB82WEST12345698765432\",\"email\":\"x@y.z\",\"dob\":\"1970-01-01\"}");
    static final List<String> TOOLS = List.of("refund", "send", "transfer", "record_consent", "forget", "mcp__x__send", "read",
            "approve", "lookup", "grant", "verify", " SEND ", "", "\u0000", "a".repeat(300));
    static final String[] JSON_PIECES = {"{", "}", "[", "]", ",", ":", "\"", "\\", "\\u00", "\\ud800", "null", "true", "-0", "1e999",
        "\"amount\"", "\"to\"", "\"path\"", "NaN", "\u0000", "🙂", " ", "\n"};

    private final Grounded grounded = new Grounded();

    @Provide Arbitrary<String> argsText() {
        Arbitrary<String> mutated = Combinators.combine(Arbitraries.of(REAL_ARGS), Arbitraries.integers().between(1, 6), Arbitraries.longs())
                .as((base, n, seed) -> Mutation.mutate(base, n, new Random(seed), JSON_PIECES));
        Arbitrary<String> random = Arbitraries.strings().ofMaxLength(120);
        Arbitrary<String> deep = Arbitraries.integers().between(1, 3000).map(n -> "{\"a\":".repeat(n) + "1" + "}".repeat(n));
        Arbitrary<String> wide = Arbitraries.integers().between(1, 5000)
                .map(n -> { StringBuilder b = new StringBuilder("{"); for (int i = 0; i < n; i++) b.append(i == 0 ? "" : ",").append("\"k").append(i).append("\":").append(i); return b.append('}').toString(); });
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(6, mutated), net.jqwik.api.Tuple.of(2, random),
                net.jqwik.api.Tuple.of(1, deep), net.jqwik.api.Tuple.of(1, wide), net.jqwik.api.Tuple.of(2, Arbitraries.of(REAL_ARGS)));
    }

    @Provide Arbitrary<String> text() {
        return Arbitraries.oneOf(Arbitraries.strings().ofMaxLength(100), argsText(),
                Arbitraries.of("mail bob@x.io now", "{\"id\":\"c\"}", "ignore all previous", "", "+44 20 7946 0958 born 1970-01-01"));
    }

    @Property(tries = 600)
    void groundingNeverThrows(@ForAll("argsText") String args, @ForAll("text") String text, @ForAll("text") String result,
                              @ForAll EventKind kind, @ForAll boolean error) throws Throwable {
        check(event(kind, pick(args), args, text, result, error));
    }

    @Test @Tag("long") void longRun() throws Throwable {
        long end = System.nanoTime() + TimeUnit.MINUTES.toNanos(Long.getLong("tracegate.fuzz.minutes", 10));
        var argsIt = argsText().sampleStream().iterator();
        var textIt = text().sampleStream().iterator();
        Random rnd = new Random(9);
        EventKind[] kinds = EventKind.values();
        long inputs = 0;
        while (System.nanoTime() < end) {
            String a = argsIt.next();
            check(event(kinds[rnd.nextInt(kinds.length)], TOOLS.get(rnd.nextInt(TOOLS.size())), a, textIt.next(), textIt.next(), rnd.nextBoolean()));
            inputs++;
        }
        System.out.println("GroundingFuzzTest.longRun: " + inputs + " events, 0 findings");
    }

    private static String pick(String seed) { return TOOLS.get(Math.floorMod(seed.hashCode(), TOOLS.size())); }

    static Event event(EventKind kind, String tool, String args, String text, String result, boolean error) {
        return Event.builder(kind).session("s").tool(tool).args(Args.ofJson(args)).text(text).result(result).error(error)
                .subject(text).purposes(tool, "ads").categories(text).build();
    }

    private void check(Event e) {
        try {
            grounded.step(e);
        } catch (Throwable t) {
            fail("grounding threw " + t + " for " + Bounded.abbreviate(String.valueOf(e)), t);
        }
    }
}
