package dev.tracegate.agent.audit;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.config.PersonalData;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The trace and span id of the OpenTelemetry span current where a record is made (the real API and trace SDK on this
 * JVM's class path, as an application that traces itself has them): written as {@code trace_id} and {@code span_id} when
 * a valid span is current, not at all otherwise, and the API looked up once per class loader, also when there is none.
 */
class TraceIdsTest {
    @TempDir Path dir;

    private final SdkTracerProvider tracing = SdkTracerProvider.builder().build();
    private final ClassLoader context = Thread.currentThread().getContextClassLoader();

    @AfterEach
    void restore() {
        Thread.currentThread().setContextClassLoader(context);
        tracing.close();
    }

    private static Event call(long seq) {
        return Event.builder(EventKind.CALL).session("s1").seq(seq).ts(1_767_225_600_000L + seq).tool("refund").callId("c" + seq)
                .args(Map.of("order", 42)).build();
    }

    /** The record of {@code event} as stamped on this thread, as its line in a clear log. */
    private JsonNode line(Supplier<AuditRecord> made) throws Exception {
        Path log = Files.createTempFile(dir, "audit", ".jsonl");
        Files.delete(log);
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        w.append(made.get());
        w.close(10, TimeUnit.SECONDS);
        List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
        assertThat(AuditVerifier.verify(log).ok()).as(String.join("\n", lines)).isTrue();
        return new ObjectMapper().readTree(lines.get(lines.size() - 1));
    }

    private static AuditRecord stamped(Event e) {
        AuditRecord r = AuditRecord.of(e, Decision.PASS).time(e.ts()).latencyNs(1000);
        TraceIds.stamp(r);
        return r;
    }

    @Test
    void aRecordMadeWhileASpanIsCurrentCarriesItsW3cIds() throws Exception {
        Span span = tracing.get("shop").spanBuilder("POST /refund").startSpan();
        JsonNode inside;
        try (Scope ignored = span.makeCurrent()) {
            inside = line(() -> stamped(call(1)));
        } finally {
            span.end();
        }
        assertThat(inside.path("trace_id").asText()).isEqualTo(span.getSpanContext().getTraceId()).matches("[0-9a-f]{32}");
        assertThat(inside.path("span_id").asText()).isEqualTo(span.getSpanContext().getSpanId()).matches("[0-9a-f]{16}");
        // the event part first, then the ids, then what the supervisor did
        List<String> names = new ArrayList<>();
        inside.fieldNames().forEachRemaining(names::add);
        assertThat(names).containsSubsequence("args", "trace_id", "span_id", "decision", "latencyNs", "hash");
    }

    @Test
    void noSpanOrAnInvalidOneAddsNothingAndTheLineIsTheOneOfARecordNeverStamped() throws Exception {
        JsonNode outside = line(() -> stamped(call(1)));
        assertThat(outside.has("trace_id")).as(outside.toString()).isFalse();
        assertThat(outside.has("span_id")).isFalse();

        Span invalid = Span.wrap(SpanContext.getInvalid());
        try (Scope ignored = invalid.makeCurrent()) {
            assertThat(line(() -> stamped(call(1))).has("trace_id")).isFalse();
        }
        // a span context of the right shape that the API itself calls invalid (all-zero trace id) is not written either
        Span zeros = Span.wrap(SpanContext.create("0".repeat(32), "00f067aa0ba902b7", TraceFlags.getSampled(), TraceState.getDefault()));
        try (Scope ignored = zeros.makeCurrent()) {
            assertThat(line(() -> stamped(call(1))).has("trace_id")).isFalse();
        }

        // byte for byte: an unstamped record and one stamped without a span encode alike
        AuditLines plain = new AuditLines();
        AuditLines other = new AuditLines();
        plain.event(AuditRecord.of(call(7), Decision.PASS).time(1L).latencyNs(5));
        other.event(stamped(call(7)).time(1L).latencyNs(5));
        assertThat(new String(other.buffer(), 0, other.length(), StandardCharsets.UTF_8))
                .isEqualTo(new String(plain.buffer(), 0, plain.length(), StandardCharsets.UTF_8));
    }

    @Test
    void theApiIsLookedUpOncePerClassLoaderAlsoWhenItIsAbsent() throws Exception {
        Span span = tracing.get("shop").spanBuilder("request").startSpan();
        try (Scope ignored = span.makeCurrent();
             URLClassLoader withoutOtel = new URLClassLoader(new URL[0], ClassLoader.getPlatformClassLoader());
             URLClassLoader app = new URLClassLoader(new URL[0], TraceIdsTest.class.getClassLoader())) {
            // a loader that sees no OpenTelemetry (a JVM without it): one failed look-up, then none, and no ids
            Thread.currentThread().setContextClassLoader(withoutOtel);
            int before = TraceIds.lookups();
            for (int i = 0; i < 1000; i++) {
                AuditRecord r = stamped(call(i));
                assertThat(r.rareOrNone().traceId).isNull();
            }
            assertThat(TraceIds.lookups() - before).as("look-ups for 1000 records of one loader without OpenTelemetry").isEqualTo(1);
            assertThat(TraceIds.spanClass(withoutOtel)).isNull();

            // a loader that sees the application's API (here through its parent): one look-up, and the span's ids
            Thread.currentThread().setContextClassLoader(app);
            before = TraceIds.lookups();
            for (int i = 0; i < 1000; i++) {
                AuditRecord r = stamped(call(i));
                assertThat(r.rareOrNone().traceId).isEqualTo(span.getSpanContext().getTraceId());
                assertThat(r.rareOrNone().spanId).isEqualTo(span.getSpanContext().getSpanId());
            }
            assertThat(TraceIds.lookups() - before).as("look-ups for 1000 records of one loader with OpenTelemetry").isEqualTo(1);
            assertThat(TraceIds.spanClass(app)).isSameAs(Span.class);

            // a thread without a context loader reads through the system class loader
            Thread.currentThread().setContextClassLoader(null);
            assertThat(stamped(call(1)).rareOrNone().traceId).isEqualTo(span.getSpanContext().getTraceId());
        } finally {
            span.end();
        }
    }

    @Test
    void aRecordWithIdsIsAnEventOfTheTraceAsBeforeAndTheFieldsAreHashedWithTheLine() throws Exception {
        Span span = tracing.get("shop").spanBuilder("request").startSpan();
        Path log = dir.resolve("audit.jsonl");
        AuditWriter w = AuditWriter.start(log, AuditWriter.Settings.defaults().personalData(PersonalData.CLEAR));
        try (Scope ignored = span.makeCurrent()) {
            w.append(stamped(call(1)));
        } finally {
            span.end();
        }
        w.append(stamped(call(2)));
        w.close(10, TimeUnit.SECONDS);
        assertThat(AuditVerifier.verify(log).ok()).isTrue();
        List<Event> replayed = new ArrayList<>();
        try (var t = AuditTrace.open(log, dev.tracegate.matchers.trace.TraceReader.Mode.STRICT)) {
            for (Event e = t.next(); e != null; e = t.next()) replayed.add(e);
        }
        assertThat(replayed).containsExactly(call(1), call(2));

        // the ids are part of what the chain proves: one changed id is reported
        List<String> lines = new ArrayList<>(Files.readAllLines(log, StandardCharsets.UTF_8));
        int at = lines.size() - 2;
        String id = span.getSpanContext().getSpanId();
        assertThat(lines.get(at)).contains("\"span_id\":\"" + id + "\"");
        lines.set(at, lines.get(at).replace(id, "0123456789abcdef"));
        Files.write(log, lines, StandardCharsets.UTF_8);
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.ok()).isFalse();
        assertThat(v.badLine()).isEqualTo(at + 1);
    }

    @Test
    void anApiThatThrowsIsNotReadAgainAndTheRecordsGoWithoutIds() throws Exception {
        // the application's API and context jars without opentelemetry-common beside them: Span.current() throws
        // NoClassDefFoundError (io/opentelemetry/common/ComponentLoader) on every call
        URL api = Span.class.getProtectionDomain().getCodeSource().getLocation();
        URL context = io.opentelemetry.context.Context.class.getProtectionDomain().getCodeSource().getLocation();
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        dev.tracegate.agent.core.AgentLog.captureForTest(new java.io.PrintStream(err, true, StandardCharsets.UTF_8));
        try (URLClassLoader broken = new URLClassLoader(new URL[] {api, context}, ClassLoader.getPlatformClassLoader())) {
            Thread.currentThread().setContextClassLoader(broken);
            for (int i = 0; i < 100; i++) assertThat(stamped(call(i)).rareOrNone().traceId).isNull();
            // not read again: the stamps after the failure allocate nothing (a throw per record made 1.6 KB each)
            AuditRecord[] records = new AuditRecord[1000];
            for (int i = 0; i < records.length; i++) records[i] = AuditRecord.of(call(i), Decision.PASS);
            com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
            long me = Thread.currentThread().getId();
            long before = mx.getThreadAllocatedBytes(me);
            for (AuditRecord r : records) TraceIds.stamp(r);
            long bytes = mx.getThreadAllocatedBytes(me) - before;
            assertThat(bytes).as("bytes allocated by 1000 stamps after the API failed").isLessThan(1000 * 64);
            for (AuditRecord r : records) assertThat(r.rareOrNone().traceId).isNull();
            Class<?> span = TraceIds.spanClass(broken);
            assertThat(span).isNotNull().isNotSameAs(Span.class);
            String said = err.toString(StandardCharsets.UTF_8);
            assertThat(said.split("could not read the current OpenTelemetry span", -1)).as(said).hasSize(2);
            assertThat(said).contains("io/opentelemetry/common/ComponentLoader").contains("until the JVM restarts");
        } finally {
            dev.tracegate.agent.core.AgentLog.captureForTest(null);
        }
    }
}
