package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.matchers.event.Args;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Every intercepted call makes two records (its CALL's and its RETURN's), so their size is part of what a passed call
 * allocates and of the memory it touches (bench/HISTORY.md, session 19): the record of a passed event, as the supervisor
 * fills it (event, time, latency, atoms and verdicts against the library table), sets none of the rare fields and so
 * makes no object for them, and the fields it reads or clears never read back differently.
 */
class AuditRecordSizeTest {

    private static final LibraryTable TABLE = new LibraryTable(new String[] {"c1", "c2"}, new String[] {"a", "b", "c"}, "d");

    private static final long[] VALUATION = {5};   // atoms a and c held

    private static AuditRecord passed(Event e) {
        return AuditRecord.of(e, Decision.PASS).time(e.ts()).latencyNs(700).atoms(TABLE, VALUATION).verdicts(TABLE, 0b0101);
    }

    @Test
    void aPassedEventsRecordIsAtMost48Bytes() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Event e = Event.toolEvent(EventKind.CALL, "s", 1, 1_000, "search_kb", "tg-1", Args.ofJson("{\"q\":\"x\"}"), null, false);
        int n = 20_000;
        AuditRecord[] kept = new AuditRecord[n];   // kept, so that no record is scalar-replaced away
        long id = Thread.currentThread().getId();
        for (int i = 0; i < n; i++) kept[i] = passed(e);   // warm up (and load every class on the way)
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) kept[i] = passed(e);
        long perRecord = (threads.getThreadAllocatedBytes(id) - before) / n;
        // 136 B before session 19 (the rare fields in the record itself), 96 B before session 20 (its copy of the event's session,
        // seq, kind and ts, and the table's arrays), 64 B before session 22 (a time equal to the event's ts, a long latency and
        // a reference for the decision); 48 B with compressed oops, as the JVM runs by default
        assertThat(perRecord).as("bytes per passed event's record").isLessThanOrEqualTo(48);
        assertThat(kept[n - 1].rare).as("no object for the rare fields").isNull();
        assertThat(kept[n - 1].heldAtoms()).containsExactly("a", "c");
        assertThat(kept[n - 1].verdictCode(1)).isEqualTo(AuditRecord.ACTIVE);
        assertThat(kept[n - 1].timeMillis()).isEqualTo(1_000);
        assertThat(kept[n - 1].latencyNs()).isEqualTo(700);
        assertThat(kept[n - 1].decision()).isEqualTo(Decision.PASS);
    }

    @Test
    void aTimeOtherThanTheEventsTsAndALatencyBeyondAnIntReadBackAsSet() {
        Event e = Event.toolEvent(EventKind.CALL, "s", 1, 1_000, "refund", "tg-3", Args.ofJson("{}"), null, false);
        AuditRecord r = AuditRecord.of(e, Decision.ESCALATE).time(1_000).latencyNs(5_000_000_000L);   // an approval's 5 s wait
        assertThat(r.timeMillis()).isEqualTo(1_000);
        assertThat(r.latencyNs()).isEqualTo(5_000_000_000L);
        r.time(2_500).latencyNs(Integer.MAX_VALUE - 1L);
        assertThat(r.timeMillis()).as("a decision later than its event").isEqualTo(2_500);
        assertThat(r.latencyNs()).isEqualTo(Integer.MAX_VALUE - 1L);
        r.time(1_000).latencyNs(-5);
        assertThat(r.timeMillis()).isEqualTo(1_000);
        assertThat(r.latencyNs()).as("a negative latency is absent").isEqualTo(-1);
        assertThat(AuditRecord.of(e, Decision.PASS).timeMillis()).as("no time: stamped on append").isZero();
        assertThat(AuditRecord.of("s", 2, "END", Decision.END).time(3_000).timeMillis()).isEqualTo(3_000);
        assertThat(AuditRecord.of(e, Decision.SHADOW_WOULD_BLOCK).decision()).isEqualTo(Decision.SHADOW_WOULD_BLOCK);
    }

    @Test
    void theRareFieldsReadBackAsSetAndAPassedRecordsClearingsLeaveThem() {
        Event e = Event.toolEvent(EventKind.CALL, "s", 1, 1_000, "refund", "tg-2", Args.ofJson("{}"), null, false);
        AuditRecord r = AuditRecord.of(e, Decision.ESCALATE).fired("c1").message("why").approved(true).unmet("o");
        assertThat(r.rareOrNone().fired).containsExactly("c1");
        assertThat(r.rareOrNone().message).isEqualTo("why");
        assertThat(r.refusedCall(false)).as("an approved escalation ran").isFalse();
        r.atoms("x", "y");
        assertThat(r.heldAtoms()).containsExactly("x", "y");
        r.atoms(TABLE, new long[] {2});   // the compact form replaces the spelled-out keys
        assertThat(r.heldAtoms()).containsExactly("b");
        r.verdicts(new String[] {"c1", "c2"}, new byte[] {AuditRecord.FAIL, AuditRecord.IDLE});
        assertThat(r.verdictCode(0)).isEqualTo(AuditRecord.FAIL);
        r.verdicts(TABLE, 0b0110);
        assertThat(r.verdictCode(0)).isEqualTo(AuditRecord.FAIL);
        assertThat(r.verdictCode(1)).isEqualTo(AuditRecord.ACTIVE);
        assertThat(AuditRecord.of(e, Decision.PASS).fired((String[]) null).message(null).approved(false).rare)
                .as("clearing an absent field makes nothing").isNull();
        assertThat(AuditRecord.Rare.NONE.fired).isNull();
    }
}
