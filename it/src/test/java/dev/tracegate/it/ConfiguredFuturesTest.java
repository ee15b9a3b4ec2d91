package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A blocked call of a configured method that returns a future (trial30 03): the caller gets a future that holds the
 * refusal, as it gets one that holds a withheld value, never a synchronous TracegateViolation out of a call that async
 * code was written never to throw from. Under {@code block.style: substitute} a future whose value can be text
 * ({@code CompletableFuture<String>}, {@code CompletionStage<String>}, {@code Future<String>}) completes with the refusal
 * text; one that cannot ({@code CompletableFuture<Integer>}), and every one under {@code block.style: exception} or an
 * entry's {@code block-style: exception}, fails with TracegateViolation, which the caller's {@code exceptionally},
 * {@code handle} or {@code get()} sees. The real agent jar in a forked JVM runs demoapp.configured.AsyncToolsApp.
 */
class ConfiguredFuturesTest {
    private static final String APP = "demoapp.configured.AsyncToolsApp";
    private static final String VIOLATION = "TracegateViolation: tracegate blocked the call to ";

    @TempDir Path dir;

    private ForkedJvm.Result run(String blockStyle) throws IOException {
        Path library = Files.writeString(dir.resolve("no-fetch.yaml"), """
                library: futures
                contracts:
                  - {id: futures.no-fetch, guarantee: "G !call(fetch)", message: fetching is not allowed}
                  - {id: futures.no-count, guarantee: "G !call(count)", message: counting is not allowed}
                  - {id: futures.no-stage, guarantee: "G !call(stage)", message: staging is not allowed}
                  - {id: futures.no-plain, guarantee: "G !call(plain)", message: plain is not allowed}
                  - {id: futures.no-cached, guarantee: "G !call(cached)", message: caching is not allowed}
                """);
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s}
                block.style: %s
                configured-methods:
                  - {class: "demoapp.configured.AsyncToolsApp$Fetcher", method: cached, kind: tool, session-param: 0, block-style: exception}
                  - {class: "demoapp.configured.AsyncToolsApp$Fetcher", method: "*", kind: tool, session-param: 0}
                """.formatted(library, dir.resolve("audit.jsonl"), blockStyle));
        String classpath = Path.of(System.getProperty("tracegate.test.classes", "target/test-classes")).toAbsolutePath().toString();
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), classpath, APP);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as("no refusal escapes the future's pipeline: " + r).doesNotContain(" SYNC ");
        String audit = Files.readString(dir.resolve("audit.jsonl"));
        assertThat(audit.lines().filter(l -> l.contains("\"decision\":\"block\"")).count()).as(audit).isEqualTo(5);
        assertThat(audit).as("no blocked method ran").doesNotContain("\"kind\":\"return\"");
        return r;
    }

    @Test
    void underSubstituteAFutureOfTextHoldsTheRefusalAndAnyOtherFails() throws IOException {
        ForkedJvm.Result r = run("substitute");
        assertThat(r.stdout()).as(r.toString())
                .contains("fetch FUTURE tracegate blocked the call to fetch (contract futures.no-fetch): fetching is not allowed")
                .contains("stage FUTURE tracegate blocked the call to stage (contract futures.no-stage)")
                .contains("plain FUTURE tracegate blocked the call to plain (contract futures.no-plain)")
                .contains("count FUTURE HANDLED " + VIOLATION + "count (contract futures.no-count)")
                .contains("cached FUTURE HANDLED " + VIOLATION + "cached (contract futures.no-cached)");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK configured session=s1 tool=fetch contract=futures.no-fetch (substitute)")
                .contains("BLOCK configured session=s1 tool=count contract=futures.no-count (throw)")
                .contains("BLOCK configured session=s1 tool=cached contract=futures.no-cached (throw)");
    }

    @Test
    void underExceptionEveryFutureFailsWithTheViolation() throws IOException {
        ForkedJvm.Result r = run("exception");
        for (String tool : List.of("fetch", "count", "stage", "plain", "cached")) {
            assertThat(r.stdout()).as(r.toString()).contains(tool + " FUTURE HANDLED " + VIOLATION + tool + " (contract futures.no-" + tool + ")");
        }
    }
}
