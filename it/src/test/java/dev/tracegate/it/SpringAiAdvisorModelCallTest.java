package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial28 repro 02 case B (demoapp.springai.AdvisorModelCallApp): an application's advisor of a streamed
 * {@code ChatClient} request (conversation {@code trip}) returns a {@code Flux} that calls another model on a Reactor
 * worker of its own, {@code Mono.fromCallable(() -> summarizer.call(prompt)).subscribeOn(Schedulers.boundedElastic())},
 * concatenated after the rest of the chain or before it. That call's USER and ASSISTANT are the request's conversation's
 * (before, session {@code default}, where a per-conversation contract never saw them), and its card number is blocked
 * there; model calls made afterwards outside any request, on the main thread and on a worker, are in {@code default}
 * (the conversation does not stay on the threads). Real Spring AI 2.0.1 and 1.1.2, the agent jar in a forked JVM.
 */
class SpringAiAdvisorModelCallTest {

    private static final String APP = "demoapp.springai.AdvisorModelCallApp";

    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: trips",
            "contracts:",
            "  - id: trips.no-card",
            "    guarantee: G !output_matches(\"CARD-[0-9]{4}\")",
            "    message: No card numbers in answers.",
            "");

    @TempDir
    Path dir;

    private void check(String line, String... args) throws Exception {
        check(line, List.of(), args);
    }

    private void check(String line, List<String> first, String... args) throws Exception {
        Path library = Files.writeString(dir.resolve("trips.yaml"), LIBRARY);
        String name = line + "-" + String.join("-", args);
        Path audit = dir.resolve(name + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line), APP, args);
        String what = name + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        assertThat(r.stdout()).as(what).contains("SUMMARY on boundedElastic-").contains("ANSWER: fine").contains("DONE")
                .doesNotContain("Exception");
        List<String> messages = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String text : Files.readAllLines(audit)) {
            JsonNode e = json.readTree(text);
            String kind = e.path("kind").asText();
            if ("event".equals(e.path("rec").asText()) && (kind.equals("user") || kind.equals("assistant"))) {
                messages.add(e.path("session").asText() + " " + kind + " " + e.path("text").asText() + " " + e.path("decision").asText());
            }
        }
        // the advisor's own model call is in the request's conversation, its card blocked there; the later calls in default
        List<String> expected = new ArrayList<>(first);
        expected.addAll(List.of(
                "trip user plan my trip pass",
                "trip assistant fine pass",
                "trip user summarize ZRH-LIS pass",
                "trip assistant summary: 2 flights, paid with CARD-4242 block",
                "default user summarize later on main pass",
                "default assistant summary: 2 flights, paid with CARD-4242 block",
                "default user summarize later on a worker pass",
                "default assistant summary: 2 flights, paid with CARD-4242 block"));
        assertThat(messages).as(what).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void anAdvisorsModelCallOnItsOwnWorkerAfterTheChainIsInTheRequestsConversation() throws Exception {
        check("2.0.1", "after");
    }

    @Test
    void anAdvisorsModelCallOnItsOwnWorkerBeforeTheChainIsInTheRequestsConversation() throws Exception {
        check("2.0.1", "before");
    }

    /** The model streams from a thread Reactor did not schedule (an HTTP client's event loop): its end carries it. */
    @Test
    void anAdvisorsModelCallAfterAModelStreamedFromAThreadOfItsOwnIsInTheRequestsConversation() throws Exception {
        check("2.0.1", "after", "model-thread");
    }

    /** A request whose model's stream fails comes first: its advisor's call is its own, and nothing stays on the threads. */
    @Test
    void aFailedStreamLeavesNoConversationOnTheThreads() throws Exception {
        check("2.0.1", List.of("failed user plan my trip pass", "failed user summarize ZRH-LIS pass",
                "failed assistant summary: 2 flights, paid with CARD-4242 block"), "before", "fail-first");
    }

    @Test
    void onSpringAi11AnAdvisorsModelCallOnItsOwnWorkerIsInTheRequestsConversation() throws Exception {
        check("1.1.2", "after");
        check("1.1.2", "before");
        check("1.1.2", "after", "model-thread");
    }
}
