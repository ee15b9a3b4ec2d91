package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.config.PersonalData;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.trace.TraceReader;
import dev.tracegate.matchers.trace.TraceWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditTraceTest {
    @TempDir Path dir;

    private static List<Event> session() {
        return List.of(
                Event.builder(EventKind.USER).session("s1").seq(1).ts(1_767_225_600_000L).text("refund order 42 for ann@example.org").build(),
                Event.builder(EventKind.CONSENT).session("s1").seq(2).subject("ann@example.org").purposes("billing", "support").granted(false).build(),
                Event.builder(EventKind.CALL).session("s1").seq(3).tool("refund").callId("c1")
                        .args(Map.of("order", 42, "amount", 120.5, "note", "ann's \"urgent\" one")).categories("email").tokens(300).depth(1).build(),
                Event.builder(EventKind.RETURN).session("s1").seq(4).tool("refund").callId("c1").result("{\"ok\":false}").error(true).build(),
                Event.builder(EventKind.ERASURE).session("s1").seq(5).subject("ann@example.org").build(),
                Event.builder(EventKind.END).session("s1").seq(6).build());
    }

    private static List<Event> readAll(TraceReader r) throws Exception {
        List<Event> out = new ArrayList<>();
        try (r) {
            for (Event e = r.next(); e != null; e = r.next()) out.add(e);
        }
        return out;
    }

    @Test
    void aClearAuditLogReplaysAsTheSameTraceThatTraceWriterWrites() throws Exception {
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        for (Event e : session()) w.append(AuditRecord.of(e, e.kind() == EventKind.END ? Decision.END : Decision.PASS).atoms("x"));
        w.append(AuditRecord.of("s1", 6, "END", Decision.END));
        w.close();

        // the oracle: the same events through the trace format's own writer and reader
        Path trace = dir.resolve("trace.jsonl");
        try (TraceWriter tw = TraceWriter.open(trace)) {
            for (Event e : session()) tw.write(e);
        }
        List<Event> expected = readAll(TraceReader.open(trace, TraceReader.Mode.STRICT));
        List<Event> replayed = readAll(AuditTrace.open(log, TraceReader.Mode.STRICT));
        assertThat(replayed).hasSize(expected.size() + 1);
        assertThat(replayed.subList(0, expected.size())).containsExactlyElementsOf(expected);
    }

    @Test
    void aHashedAuditLogKeepsTheStructureButNotTheValues() throws Exception {
        Path log = dir.resolve("hashed.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults());
        for (Event e : session()) w.append(AuditRecord.of(e, Decision.PASS));
        w.close();
        List<Event> replayed = readAll(AuditTrace.open(log, TraceReader.Mode.STRICT));
        List<Event> original = session();
        assertThat(replayed).hasSameSizeAs(original);
        for (int i = 0; i < original.size(); i++) {
            Event o = original.get(i);
            Event r = replayed.get(i);
            assertThat(r.kind()).isEqualTo(o.kind());
            assertThat(r.session()).isEqualTo(o.session());
            assertThat(r.seq()).isEqualTo(o.seq());
            assertThat(r.tool()).isEqualTo(o.tool());
            assertThat(r.purposes()).isEqualTo(o.purposes());
            assertThat(r.error()).isEqualTo(o.error());
            if (o.hasArgs()) {
                List<String> names = new ArrayList<>();
                r.args().fieldNames().forEachRemaining(names::add);
                List<String> expectedNames = new ArrayList<>();
                o.args().fieldNames().forEachRemaining(expectedNames::add);
                assertThat(names).containsExactlyInAnyOrderElementsOf(expectedNames);
                assertThat(r.args()).isNotEqualTo(o.args());
            }
            if (o.text() != null) assertThat(r.text()).startsWith("sha256:");
        }
        // the subject of consent and erasure is hashed the same way, so "erased subject mentioned" still matches
        assertThat(replayed.get(1).subject()).isEqualTo(replayed.get(4).subject()).startsWith("sha256:");
    }
}
