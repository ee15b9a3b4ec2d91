package dev.tracegate.agent.hardening;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.FileAuditSink;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.config.FailPolicy;
import dev.tracegate.agent.core.AgentArguments;
import dev.tracegate.agent.core.JsonCodec;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.Supervisor;
import dev.tracegate.agent.core.SupervisorBridge;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import dev.tracegate.agent.instrumentation.configured.ConfiguredMethods;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import dev.tracegate.agent.supervision.LiveView;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Faults injected into tracegate's own code, in process, through the seams the agent has: a
 * component of the {@link ContractSupervisor} that throws (its live view, given to the constructor),
 * a {@link Supervisor} that throws behind the {@link SupervisorBridge} and the {@link Dispatcher}, and
 * an audit sink that throws an unchecked exception or an Error. Each runs under {@code fail=closed}
 * and {@code fail=open}; the counters the operator reads (the MXBean's, the bridge's, the dispatcher's)
 * are asserted. The forked-JVM half is it/hardening/FaultInjectionTest; SECURITY.md has the table.
 */
class InternalFaultTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    @AfterEach void uninstall() { Dispatcher.install(null); }

    private AgentConfig config(FailPolicy fail, Path log) {
        return AgentConfig.load("libraries=sop-refund,audit.personal-data=clear,fail=" + fail.name().toLowerCase() + ",audit.path=" + log,
                Map.of(), Map.of(), Set.of());
    }

    /** A stream that fails on every write once {@code broken} is set, as a terminal or pipe that went away. */
    private static OutputStream breakable(AtomicBoolean broken) {
        return new OutputStream() {
            @Override public void write(int b) { if (broken.get()) throw new IllegalStateException("injected: the view's stream failed"); }

            @Override public void write(byte[] b, int off, int len) { if (broken.get()) throw new IllegalStateException("injected: the view's stream failed"); }
        };
    }

    private static List<JsonNode> records(Path log) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(log)) out.add(JSON.readTree(line));
        return out;
    }

    private static void await(BooleanSupplier condition) throws InterruptedException {
        for (int i = 0; i < 2000 && !condition.getAsBoolean(); i++) Thread.sleep(5);   // a bound, never a measurement
        assertThat(condition.getAsBoolean()).as("condition within 10 s").isTrue();
    }

    // ---------------------------------------------------------- a component of the supervisor throws

    /**
     * The live view (a console component handed to the constructor) throws while showing a decision.
     * Finding 11 (fixed): its failure used to turn an already recorded "pass" into a refusal under
     * closed, so the log disagreed with what the host saw. Now the view never decides: under both
     * policies every event is decided by the contracts alone, nothing counts as an internal error, the
     * log says what the host got, and the refund that needs the approval passes.
     */
    @ParameterizedTest @EnumSource(FailPolicy.class)
    void aThrowingLiveViewChangesNoDecisionAndTheLogAgrees(FailPolicy fail) throws Exception {
        Path log = dir.resolve("view.jsonl");
        AgentConfig config = config(fail, log);
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        SupervisorMetrics metrics = new SupervisorMetrics();
        metrics.audit(audit);
        AtomicBoolean broken = new AtomicBoolean(true);
        ContractSupervisor s = new ContractSupervisor(config, audit, metrics, new LiveView(new PrintStream(breakable(broken)), false));

        assertThat(s.onToolCall(new ToolCall("t", "c1", "approve_refund", "{\"order\":7,\"amount\":40}", "t1")).kind())
                .isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(s.onToolResult(new ToolResult("t", "c1", "approve_refund", "t1", "approved", false)).suppressed()).isFalse();
        assertThat(s.onUserMessage(new Message("t", "c1", "hello")).kind()).isEqualTo(MessageDecision.Kind.KEEP);
        assertThat(s.onAssistantMessage(new Message("t", "c1", "hi")).kind()).isEqualTo(MessageDecision.Kind.KEEP);
        assertThat(s.onToolCall(new ToolCall("t", "c1", "refund", "{\"order\":7,\"amount\":40}", "t2")).kind())
                .as("the approval ran, so the refund that needs it passes").isEqualTo(ToolDecision.Kind.PROCEED);
        assertThat(s.onToolCall(new ToolCall("t", "c2", "refund", "{\"order\":8,\"amount\":40}", "t3")).kind())
                .as("the contracts still decide: no approval in c2").isEqualTo(ToolDecision.Kind.BLOCK);
        assertThat(metrics.getInternalErrors().values().stream().mapToLong(Long::longValue).sum()).isZero();
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        AuditVerification v = AuditVerifier.verify(log);
        assertThat(v.ok()).as(v.describe()).isTrue();
        List<String> c1 = new ArrayList<>();
        for (JsonNode r : records(log)) {
            if ("c1".equals(r.path("session").asText())) c1.add(r.path("kind").asText() + "/" + r.path("decision").asText());
        }
        assertThat(c1).startsWith("call/pass", "return/pass", "user/pass", "assistant/pass", "call/pass");
    }

    // ------------------------------------------------- the whole supervisor throws behind the dispatcher

    /** A supervisor that fails on every event, the way a bug or a missing class would. */
    private static final class BrokenSupervisor implements Supervisor {
        private final Throwable error;

        BrokenSupervisor(Throwable error) { this.error = error; }

        private RuntimeException fail() {
            if (error instanceof RuntimeException r) throw r;
            if (error instanceof Error e) throw e;
            throw new IllegalStateException(error);
        }

        @Override public ToolDecision onToolCall(ToolCall call) { throw fail(); }
        @Override public ResultDecision onToolResult(ToolResult result) { throw fail(); }
        @Override public MessageDecision onUserMessage(Message message) { throw fail(); }
        @Override public MessageDecision onAssistantMessage(Message message) { throw fail(); }
        @Override public void endSession(String sessionId) { throw fail(); }
    }

    enum Failure {
        RUNTIME(new IllegalStateException("injected bug")),
        LINKAGE(new NoClassDefFoundError("dev/tracegate/shaded/Missing")),
        STACK(new StackOverflowError("injected"));

        final Throwable error;

        Failure(Throwable error) { this.error = error; }
    }

    /**
     * Whatever the supervisor throws (an unchecked exception, a linkage error, a stack overflow) never
     * reaches the host as itself: at the dispatcher a tool call becomes a refusal (closed) or proceeds
     * (open), a result and a user message are kept or withheld, and model output is refused with the
     * documented TracegateViolation (closed) or kept (open). The bridge and the dispatcher count each one.
     */
    @ParameterizedTest @EnumSource(Failure.class)
    void aThrowingSupervisorNeverReachesTheHostAsItself(Failure failure) {
        for (FailPolicy fail : FailPolicy.values()) {
            boolean closed = fail == FailPolicy.CLOSED;
            SupervisorBridge bridge = new SupervisorBridge(new BrokenSupervisor(failure.error),
                    AgentArguments.parse("fail=" + fail.name().toLowerCase()), new JsonCodec(), ConfiguredMethods.none());
            Dispatcher.install(bridge);
            long before = Dispatcher.internalErrors();

            Ruling call = Dispatcher.onToolCall("t", "s", "refund", "{}", "id1");
            String result = Dispatcher.onToolResult("t", "s", "refund", "id1", "ok", false);
            String user = Dispatcher.onUserMessage("t", "s", "hello");
            if (closed) {
                assertThat(call).isNotNull();
                assertThat(call.kind).isEqualTo(Ruling.SUBSTITUTE);
                assertThat(call.text).contains("tracegate could not check tool call refund").contains("refused because fail=closed");
                assertThat(result).contains("refused because fail=closed");
                assertThat(user).contains("refused because fail=closed");
                assertThatThrownBy(() -> Dispatcher.onAssistantMessage("t", "s", "hi")).isInstanceOf(TracegateViolation.class);
            } else {
                assertThat(call).isNull();
                assertThat(result).isNull();
                assertThat(user).isNull();
                assertThat(Dispatcher.onAssistantMessage("t", "s", "hi")).isNull();
            }
            assertThat(Dispatcher.internalErrors() - before).as("dispatcher count, fail=%s", fail).isEqualTo(4);
            assertThat(bridge.counts()[SupervisorBridge.INTERNAL_ERRORS]).as("bridge count, fail=%s", fail).isEqualTo(4);
        }
    }

    // -------------------------------------------------------------------------- the audit sink throws

    /**
     * An audit sink that throws an unchecked exception or an Error (a bug, a missing class) in the
     * middle of a run is treated like an I/O error: closed refuses events while it fails, open lets
     * them pass as lost, the writer keeps retrying, and once the sink works again the log continues,
     * says how many records it lacks, and verifies. No accepted record goes uncounted.
     */
    @ParameterizedTest @EnumSource(Failure.class)
    void aThrowingAuditSinkIsRetriedAndEveryRecordIsAccountedFor(Failure failure) throws Exception {
        for (FailPolicy fail : FailPolicy.values()) {
            Path log = dir.resolve("sink-" + failure + "-" + fail + ".jsonl");
            AgentConfig config = config(fail, log);
            AtomicBoolean broken = new AtomicBoolean();
            FileAuditSink sink = new FileAuditSink(log, out -> new OutputStream() {
                @Override public void write(int b) throws IOException { write(new byte[] {(byte) b}, 0, 1); }

                @Override public void write(byte[] b, int off, int len) throws IOException {
                    if (broken.get()) {
                        if (failure.error instanceof RuntimeException r) throw r;
                        throw (Error) failure.error;
                    }
                    out.write(b, off, len);
                }

                @Override public void flush() throws IOException { out.flush(); }

                @Override public void close() throws IOException { out.close(); }
            });
            AuditWriter audit = AuditWriter.start(sink, AuditWriter.Settings.from(config).retry(1, 5, TimeUnit.MILLISECONDS));
            SupervisorMetrics metrics = new SupervisorMetrics();
            metrics.audit(audit);
            ContractSupervisor s = new ContractSupervisor(config, audit, metrics, null);
            boolean closed = fail == FailPolicy.CLOSED;

            assertThat(s.onUserMessage(new Message("t", "a", "before")).kind()).isEqualTo(MessageDecision.Kind.KEEP);
            await(() -> audit.written() == 1);
            broken.set(true);
            s.onUserMessage(new Message("t", "a", "the record that meets the failure"));
            await(() -> !audit.isHealthy());
            ToolDecision during = s.onToolCall(new ToolCall("t", "a", "approve_refund", "{\"order\":1,\"amount\":5}", "x1"));
            assertThat(during.kind()).as("fail=%s", fail).isEqualTo(closed ? ToolDecision.Kind.BLOCK : ToolDecision.Kind.PROCEED);
            assertThat(metrics.getAuditErrors()).isPositive();
            broken.set(false);
            await(audit::isHealthy);
            assertThat(s.onUserMessage(new Message("t", "a", "after")).kind()).isEqualTo(MessageDecision.Kind.KEEP);
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();

            AuditVerification v = AuditVerifier.verify(log);
            assertThat(v.ok()).as(v.describe()).isTrue();
            long events = 0, missing = 0;
            for (JsonNode r : records(log)) {
                if ("event".equals(r.path("rec").asText())) events++;
                if ("dropped".equals(r.path("rec").asText())) missing += r.path("count").asLong();
            }
            // four events and one END were offered; each is in the log or counted in a dropped record
            assertThat(events + missing).as("fail=%s: %s", fail, Files.readString(log)).isEqualTo(5);
            assertThat(missing).isPositive();
            assertThat(audit.lost() + audit.refused()).isEqualTo(missing);
        }
    }
}
