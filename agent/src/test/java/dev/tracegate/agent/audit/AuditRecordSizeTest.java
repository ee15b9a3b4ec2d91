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
        return AuditRecord.of(e, Decision.PASS, TABLE).time(e.ts()).latencyNs(700).atoms(TABLE, VALUATION).verdicts(TABLE, 0b0101);
    }

    /** 40 atoms and 16 contracts: 72 bits, more than one long holds. */
    private static final LibraryTable LARGE = large(40, 16);

    private static LibraryTable large(int atoms, int contracts) {
        String[] a = new String[atoms];
        String[] c = new String[contracts];
        for (int i = 0; i < atoms; i++) a[i] = "a" + i;
        for (int i = 0; i < contracts; i++) c[i] = "c" + i;
        return new LibraryTable(c, a, "d");
    }

    @Test
    void aRecordAgainstATableWhoseAtomsAndVerdictsDoNotFitOneLongKeepsTheVerdictsInAWordOfTheirOwn() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        Event e = Event.toolEvent(EventKind.CALL, "s", 1, 1_000, "search_kb", "tg-1", Args.ofJson("{\"q\":\"x\"}"), null, false);
        long atoms = 0x8000_0000_01L;   // a0 and a39
        long verdicts = -1L >>> 32;      // 16 contracts, each code 3 (bits past the codes: none)
        verdicts = AuditRecord.pack(verdicts, 15, AuditRecord.FAIL);
        int n = 20_000;
        AuditRecord[] kept = new AuditRecord[n];
        long id = Thread.currentThread().getId();
        for (int i = 0; i < n; i++) kept[i] = AuditRecord.of(e, Decision.PASS, LARGE).time(1_000).atoms(LARGE, new long[] {atoms}).verdicts(LARGE, verdicts);
        long before = threads.getThreadAllocatedBytes(id);
        for (int i = 0; i < n; i++) kept[i] = AuditRecord.of(e, Decision.PASS, LARGE).time(1_000).atoms(LARGE, new long[] {atoms}).verdicts(LARGE, verdicts);
        long perRecord = (threads.getThreadAllocatedBytes(id) - before) / n - 24;   // less the valuation's long[1]
        assertThat(perRecord).as("bytes per record against a large table (as every record was before session 24)").isLessThanOrEqualTo(48);
        AuditRecord r = kept[n - 1];
        assertThat(r.rare).as("no object for the rare fields").isNull();
        assertThat(r.heldAtoms()).containsExactly("a0", "a39");
        assertThat(r.verdictCode(15)).isEqualTo(AuditRecord.FAIL);
        assertThat(r.verdictCode(14)).isEqualTo((byte) 3);
        assertThat(r.verdictWord()).isEqualTo(verdicts);
        assertThat(r.atomWord()).isEqualTo(atoms);
        // made without the table (the two-argument of): the verdicts go to the rare fields, and read back the same
        AuditRecord plain = AuditRecord.of(e, Decision.PASS).atoms(LARGE, new long[] {atoms}).verdicts(LARGE, verdicts);
        assertThat(plain.verdictWord()).isEqualTo(verdicts);
        assertThat(plain.heldAtoms()).containsExactly("a0", "a39");
        assertThat(large(31, 16).oneWord).as("31 atoms and 16 contracts: 63 bits").isTrue();
        assertThat(large(32, 16).oneWord).as("32 + 32 bits").isTrue();
        assertThat(large(33, 16).oneWord).isFalse();
        assertThat(large(62, 0).oneWord).as("no contract: no verdicts to share the word").isFalse();
    }

    /**
     * The line of a record whose atoms and verdicts share one long is byte for byte that of a record that keeps them in two
     * words (a {@link AuditRecord.Wide}, as every record did before session 24), whatever the atoms' and verdicts' bits and
     * in whichever order they are given, also when they are given again or against another table.
     */
    @Test
    void aRecordWhoseAtomsAndVerdictsShareOneLongWritesTheLineOfTwoWords() {
        LibraryTable[] tables = {TABLE, new LibraryTable(new String[] {"x"}, new String[0], "e"), large(32, 16), large(3, 30), LARGE};
        java.util.Random rnd = new java.util.Random(20261202);
        AuditLines shared = new AuditLines();
        AuditLines apart = new AuditLines();
        shared.header(1_000, null, null);
        apart.header(1_000, null, null);
        for (LibraryTable t : tables) {
            shared.library(t);
            apart.library(t);
        }
        Event e = Event.toolEvent(EventKind.RETURN, "s", 7, 1_000, "search_kb", "tg-9", null, "found 3", false);
        for (int i = 0; i < 4000; i++) {
            LibraryTable t = tables[rnd.nextInt(tables.length)];
            LibraryTable other = tables[rnd.nextInt(tables.length)];
            long atoms = rnd.nextInt(4) == 0 ? -1L : rnd.nextLong();
            long verdicts = t.contractCount > 32 ? 0 : rnd.nextInt(4) == 0 ? -1L : rnd.nextLong();
            int order = rnd.nextInt(5);
            AuditRecord a = AuditRecord.of(e, Decision.PASS, t);
            AuditRecord b = new AuditRecord.Wide(e, Decision.PASS);
            for (AuditRecord r : new AuditRecord[] {a, b}) {
                r.time(1_000).latencyNs(500);
                if (t.contractCount > 32) {
                    r.atoms(t, new long[] {atoms});
                    continue;
                }
                switch (order) {
                    case 0 -> r.atoms(t, new long[] {atoms}).verdicts(t, verdicts);
                    case 1 -> r.verdicts(t, verdicts).atoms(t, new long[] {atoms});
                    case 2 -> r.atoms(t, new long[] {~atoms}).verdicts(t, ~verdicts).atoms(t, new long[] {atoms}).verdicts(t, verdicts);
                    case 3 -> r.verdicts(t, verdicts);
                    default -> {
                        if (other.contractCount <= 32) r.verdicts(other, ~verdicts);
                        r.atoms(other, new long[] {~atoms}).verdicts(t, verdicts).atoms(t, new long[] {atoms});
                    }
                }
            }
            shared.event(a);
            apart.event(b);
            String line = new String(apart.buffer(), 0, apart.length(), java.nio.charset.StandardCharsets.UTF_8);
            assertThat(new String(shared.buffer(), 0, shared.length(), java.nio.charset.StandardCharsets.UTF_8))
                    .as("record %d, order %d, %d atoms and %d contracts", i, order, t.atomCount, t.contractCount).isEqualTo(line);
            assertThat(a.heldAtoms()).isEqualTo(b.heldAtoms());
            if (t.contractCount <= 32) {
                for (int c = 0; c < t.contractCount; c++) assertThat(a.verdictCode(c)).isEqualTo(b.verdictCode(c));
            }
        }
    }

    @Test
    void aPassedEventsRecordIsAtMost40Bytes() {
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
        // a reference for the decision), 48 B before session 24 (a word for the atoms and one for the verdicts, where the
        // bench's table fits one); 40 B with compressed oops, as the JVM runs by default
        assertThat(perRecord).as("bytes per passed event's record").isLessThanOrEqualTo(40);
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
