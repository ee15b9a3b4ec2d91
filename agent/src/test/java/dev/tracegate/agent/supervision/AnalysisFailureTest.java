package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.analysis.LibraryAnalysis;
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
import java.util.function.BiFunction;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Session 20: the library analysis runs inside the host application, on the agent's "tracegate-analysis" thread, after
 * the start and each reload. An analysis that fails, even with an Error (it ran out of heap: an analysis of 50 contracts
 * did in the agent's own test JVM), is dropped there: one line names `check` as the way to run it offline, it is counted
 * in InternalErrors (open: nothing was refused), no thread of the application sees it, and supervision goes on.
 */
class AnalysisFailureTest {
    @TempDir Path dir;

    @Test
    void anAnalysisThatRunsOutOfHeapIsDroppedWithOneWarnAndSupervisionGoesOn() throws Exception {
        String said = startWithAnalysis((maxStates, cs) -> {
            throw new OutOfMemoryError("Java heap space");
        }, (s, metrics) -> {
            assertThat(metrics.getInternalErrors()).as("counted, as nothing was refused").isEqualTo(Map.of("closed", 0L, "open", 1L));
            assertThat(s.onToolCall(new ToolCall("t", "c1", "wire", "{}", "t1")).kind()).as("the contract still decides")
                    .isEqualTo(ToolDecision.Kind.BLOCK);
            assertThat(s.onToolCall(new ToolCall("t", "c1", "search", "{}", "t2")).kind()).isEqualTo(ToolDecision.Kind.PROCEED);
        });
        List<String> dropped = said.lines().filter(l -> l.contains("library analysis dropped")).toList();
        assertThat(dropped).as(said).hasSize(1);
        assertThat(dropped.get(0)).startsWith("[tracegate] WARN library analysis dropped: it ran out of heap (java.lang.OutOfMemoryError);"
                        + " supervision goes on without its findings. Run it offline with `java -jar tracegate-agent.jar check ")
                .contains("wire.yaml");
    }

    @Test
    void anAnalysisThatThrowsAnotherErrorIsSaidOnceAndCounted() throws Exception {
        String said = startWithAnalysis((maxStates, cs) -> {
            throw new AssertionError("a bug in the analysis");
        }, (s, metrics) -> {
            assertThat(metrics.getInternalErrors().get("open")).isEqualTo(1L);
            assertThat(s.onToolCall(new ToolCall("t", "c1", "wire", "{}", "t1")).kind()).isEqualTo(ToolDecision.Kind.BLOCK);
        });
        assertThat(said.lines().filter(l -> l.startsWith("[tracegate] ERROR library analysis failed; supervision goes on")).count())
                .as(said).isEqualTo(1);
        assertThat(said).contains("a bug in the analysis");
    }

    private interface Then {
        void run(ContractSupervisor s, SupervisorMetrics metrics) throws Exception;
    }

    /** Starts a supervisor whose analysis is {@code analyser}, waits for the analysis, runs {@code then}; returns stderr. */
    private String startWithAnalysis(BiFunction<Integer, dev.tracegate.contracts.library.Library, List<LibraryAnalysis.Finding>> analyser, Then then) throws Exception {
        Path lib = Files.writeString(dir.resolve("wire.yaml"), """
                library: wire
                contracts:
                  - id: wire.never
                    guarantee: G !call(wire)
                    message: No wires.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        // earlier tests' analyses log through the same AgentLog: let them end before capturing
        for (Thread t : Thread.getAllStackTraces().keySet()) {
            if (t.getName().equals("tracegate-analysis")) t.join(TimeUnit.SECONDS.toMillis(60));
        }
        List<Throwable> uncaught = new ArrayList<>();
        Thread.UncaughtExceptionHandler before = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
            synchronized (uncaught) {
                uncaught.add(e);
            }
        });
        var original = ContractSupervisor.analyser;
        ContractSupervisor.analyser = analyser;
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        ContractSupervisor s = null;
        try {
            SupervisorMetrics metrics = new SupervisorMetrics();
            s = new ContractSupervisor(config, audit, metrics, null);
            Thread analysis = s.analysisThread();
            analysis.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(analysis.isAlive()).as("the background analysis ended").isFalse();
            then.run(s, metrics);
        } finally {
            AgentLog.captureForTest(null);
            ContractSupervisor.analyser = original;
            Thread.setDefaultUncaughtExceptionHandler(before);
            if (s != null) s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
        synchronized (uncaught) {
            assertThat(uncaught).as("no thread ended with the analysis' error").isEmpty();
        }
        return err.toString(StandardCharsets.UTF_8);
    }
}
