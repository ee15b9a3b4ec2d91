package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Replay's memory follows its open sessions, not every session it has seen, and running out of heap is said in one
 * paragraph with exit 3, not a stack trace with exit 1, which means "a contract fails" (trial10 repro
 * replay-oom-exit1-stacktrace: 300,000 one-call sessions, each closed by an end line, ran out of a 96 MB heap).
 * Each case runs the command line in a JVM of its own with a small heap.
 */
class ReplayMemoryTest {
    @TempDir Path dir;

    private static final String LIBRARY = "library: l\ncontracts:\n  - id: l.cap\n    guarantee: G(count(search) <= 3)\n    message: m\n";

    /** 100,000 ended sessions fit a 32 MB heap (the old replay kept each one's arrays and end report: out of memory). */
    @Test
    void sessionsClosedByAnEndLineDoNotAccumulate() throws Exception {
        Path trace = sessions(100_000, true);
        Run r = replay("-Xmx32m", trace);
        assertThat(r.code).as(r.err).isZero();
        assertThat(r.out).contains("100000 events in 100000 sessions").contains("session s99999: every contract kept");
    }

    /**
     * The JSON report of the same replay fits the same heap: it is written as it is made, not built whole first (trial27
     * 09: 50,000 ended sessions ran out of a 96 MB heap with --format json, the text report fit in less than half).
     */
    @Test
    void theJsonReportOfManySessionsFitsTheHeapTheTextReportFits() throws Exception {
        Path trace = sessions(100_000, true);
        Run r = replay("-Xmx32m", trace, "--format", "json");
        assertThat(r.code).as(r.err).isZero();
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(r.out);
        assertThat(report.path("sessions").size()).isEqualTo(100_000);
        assertThat(report.path("sessions").get(99_999).path("session").asText()).isEqualTo("s99999");
        assertThat(report.path("summary").path("events").asLong()).as("end lines are no events").isEqualTo(100_000);
    }

    @Test
    void runningOutOfHeapIsOneParagraphWithExitThree() throws Exception {
        Path trace = sessions(100_000, false);   // open to the end: all held
        Run r = replay("-Xmx12m", trace);
        assertThat(r.code).as(r.err).isEqualTo(3);
        assertThat(r.err).startsWith("tracegate: out of memory (Java heap, max ").contains("-Xmx2g").contains("replay the traces in parts")
                .doesNotContain("Exception in thread").doesNotContain("\tat ");
    }

    private Path sessions(int n, boolean ended) throws Exception {
        Path trace = dir.resolve(ended ? "ended.jsonl" : "open.jsonl");
        try (BufferedWriter w = Files.newBufferedWriter(trace)) {
            for (int i = 0; i < n; i++) {
                w.write("{\"session\":\"s" + i + "\",\"kind\":\"call\",\"tool\":\"search\"}\n");
                if (ended) w.write("{\"session\":\"s" + i + "\",\"kind\":\"end\"}\n");
            }
        }
        return trace;
    }

    private record Run(int code, String out, String err) {}

    private Run replay(String heap, Path trace, String... more) throws Exception {
        Path lib = Files.writeString(dir.resolve("l.yaml"), LIBRARY);
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        List<String> command = new java.util.ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), heap,
                "-cp", System.getProperty("java.class.path"), Main.class.getName(), "replay", lib.toString(), trace.toString(), "--no-progress"));
        command.addAll(List.of(more));
        Process p = new ProcessBuilder(command)
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("replay did not finish");
        }
        return new Run(p.exitValue(), Files.readString(out), Files.readString(err));
    }
}
