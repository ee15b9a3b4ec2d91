package dev.tracegate.matchers.event;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every intercepted call makes two events (its CALL and its RETURN), so their size is part of what a passed call
 * allocates (bench/HISTORY.md, session 20): a tool event has no text, subject, purposes, categories, consent, tokens or
 * depth, and makes no room for them; an event that has them reads each back as given.
 */
class EventSizeTest {

    @Test
    void aToolEventIsAtMost72Bytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Args args = Args.ofJson("{\"q\":\"x\"}");
        int n = 20_000;
        Event[] kept = new Event[n];   // kept, so that no event is scalar-replaced away
        long id = Thread.currentThread().getId();
        for (int i = 0; i < n; i++) kept[i] = Event.toolEvent(EventKind.CALL, "s", i, 1_000, "search_kb", "tg-1", args, null, false);
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) kept[i] = Event.toolEvent(EventKind.CALL, "s", i, 1_000, "search_kb", "tg-1", args, null, false);
        long perEvent = (threads.getThreadAllocatedBytes(id) - before) / n;
        // 120 B before session 20 (the fields a tool event never has in the event itself), 88 B before session 22 (the
        // tool's folded and bare names in fields of their own), 80 B before session 23 (two longs for the categories
        // memo); 72 B with compressed oops
        assertThat(perEvent).as("bytes per tool event").isLessThanOrEqualTo(72);
        assertThat(kept[n - 1].seq()).isEqualTo(n - 1);
        assertThat(kept[n - 1].toolKey()).isSameAs(kept[n - 1].tool()).isEqualTo("search_kb");
    }

    /**
     * An event of a call whose id the agent generated keeps the id as its number (session 24: the id's String was 88 B of
     * a passed call) in the event's padding: the event stays at most 72 B, and its id reads back as {@code tg-N} at every
     * digit count, equal to the event given the id as text; a number beyond an int is spelled when the event is made.
     */
    @Test
    void aToolEventWithAGeneratedIdKeepsItsNumberInAtMost72Bytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Args args = Args.ofJson("{\"q\":\"x\"}");
        int n = 20_000;
        Event[] kept = new Event[n];
        long id = Thread.currentThread().getId();
        for (int i = 0; i < n; i++) kept[i] = Event.toolEvent(EventKind.CALL, "s", i, 1_000, "search_kb", 200_000L + i, args, null, false);
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) kept[i] = Event.toolEvent(EventKind.CALL, "s", i, 1_000, "search_kb", 200_000L + i, args, null, false);
        long perEvent = (threads.getThreadAllocatedBytes(id) - before) / n;
        assertThat(perEvent).as("bytes per tool event with a generated id, its id included").isLessThanOrEqualTo(72);
        assertThat(kept[n - 1].callNumber()).isEqualTo(200_000L + n - 1);
        assertThat(kept[n - 1].callId()).isEqualTo("tg-" + (200_000 + n - 1));
        for (long number : new long[] {1, 9, 10, 99, 100, 123_456_789, Integer.MAX_VALUE, Integer.MAX_VALUE + 1L, Long.MAX_VALUE}) {
            Event e = Event.toolEvent(EventKind.RETURN, "s", 2, 0, "t", number, null, "ok", false);
            assertThat(e.callId()).isEqualTo("tg-" + number).isEqualTo(Event.generatedId(number));
            assertThat(e.callNumber()).as("kept as a number up to an int's range").isEqualTo(number <= Integer.MAX_VALUE ? number : 0);
            assertThat(Event.generatedNumber(e.callId())).isEqualTo(number);
            Event asText = Event.toolEvent(EventKind.RETURN, "s", 2, 0, "t", "tg-" + number, null, "ok", false);
            assertThat(e).isEqualTo(asText);
            assertThat(asText).isEqualTo(e);
            assertThat(e.hashCode()).isEqualTo(asText.hashCode());
        }
        assertThat(Event.toolEvent(EventKind.RETURN, "s", 2, 0, "t", 5, null, "ok", false))
                .isNotEqualTo(Event.toolEvent(EventKind.RETURN, "s", 2, 0, "t", 6, null, "ok", false))
                .isNotEqualTo(Event.toolEvent(EventKind.RETURN, "s", 2, 0, "t", "call_5", null, "ok", false));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Event.toolEvent(EventKind.CALL, "s", 1, 0, "t", 0, null, null, false))
                .isInstanceOf(IllegalArgumentException.class);
    }

    /** Only an id spelled as the agent spells a generated one stands for its number: not another prefix, a sign, a leading zero or an overflow. */
    @Test
    void aGeneratedIdsNumberIsReadOnlyFromItsOwnSpelling() {
        for (String id : new String[] {null, "", "tg-", "tg-0", "tg-01", "tg--1", "tg-+1", "tg-1a", "Tg-1", "tg_1", "call_1", "tg-\u0661",
                "tg-9223372036854775808", "tg-99999999999999999999"}) {
            assertThat(Event.generatedNumber(id)).as(String.valueOf(id)).isZero();
        }
        assertThat(Event.generatedNumber("tg-1")).isEqualTo(1);
        assertThat(Event.generatedNumber("tg-9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void aToolNameThatIsNotFoldedOrHasAnMcpPrefixReadsBackAsGivenFoldedAndBare() {
        for (int round = 0; round < 2; round++) {   // the second round reads the names the first one kept
            Event camel = Event.toolEvent(EventKind.CALL, "s", 1, 0, " searchKB ", "c1", Args.ofJson("{}"), null, false);
            assertThat(camel.tool()).isEqualTo(" searchKB ");
            assertThat(camel.toolKey()).isEqualTo("searchkb");
            assertThat(camel.toolBare()).isEqualTo("searchkb");
            Event mcp = Event.builder(EventKind.RETURN).session("s").seq(2).tool("mcp__Shop__Refund").result("ok").build();
            assertThat(mcp.tool()).isEqualTo("mcp__Shop__Refund");
            assertThat(mcp.toolKey()).isEqualTo("mcp__shop__refund");
            assertThat(mcp.toolBare()).isEqualTo("refund");
            Event folded = Event.toolEvent(EventKind.CALL, "s", 3, 0, "mcp__shop__refund", "c3", Args.ofJson("{}"), null, false);
            assertThat(folded.toolKey()).isSameAs(folded.tool());
            assertThat(folded.toolBare()).isEqualTo("refund");
        }
        Event none = Event.builder(EventKind.USER).session("s").seq(4).text("hi").build();
        assertThat(none.tool()).isNull();
        assertThat(none.toolKey()).isNull();
        assertThat(none.toolBare()).isNull();
        assertThat(Event.toolEvent(EventKind.CALL, "s", 1, 0, "searchKB", "c1", Args.ofJson("{}"), null, false))
                .isEqualTo(Event.builder(EventKind.CALL).session("s").seq(1).tool("searchKB").callId("c1").args(Args.ofJson("{}")).build())
                .isNotEqualTo(Event.toolEvent(EventKind.CALL, "s", 1, 0, "searchkb", "c1", Args.ofJson("{}"), null, false));
    }

    @Test
    void theCategoriesMemoReadsBackAsGivenForEveryBuiltInCategory() {
        dev.tracegate.matchers.pii.DataCategory[] all = dev.tracegate.matchers.pii.DataCategory.values();
        assertThat(all.length).as("built-in categories the one-int memo keeps").isLessThanOrEqualTo(CategoryMemo.WIDTH);
        long every = 0;
        for (dev.tracegate.matchers.pii.DataCategory c : all) every |= c.bit();
        Event e = Event.toolEvent(EventKind.RETURN, "s", 1, 0, "t", "c", null, "ok", true);
        assertThat(e.knownTextCategoryMask()).isEqualTo(-1);
        e.rememberTextCategoriesFound(every);
        assertThat(e.textCategoriesFound()).isEqualTo(every);
        assertThat(e.knownTextCategoryMask()).as("found is not known").isEqualTo(-1);
        e.rememberTextCategoryMask(every & ~1L);
        assertThat(e.knownTextCategoryMask()).isEqualTo(every & ~1L);
        e.rememberTextCategoryMask(0);
        assertThat(e.knownTextCategoryMask()).as("a mask remembered before stays").isEqualTo(every & ~1L);
        assertThat(e.textCategoriesFound()).isEqualTo(every);
        assertThat(e.error()).isTrue();
        Event f = Event.toolEvent(EventKind.RETURN, "s", 1, 0, "t", "c", null, "mail ann@example.org", false);
        long email = dev.tracegate.matchers.pii.DataCategory.EMAIL.bit();
        assertThat(f.textCategoryMask(new dev.tracegate.matchers.pii.SpanSink.Mask()) & email).isEqualTo(email);
        assertThat(f.knownTextCategoryMask() & email).isEqualTo(email);
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> f.rememberTextCategoriesFound(1L << 40))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("DataCategory.bit()");
    }

    @Test
    void anEventsRareFieldsReadBackAsGiven() {
        Event e = Event.builder(EventKind.CONSENT).session("s").seq(3).text("hello ann@example.org").subject(" ann ")
                .purposes("Billing", "billing", "support").categories("EMAIL").granted(false).tokens(12).depth(2).build();
        assertThat(e.text()).isEqualTo("hello ann@example.org");
        assertThat(e.subject()).isEqualTo("ann");
        assertThat(e.purposeCount()).isEqualTo(2);
        assertThat(e.purpose(1)).isEqualTo("support");
        assertThat(e.purposes()).containsExactly("billing", "support");
        assertThat(e.categoryCount()).isEqualTo(1);
        assertThat(e.category(0)).isEqualTo("email");
        assertThat(e.granted()).isFalse();
        assertThat(e.tokens()).isEqualTo(12);
        assertThat(e.depth()).isEqualTo(2);
        assertThat(e.textValues()).isNotEmpty().isSameAs(e.textValues());
        for (Event other : List.of(Event.builder(EventKind.CONSENT).session("s").seq(3).text("hello ann@example.org").subject("ann")
                .purposes("billing", "support").categories("email").granted(true).tokens(12).depth(2).build(),
                Event.builder(EventKind.CONSENT).session("s").seq(3).text("hello ann@example.org").subject("ann")
                .purposes("billing", "support").categories("email").granted(false).tokens(12).depth(1).build())) {
            assertThat(other).isNotEqualTo(e);
        }
        Event plain = Event.builder(EventKind.USER).session("s").seq(4).build();
        assertThat(plain.text()).isNull();
        assertThat(plain.granted()).isTrue();
        assertThat(plain.tokens()).isEqualTo(-1);
        assertThat(plain.textValues()).isEmpty();
        assertThat(plain.purposes()).isEmpty();
    }
}
