package dev.tracegate.matchers.predicate;

import dev.tracegate.engine.ltl.Atom;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.pii.DataCategory;
import dev.tracegate.matchers.pii.SpanSink;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The category atoms ({@code personal_data}, {@code category(c)}, {@code excess_data}) ask the frame
 * only whether the event carries a category of some set, and it detects no further than that needs
 * (scans stop at the first category asked for). Oracle: the whole category mask of the event as the
 * reporting path computes it ({@link Grounding#categoriesOf}: every text scanned in full, memoised on
 * the event), on a fresh copy of the event. Each event is asked a random sequence of sets, so scans
 * that stopped early are resumed in every order.
 */
class CategoryQueryPropertyTest {
    private static final List<String> PIECES = List.of("jane.roe@example.com", "+44 20 7946 0958", "call 415-555-0100",
            "DE89 3704 0044 0532 0130 00", "4111 1111 1111 1111", "123-45-6789", "born 12 March 1985", "10 Downing Street",
            "192.168.1.20", "fe80::1", "diabetes", "my salary", "technical debt", "A-20001", "C-10001", "refund", "hello",
            "the order", "Via Roma 12", "SW1A 1AA", "", " ", "5000", "2001:db8::7", "mortgage", "DOB: 1985-03-12");
    private static final String[] FIELDS = {"to", "body", "email", "phone", "customer_id", "iban", "note", "dob", "amount", "street"};
    private static final long ALL = (1L << DataCategory.values().length) - 1;

    private static Policy policy() {
        return Policy.builder().purpose("support", "email", "postal_address").purpose("billing", "iban", "payment_card", "email")
                .purpose("research", "my_custom").toolPurposes("send", "support").toolPurposes("pay", "billing")
                .fieldCategory("pay", "note", "health").fieldCategory("send", "ref", "my_custom").build();
    }

    @Provide Arbitrary<String> texts() {
        return Arbitraries.oneOf(Arbitraries.of(PIECES).list().ofMaxSize(8).map(l -> String.join(" ", l)),
                Arbitraries.of(PIECES), Arbitraries.strings().withChars("aZ09@.:- ").ofMaxLength(40));
    }

    @Provide Arbitrary<Event> events() {
        Arbitrary<Object> value = Arbitraries.oneOf(texts().map(t -> (Object) t), Arbitraries.of(5, 4111111111111111L, 4155550100L, 12.5, true));
        Arbitrary<Map<String, Object>> args = Combinators.combine(Arbitraries.of(FIELDS), value).as(Tuple::of).list().ofMaxSize(5)
                .map(l -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    for (Tuple.Tuple2<String, Object> t : l) m.put(t.get1(), t.get2());
                    return m;
                });
        Arbitrary<List<String>> declared = Arbitraries.of("email", "health", "my_custom", "unknown_kind").list().ofMaxSize(2);
        Arbitrary<List<String>> purposes = Arbitraries.of("support", "billing", "research", "other").list().ofMaxSize(2);
        Arbitrary<Event> call = Combinators.combine(Arbitraries.of("send", "pay", "search", "mcp__srv__pay"), args, texts(), declared, purposes)
                .as((tool, a, text, cats, ps) -> Event.builder(EventKind.CALL).session("s").tool(tool).args(a)
                        .text(text.isEmpty() ? null : text).categories(cats).purposes(ps).build());
        Arbitrary<Event> ret = Combinators.combine(Arbitraries.of("send", "pay", "search"), texts(), declared)
                .as((tool, t, cats) -> Event.builder(EventKind.RETURN).session("s").tool(tool).result(t).categories(cats).build());
        Arbitrary<Event> user = Combinators.combine(texts(), purposes).as((t, ps) -> Event.builder(EventKind.USER).session("s").text(t).purposes(ps).build());
        return Arbitraries.oneOf(call, call, ret, user);
    }

    @Provide Arbitrary<List<Long>> questions() {
        Arbitrary<Long> one = Arbitraries.oneOf(Arbitraries.just(~0L), Arbitraries.integers().between(0, 9).map(i -> 1L << i),
                Arbitraries.longs().map(l -> l & ALL), Arbitraries.longs().map(l -> ~(l & ALL)), Arbitraries.just(1L << 63),
                Arbitraries.just(1L << 10), Arbitraries.just(0L));
        return one.list().ofMinSize(1).ofMaxSize(6);
    }

    @Property(tries = 3000)
    void everyAnswerIsTheOneTheWholeMaskGives(@ForAll("events") Event e, @ForAll("questions") List<Long> qs) {
        Grounding g = Grounding.compile(List.<Atom>of(Session.atom("personal_data")), policy());
        long whole = wholeMask(g, copy(e));
        Frame f = new Frame(g);
        f.prepare(e, null);
        for (long q : qs) {
            assertThat(f.anyCategory(q)).as("%s asked %s (whole mask %s)", e, Long.toHexString(q), Long.toHexString(whole))
                    .isEqualTo((whole & q) != 0);
        }
        // what a scan in full left on the event is what its memos compute on a fresh copy
        Event fresh = copy(e);
        SpanSink.Mask scratch = new SpanSink.Mask();
        if (e.knownTextCategoryMask() >= 0) assertThat(e.knownTextCategoryMask()).isEqualTo(fresh.textCategoryMask(scratch));
        if (e.args().knownCategoryMask() >= 0) assertThat(e.args().knownCategoryMask()).isEqualTo(fresh.args().categoryMask(scratch));
        // what scans that stopped early left on it is present there
        assertThat(e.textCategoriesFound() & ~fresh.textCategoryMask(scratch)).isZero();
        assertThat(e.args().categoriesFound() & ~fresh.args().categoryMask(scratch)).isZero();
        // a second grounding of the same event (a retried step, another library) starts from those memos
        Frame again = new Frame(g);
        again.prepare(e, null);
        for (long q : qs) assertThat(again.anyCategory(q)).as("%s asked %s again", e, Long.toHexString(q)).isEqualTo((whole & q) != 0);
    }

    /** The atoms that read categories have the truth values the whole mask gives, in any order of atoms. */
    @Property(tries = 1000)
    void categoryAtomsAgreeWithTheWholeMask(@ForAll("events") Event e, @ForAll boolean excessFirst) {
        List<String> atoms = new ArrayList<>(List.of("personal_data", "category(email)", "category(health)", "category(my_custom)"));
        atoms.add(excessFirst ? 0 : atoms.size(), "excess_data");
        Session s = new Session(policy(), atoms.toArray(new String[0]));
        int[] got = s.at(e);
        Frame f = new Frame(s.g);
        f.prepare(copy(e), s.st);
        long whole = s.g.categoriesOf(f);
        long purposes = s.g.purposesOf(f);
        for (int i = 0; i < atoms.size(); i++) {
            boolean expected = switch (atoms.get(i)) {
                case "personal_data" -> whole != 0;
                case "category(email)" -> (whole & DataCategory.EMAIL.bit()) != 0;
                case "category(health)" -> (whole & DataCategory.HEALTH.bit()) != 0;
                case "category(my_custom)" -> (whole & ~ALL & ~(1L << 63)) != 0;
                default -> purposes != 0 && (whole & ~need(purposes)) != 0;
            };
            assertThat(got[i]).as("%s at %s (whole mask %s)", atoms.get(i), e, Long.toHexString(whole)).isEqualTo(expected ? Session.T : Session.F);
        }
    }

    /** The categories {@code support}, {@code billing} and {@code research} need, by purpose bits (declared in that order). */
    private static long need(long purposes) {
        long need = 0;
        if ((purposes & 1) != 0) need |= DataCategory.EMAIL.bit() | DataCategory.POSTAL_ADDRESS.bit();
        if ((purposes & 2) != 0) need |= DataCategory.IBAN.bit() | DataCategory.PAYMENT_CARD.bit() | DataCategory.EMAIL.bit();
        if ((purposes & 4) != 0) need |= 1L << DataCategory.values().length; // my_custom, the first library category
        return need;
    }

    private static long wholeMask(Grounding g, Event e) {
        Frame f = new Frame(g);
        f.prepare(e, null);
        return g.categoriesOf(f);
    }

    /** The same event, built anew (nothing remembered on it). */
    private static Event copy(Event e) {
        return Event.builder(e.kind()).session(e.session()).seq(e.seq()).tool(e.tool()).args(e.args().root().deepCopy())
                .result(e.result()).text(e.text()).categories(e.categories()).purposes(e.purposes()).build();
    }
}
