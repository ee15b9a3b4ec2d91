package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The audit log's {@code trace_id} and {@code span_id} beside the real OpenTelemetry Java agent 2.31.0: a LangChain4j
 * application (two conversations, alice's lookup passes, bob's e-mail is blocked) whose every conversation runs in a
 * span the OTel agent opens around it ({@code otel.instrumentation.methods.include} on the application's own method; the
 * application imports neither OpenTelemetry nor tracegate). The span's ids are those OTel's logging exporter prints for
 * it; each record of a conversation (its user message, tool call, tool result, answer) must carry exactly them, the two
 * conversations' traces must differ, the sessions' ends (written at exit, on no span) carry none, and the log verifies
 * and replays. Twice: OTel first with no OpenTelemetry API in the application (tracegate reads the OTel agent's own API
 * on the bootstrap path), and tracegate first with the application's own API 1.66.0 on its class path (tracegate reads
 * it; the OTel agent bridges it to its context). No WARN of a span that could not be read in either.
 */
class TraceIdsBesideOtelTest {

    private static final String APP = "demoapp.langchain4j.TwoConversationsApp";
    private static final String LIBRARY = String.join("\n",
            "library: mail",
            "contracts:",
            "  - id: mail.no-send",
            "    guarantee: G !call(sendEmail)",
            "    message: E-mail is not sent from here.", "");
    /** The logging exporter's line of a finished span: its name, trace id and span id. */
    private static final Pattern EXPORTED = Pattern.compile("LoggingSpanExporter - 'TwoConversationsApp\\.converse' : ([0-9a-f]{32}) ([0-9a-f]{16}) ");

    @TempDir Path dir;

    private static Path otelAgent() throws IOException {
        Path d = Path.of(System.getProperty("tracegate.app.classes", "target/classes")).resolveSibling("otel-javaagent");
        try (var files = Files.list(d)) {
            return files.filter(f -> f.getFileName().toString().startsWith("opentelemetry-javaagent")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no opentelemetry-javaagent jar in " + d
                            + " (the it module's generate-test-resources phase copies it)"));
        }
    }

    /**
     * The OpenTelemetry API 1.66.0 jars (API, context and the common module the context needs) from the local Maven
     * repository, where the agent module's tests (TraceIdsTest, which use them) put them.
     */
    private static List<Path> otelApi() {
        Path repo = Path.of(System.getProperty("maven.repo.local", Path.of(System.getProperty("user.home"), ".m2", "repository").toString()));
        List<Path> jars = new ArrayList<>();
        for (String a : new String[] {"opentelemetry-api", "opentelemetry-context", "opentelemetry-common"}) {
            Path jar = repo.resolve("io/opentelemetry/" + a + "/1.66.0/" + a + "-1.66.0.jar");
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException(jar + " not found: build the agent module first (its tests depend on"
                        + " io.opentelemetry:opentelemetry-sdk-trace:1.66.0), or pass -Dmaven.repo.local=<your repository>");
            }
            jars.add(jar);
        }
        return jars;
    }

    private ForkedJvm.Result run(boolean otelFirst, boolean appHasApi, Path audit) throws IOException {
        String tracegate = ForkedJvm.agent("libraries=" + dir.resolve("mail.yaml") + ",audit.path=" + audit + ",block.style=substitute");
        String otel = "-javaagent:" + otelAgent();
        List<String> jvm = new ArrayList<>(otelFirst ? List.of(otel, tracegate) : List.of(tracegate, otel));
        jvm.addAll(List.of("-Dotel.traces.exporter=logging", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
                // the application's request: a span around each conversation, as a traced service has one per request
                "-Dotel.instrumentation.methods.include=" + APP + "[converse]"));
        StringBuilder cp = new StringBuilder(ForkedJvm.appClasspath());
        if (appHasApi) for (Path jar : otelApi()) cp.append(File.pathSeparator).append(jar.toAbsolutePath());
        return ForkedJvm.run(ForkedJvm.java(), jvm, cp.toString(), APP);
    }

    @Test
    void eachConversationsRecordsCarryTheIdsOfTheSpanItRanIn() throws Exception {
        Files.writeString(dir.resolve("mail.yaml"), LIBRARY);
        Path bootstrapApi = dir.resolve("otel-first-no-api.jsonl");
        Path appApi = dir.resolve("tracegate-first-app-api.jsonl");
        ExecutorService pool = Executors.newFixedThreadPool(2);   // the OTel agent takes seconds of CPU to start: both at once
        Future<ForkedJvm.Result> first;
        Future<ForkedJvm.Result> second;
        try {
            first = pool.submit(() -> run(true, false, bootstrapApi));
            second = pool.submit(() -> run(false, true, appApi));
        } finally {
            pool.shutdown();
        }
        check("OTel first, no OpenTelemetry API in the application", first.get(), bootstrapApi);
        check("tracegate first, the application's own OpenTelemetry API", second.get(), appApi);

        ForkedJvm.Result verified = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify",
                bootstrapApi.toString(), appApi.toString()));
        assertThat(verified.exit()).as(verified.toString()).isZero();
        ForkedJvm.Result replayed = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "replay",
                dir.resolve("mail.yaml").toString(), appApi.toString(), "--no-progress"));
        assertThat(replayed.stdout()).as(replayed.toString()).contains("session bob:").contains("mail.no-send: violated first at")
                .contains("0 malformed lines skipped");
    }

    private static void check(String what, ForkedJvm.Result r, Path audit) throws IOException {
        assertThat(r.exit()).as(what + "\n" + r).isZero();
        assertThat(r.stdout()).as(what + "\n" + r).contains("TOOL lookupCustomer ran name=Alice").doesNotContain("TOOL sendEmail ran")
                .contains("DONE");
        assertThat(r.stderr()).as(what + "\n" + r).contains("opentelemetry-javaagent - version: 2.31.0")
                .doesNotContain("[tracegate] ERROR").doesNotContain("[tracegate] WARN could not read the current OpenTelemetry span");
        // the conversations' spans as OTel exported them: alice's conversation ends (and is exported) first
        List<String[]> spans = new ArrayList<>();
        Matcher m = EXPORTED.matcher(r.stderr());
        while (m.find()) spans.add(new String[] {m.group(1), m.group(2)});
        assertThat(spans).as(what + ": one span per conversation\n" + r.stderr()).hasSize(2);
        assertThat(spans.get(0)[0]).as(what + ": two requests, two traces").isNotEqualTo(spans.get(1)[0]);

        ObjectMapper json = new ObjectMapper();
        List<String> alice = new ArrayList<>();
        List<String> bob = new ArrayList<>();
        List<String> ends = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            if (!"event".equals(n.path("rec").asText())) continue;
            String kind = n.path("kind").asText();
            String ids = n.has("trace_id") ? n.path("trace_id").asText() + " " + n.path("span_id").asText() : "none";
            String seen = kind + " " + n.path("tool").asText() + " " + n.path("decision").asText() + " " + ids;
            if (kind.equals("end")) ends.add(seen);
            else if (n.path("session").asText().equals("alice")) alice.add(seen);
            else if (n.path("session").asText().equals("bob")) bob.add(seen);
        }
        String aliceIds = spans.get(0)[0] + " " + spans.get(0)[1];
        String bobIds = spans.get(1)[0] + " " + spans.get(1)[1];
        String log = Files.readString(audit);
        assertThat(alice).as(what + "\n" + log).contains("call lookupCustomer pass " + aliceIds, "return lookupCustomer pass " + aliceIds)
                .allMatch(s -> s.endsWith(" " + aliceIds));
        assertThat(bob).as(what + "\n" + log).contains("call sendEmail block " + bobIds).allMatch(s -> s.endsWith(" " + bobIds));
        assertThat(alice).as(what + ": the user message and the answer too\n" + log).anyMatch(s -> s.startsWith("user "))
                .anyMatch(s -> s.startsWith("assistant "));
        assertThat(ends).as(what + ": the sessions' ends, written at exit, carry no ids\n" + log).hasSize(2)
                .allMatch(s -> s.endsWith(" none"));
    }
}
