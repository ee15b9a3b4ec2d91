package dev.tracegate.matchers.predicate;

import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The values a text names are remembered on its event ({@link Event#textValues()},
 * {@link Event#resultValues()}): the remembered hashes are those the pre-rewrite scan finds
 * ({@link ReferenceIdentifiers}), and a session fed events whose memo is already filled (a retried
 * step, a second library, a replay) ends in the same state, with the same truth values at every
 * step, as one fed fresh copies of the same events.
 */
class ValueMemoPropertyTest {
    private static final String[] ATOMS = {"flow(to)", "untrusted(send, to)", "untrusted_target", "side_effect",
        "mentions_erased", "count(send) <= 3"};
    private static final List<String> PIECES = List.of("A-1234", "order 99812", "jane.roe@example.com", "www.evil.com",
            "https://x.io/a", "\"quoted value\"", "“curly one”", "+1 415 555 0100", "DE89 3704 0044 0532 0130 00",
            "hello", "the", "refund", "{\"id\":\"C-7781\",\"to\":\"bob@corp.org\"}", "SKU-1000", "5000", "ab", " ", ",", ".");

    private static Policy policy() {
        return Policy.builder().sideEffecting("send", "to").erasureTool("forget", "who").setCapacity(64).build();
    }

    @Provide Arbitrary<String> texts() {
        return Arbitraries.oneOf(
                Arbitraries.of(PIECES).list().ofMaxSize(40).map(l -> String.join(" ", l)),
                Arbitraries.strings().withChars("aZ09@.:-\"' ()+/“”").ofMaxLength(120),
                Arbitraries.of(PIECES).list().ofMinSize(100).ofMaxSize(200).map(l -> String.join("", l)));
    }

    @Provide Arbitrary<List<Event>> traces() {
        Arbitrary<String> value = Arbitraries.oneOf(Arbitraries.of(PIECES), Arbitraries.strings().withChars("a0@.-").ofMaxLength(12));
        Arbitrary<Event> user = texts().map(t -> Event.user("s", 0, t));
        Arbitrary<Event> ret = Combinators.combine(texts(), Arbitraries.of(true, false))
                .as((t, err) -> Event.returned("s", 0, "lookup", t, err));
        Arbitrary<Event> send = value.map(v -> Event.builder(EventKind.CALL).session("s").tool("send")
                .args(java.util.Map.of("to", v, "body", "x")).build());
        Arbitrary<Event> forget = value.map(v -> Event.builder(EventKind.CALL).session("s").tool("forget")
                .args(java.util.Map.of("who", v)).build());
        Arbitrary<Event> said = texts().map(t -> Event.assistant("s", 0, t));
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(3, user), net.jqwik.api.Tuple.of(3, ret), net.jqwik.api.Tuple.of(3, send),
                net.jqwik.api.Tuple.of(1, forget), net.jqwik.api.Tuple.of(1, said)).list().ofMaxSize(25);
    }

    @Property(tries = 300)
    void rememberedValuesAreThoseTheReferenceScanFinds(@ForAll("texts") String text) {
        Event u = Event.user("s", 0, text);
        Event r = Event.returned("s", 0, "t", text, false);
        long[] expected = reference(text);
        assertThat(distinct(u.textValues())).containsExactlyElementsOf(distinct(expected));
        assertThat(distinct(r.resultValues())).containsExactlyElementsOf(distinct(expected));
        assertThat(u.textValues()).isSameAs(u.textValues()); // remembered, not recomputed
        assertThat(u.resultValues()).isEmpty();
        assertThat(r.textValues()).isEmpty();
    }

    @Property(tries = 200)
    void aSessionFedRememberedEventsEndsInTheSameStateAsOneFedFreshEvents(@ForAll("traces") List<Event> trace) {
        Session fresh = new Session(policy(), ATOMS);
        Session warm = new Session(policy(), ATOMS);
        for (Event e : trace) {
            e.textValues(); // the memo filled before the step, as a retried step or an earlier library leaves it
            e.resultValues();
            warm.at(e);     // a grounding that is not applied (a lost CAS)
            int[] a = fresh.step(copy(e));
            int[] b = warm.step(e);
            assertThat(b).as("truth values at %s", e).containsExactly(a);
        }
        assertThat(warm.snapshot().words).containsExactly(fresh.snapshot().words);
        assertThat(Arrays.asList(warm.snapshot().refs)).containsExactlyElementsOf(Arrays.asList(fresh.snapshot().refs));
    }

    /** The same event, built anew (its memo empty). */
    private static Event copy(Event e) {
        return Event.builder(e.kind()).session(e.session()).seq(e.seq()).tool(e.tool()).args(e.args()).result(e.result())
                .text(e.text()).error(e.error()).build();
    }

    /**
     * What the grounding recorded before the memo: the whole text's hash when short, then the pre-rewrite scan; then
     * {@link Identifiers#UNSCANNED} when the text holds a value more than fits (the scan with room for one more finds it)
     * or is longer than the scan reads.
     */
    private static long[] reference(String text) {
        long[] hs = new long[ReferenceIdentifiers.MAX_PER_TEXT + 2];
        int n = 0;
        if (text.length() <= ReferenceIdentifiers.MAX_QUOTED) hs[n++] = TextHash.of(text);
        n = ReferenceIdentifiers.scan(text, hs, n);
        if (n == hs.length || text.length() > ReferenceIdentifiers.MAX_SCAN) {
            n = Math.min(n, hs.length - 1);
            hs[n++] = Identifiers.UNSCANNED;
        }
        return Arrays.copyOf(hs, n);
    }

    private static List<Long> distinct(long[] hs) {
        List<Long> out = new ArrayList<>();
        for (long h : hs) if (h != TextHash.EMPTY && !out.contains(h)) out.add(h);
        return out;
    }
}
