package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * tracegate beside the OpenTelemetry Java agent 2.31.0 (the usual production neighbour; trial31): the real OTel agent
 * jar (target/otel-javaagent, copied by the build from Maven Central) and the built tracegate jar in one forked JVM, in
 * both {@code -javaagent} orders, with a LangChain4j AI service of two conversations: alice's lookup passes, bob's
 * e-mail is blocked, under {@code block.style: exception} and {@code substitute}. Each order and style: the same
 * decisions, each tool call once in its session in the audit log, which verifies, no linkage error and no tracegate
 * ERROR; OTel loaded and traced the tool that ran (a method span on it), and none for the one that was refused.
 */
class BesideOtelAgentTest {

    private static final String APP = "demoapp.langchain4j.TwoConversationsApp";
    private static final String LIBRARY = String.join("\n",
            "library: mail",
            "contracts:",
            "  - id: mail.no-send",
            "    guarantee: G !call(sendEmail)",
            "    message: E-mail is not sent from here.",
            "    next: Save a draft instead.", "");

    @TempDir Path dir;

    private static Path otelAgent() {
        Path d = Path.of(System.getProperty("tracegate.app.classes", "target/classes")).resolveSibling("otel-javaagent");
        try (var files = Files.list(d)) {
            return files.filter(f -> f.getFileName().toString().startsWith("opentelemetry-javaagent")).findFirst()
                    .orElseThrow(() -> new IllegalStateException("no opentelemetry-javaagent jar in " + d
                            + " (the it module's generate-test-resources phase copies it)"));
        } catch (IOException e) {
            throw new IllegalStateException("no " + d + " (the it module's generate-test-resources phase copies the OTel agent there)", e);
        }
    }

    private static ForkedJvm.Result result(java.util.concurrent.Future<ForkedJvm.Result> run) {
        try {
            return run.get();   // ForkedJvm's own timeout ends a hung JVM
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof Error error) throw error;
            throw new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private ForkedJvm.Result run(boolean otelFirst, String style, Path audit) {
        String tracegate = ForkedJvm.agent("libraries=" + dir.resolve("mail.yaml") + ",audit.path=" + audit + ",block.style=" + style);
        String otel = "-javaagent:" + otelAgent();
        List<String> jvm = new ArrayList<>(otelFirst ? List.of(otel, tracegate) : List.of(tracegate, otel));
        jvm.addAll(List.of("-Dotel.traces.exporter=logging", "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none",
                // OTel's own span around each tool method, as a user who traces the tools sets it
                "-Dotel.instrumentation.methods.include=demoapp.langchain4j.LangChain4jApp$ShopTools[sendEmail,lookupCustomer]"));
        return ForkedJvm.run(ForkedJvm.java(), jvm, ForkedJvm.appClasspath(), APP);
    }

    @Test
    void bothOrdersAndBothBlockStylesDecideAuditAndTraceAsTracegateAlone() throws IOException {
        Files.writeString(dir.resolve("mail.yaml"), LIBRARY);
        // OTel's agent takes seconds of CPU to start: the four JVMs run two at a time, then each is checked
        java.util.Map<String, java.util.concurrent.Future<ForkedJvm.Result>> runs = new java.util.LinkedHashMap<>();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(2);
        try {
            for (boolean otelFirst : new boolean[] {true, false}) {
                for (String style : new String[] {"exception", "substitute"}) {
                    Path audit = dir.resolve((otelFirst ? "otel-tg-" : "tg-otel-") + style + ".jsonl");
                    runs.put((otelFirst ? "otel-tg-" : "tg-otel-") + style, pool.submit(() -> run(otelFirst, style, audit)));
                }
            }
        } finally {
            pool.shutdown();
        }
        List<Path> audits = new ArrayList<>();
        for (boolean otelFirst : new boolean[] {true, false}) {
            for (String style : new String[] {"exception", "substitute"}) {
                String what = (otelFirst ? "OTel first" : "tracegate first") + ", block.style " + style;
                Path audit = dir.resolve((otelFirst ? "otel-tg-" : "tg-otel-") + style + ".jsonl");
                ForkedJvm.Result r = result(runs.get((otelFirst ? "otel-tg-" : "tg-otel-") + style));
                assertThat(r.exit()).as(what + "\n" + r).isZero();
                String out = r.stdout();
                String err = r.stderr();
                assertThat(out).as(what + "\n" + r)
                        .contains("TOOL lookupCustomer ran name=Alice")
                        .contains("ANSWER alice: done: {\"name\":\"Alice\"")
                        .doesNotContain("TOOL sendEmail ran")
                        .contains("DONE");
                if (style.equals("exception")) {
                    assertThat(out).as(what + "\n" + r).contains("CONVERSATION bob ENDED")
                            .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to"
                                    + " sendEmail (contract mail.no-send)");
                } else {
                    assertThat(out).as(what + "\n" + r).contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to"
                            + " sendEmail (contract mail.no-send)").contains("ANSWER bob: done:");
                }
                assertThat(err).as(what + "\n" + r)
                        .contains("opentelemetry-javaagent - version: 2.31.0")
                        .contains("[tracegate] BLOCK langchain4j session=bob tool=sendEmail contract=mail.no-send ("
                                + (style.equals("exception") ? "throw" : "substitute") + ")")
                        .doesNotContain("VerifyError").doesNotContain("LinkageError").doesNotContain("[tracegate] ERROR");
                assertThat(ForkedJvm.count(err, "LoggingSpanExporter - 'ShopTools.lookupCustomer'")).as(what + ": OTel traced the tool that ran\n" + r).isEqualTo(1);
                assertThat(err).as(what + ": the refused tool never ran, so OTel has no span of it").doesNotContain("'ShopTools.sendEmail'");

                List<JsonNode> calls = records(audit, "call");
                assertThat(calls).as(what + ": each tool call once, in its session\n" + Files.readString(audit)).hasSize(2);
                assertThat(calls.get(0).path("session").asText() + " " + calls.get(0).path("tool").asText() + " "
                        + calls.get(0).path("decision").asText()).as(what).isEqualTo("alice lookupCustomer pass");
                assertThat(calls.get(1).path("session").asText() + " " + calls.get(1).path("tool").asText() + " "
                        + calls.get(1).path("decision").asText()).as(what).isEqualTo("bob sendEmail block");
                assertThat(records(audit, "return")).as(what + ": the lookup's result, once").singleElement()
                        .satisfies(n -> assertThat(n.path("session").asText() + " " + n.path("tool").asText()).isEqualTo("alice lookupCustomer"));
                audits.add(audit);
            }
        }
        List<String> verify = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify"));
        for (Path a : audits) verify.add(a.toString());
        ForkedJvm.Result verified = ForkedJvm.exec(verify);
        assertThat(verified.exit()).as(verified.toString()).isZero();
        for (Path a : audits) assertThat(verified.stdout()).as(verified.toString()).contains(a + ": ok: ");
    }

    private static List<JsonNode> records(Path audit, String kind) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(line);
            if ("event".equals(node.path("rec").asText()) && kind.equals(node.path("kind").asText())) out.add(node);
        }
        return out;
    }
}
