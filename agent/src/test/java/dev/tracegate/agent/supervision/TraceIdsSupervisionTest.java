package dev.tracegate.agent.supervision;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.CallReach;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.matchers.event.Args;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The supervisor's records carry the trace id and span id of the OpenTelemetry span current on the thread that made
 * them (an application that traces its requests with the OTel SDK, its requests' tool calls decided inside them): a
 * passed call, a blocked call and a result inside a request's span carry that span's ids; the same calls outside any
 * span carry none; {@code audit.trace-ids: false} writes none; the log verifies and replays to the same verdicts.
 */
class TraceIdsSupervisionTest {
    @TempDir Path dir;

    private final SdkTracerProvider tracing = SdkTracerProvider.builder().build();

    @AfterEach
    void restore() {
        AgentLog.captureForTest(null);
        tracing.close();
    }

    private static final String LIBRARY = """
            library: shop
            contracts:
              - id: shop.no-export
                guarantee: G !call(export)
                message: No exports.
            """;

    private static final CallReach REACH = new CallReach("a configured method can only run or refuse the method it sits on",
            "a configured method cannot rewrite", Map.of());

    /** A request of session {@code session}: a passed lookup and its result, then a refused export. */
    private static void request(ContractSupervisor s, String session) {
        s.onToolCall(new ToolCall("configured", session, "lookup", null, session + "-1", Args.ofJson("{\"q\":\"x\"}"), REACH));
        s.onToolResult(new ToolResult("configured", session, "lookup", session + "-1", "found", false, "a string"));
        s.onToolCall(new ToolCall("configured", session, "export", null, session + "-2", Args.ofJson("{}"), REACH));
    }

    /** Session {@code traced} inside a span (returned), session {@code plain} outside; the log's event records. */
    private List<JsonNode> run(Path log, String extra, Span[] span) throws Exception {
        AgentLog.captureForTest(new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));
        Path lib = dir.resolve("shop.yaml");
        if (!Files.exists(lib)) Files.writeString(lib, LIBRARY);
        Path config = Files.writeString(dir.resolve(log.getFileName() + ".yaml"),
                "libraries: [" + lib + "]\naudit.path: " + log + "\nwarmup: false\n" + extra);
        AgentConfig c = AgentConfig.load("config=" + config, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(c));
        ContractSupervisor s = new ContractSupervisor(c, audit, new SupervisorMetrics(), null);
        span[0] = tracing.get("shop").spanBuilder("POST /orders").startSpan();
        try (Scope ignored = span[0].makeCurrent()) {
            request(s, "traced");
        } finally {
            span[0].end();
        }
        request(s, "plain");
        s.close();
        audit.close(10, TimeUnit.SECONDS);
        assertThat(AuditVerifier.verify(log).ok()).isTrue();
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> events = new ArrayList<>();
        for (String line : Files.readAllLines(log, StandardCharsets.UTF_8)) {
            JsonNode n = json.readTree(line);
            if ("event".equals(n.path("rec").asText())) events.add(n);
        }
        return events;
    }

    private static String brief(JsonNode n) {
        return n.path("session").asText() + " " + n.path("kind").asText() + " " + n.path("tool").asText() + " " + n.path("decision").asText()
                + (n.has("trace_id") ? " " + n.path("trace_id").asText() + "/" + n.path("span_id").asText() : "");
    }

    @Test
    void recordsMadeInsideARequestSpanCarryItsIdsAndOthersNone() throws Exception {
        Span[] span = new Span[1];
        List<JsonNode> events = run(dir.resolve("on.jsonl"), "", span);
        String ids = " " + span[0].getSpanContext().getTraceId() + "/" + span[0].getSpanContext().getSpanId();
        List<String> got = new ArrayList<>();
        for (JsonNode n : events) got.add(brief(n));
        assertThat(got.subList(0, 6)).containsExactly(
                "traced call lookup pass" + ids,
                "traced return lookup pass" + ids,
                "traced call export block" + ids,
                "plain call lookup pass",
                "plain return lookup pass",
                "plain call export block");
        // the sessions' ends are written at close, on no request's span (in either order)
        assertThat(got.subList(6, got.size())).containsExactlyInAnyOrder("traced end  end", "plain end  end");
    }

    @Test
    void auditTraceIdsFalseWritesNone() throws Exception {
        Span[] span = new Span[1];
        List<JsonNode> events = run(dir.resolve("off.jsonl"), "audit.trace-ids: false\n", span);
        assertThat(events).hasSize(8).noneMatch(n -> n.has("trace_id") || n.has("span_id"));
    }

    @Test
    void replayGivesTheSameVerdictsForALogWithIdsAsForOneWithout() throws Exception {
        Span[] span = new Span[1];
        Path on = dir.resolve("on.jsonl");
        Path off = dir.resolve("off.jsonl");
        assertThat(run(on, "", span)).anyMatch(n -> n.has("trace_id"));
        assertThat(run(off, "audit.trace-ids: false\n", span)).noneMatch(n -> n.has("trace_id"));
        Path lib = dir.resolve("shop.yaml");
        dev.tracegate.agent.cli.CliRun withIds = dev.tracegate.agent.cli.CliRun.of("replay", lib.toString(), on.toString(), "--no-progress");
        dev.tracegate.agent.cli.CliRun without = dev.tracegate.agent.cli.CliRun.of("replay", lib.toString(), off.toString(), "--no-progress");
        // the report, its time and rate taken out
        String a = (withIds.out() + withIds.err()).replace(on.toString(), "LOG").replace("on.jsonl", "LOG")
                .replaceAll("[0-9.]+ s \\([0-9]+ events/s\\)", "_");
        String b = (without.out() + without.err()).replace(off.toString(), "LOG").replace("off.jsonl", "LOG")
                .replaceAll("[0-9.]+ s \\([0-9]+ events/s\\)", "_");
        assertThat(a).as(a).contains("shop.no-export").contains("traced").contains("plain");
        assertThat(withIds.code()).isEqualTo(without.code());
        assertThat(a).isEqualTo(b);
    }
}
