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
 * An "agent as a tool" on Spring AI (demoapp.springai.SubAgentApp): a tool of conversation {@code trip} makes a
 * {@code ChatClient} request of its own (conversation {@code trip-sub}) whose model asks for three cancellations, one
 * more than the contract allows. The sub-agent's tool calls are calls of their own, supervised in its conversation
 * (before, a blocking sub-request's calls ran unsupervised: no record, nothing blocked), while each call is still
 * recorded once.
 */
class SpringAiSubAgentTest {

    private static final String APP = "demoapp.springai.SubAgentApp";

    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: trips",
            "contracts:",
            "  - id: trips.max-two-cancels",
            "    guarantee: G(count(cancelBooking) <= 2)",
            "    message: At most two cancellations per conversation.",
            "  - id: trips.no-card",
            "    guarantee: G !output_matches(\"CARD-[0-9]{4}\")",
            "    message: No card numbers in answers.",
            "");

    @TempDir
    Path dir;

    private List<JsonNode> run(String line, String name, String... args) throws IOException {
        Path library = Files.writeString(dir.resolve("trips.yaml"), LIBRARY);
        Path audit = dir.resolve(name + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line), APP, args);
        String what = line + " " + name + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        List<JsonNode> events = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String text : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(text);
            if ("event".equals(node.path("rec").asText())) {
                events.add(node);
            }
        }
        if (List.of(args).contains("--summarize") || List.of(args).contains("--summarize-streaming")) {
            return events;
        }
        assertThat(r.stdout()).as(what)
                .contains("TOOL cancelBooking ran booking=B1")
                .contains("TOOL cancelBooking ran booking=B2")
                .doesNotContain("TOOL cancelBooking ran booking=B3")
                .contains("SUB-AGENT ANSWER: done: \"cancelled B1\"; \"cancelled B2\"; tracegate blocked the call to cancelBooking")
                .contains("ANSWER: done: ");
        return events;
    }

    private static List<String> calls(List<JsonNode> events, String session, String tool, String kind) {
        List<String> found = new ArrayList<>();
        for (JsonNode e : events) {
            if (kind.equals(e.path("kind").asText()) && session.equals(e.path("session").asText()) && tool.equals(e.path("tool").asText())) {
                found.add(e.path("decision").asText());
            }
        }
        return found;
    }

    private void checkSupervised(String line, String name, String... args) throws IOException {
        List<JsonNode> events = run(line, name, args);
        String log = line + " " + name + ": " + events;
        // the sub-agent's three calls are CALL events of its conversation, each once, the third blocked
        assertThat(calls(events, "trip-sub", "cancelBooking", "call")).as(log).containsExactly("pass", "pass", "block");
        assertThat(calls(events, "trip-sub", "cancelBooking", "return")).as(log).hasSize(2);
        // the delegating call is the outer conversation's, once
        assertThat(calls(events, "trip", "delegateCancellations", "call")).as(log).containsExactly("pass");
        assertThat(calls(events, "trip", "delegateCancellations", "return")).as(log).hasSize(1);
        assertThat(calls(events, "trip", "cancelBooking", "call")).as(log).isEmpty();
        // the sub-agent's own model turn is its conversation's too
        boolean subUser = false;
        for (JsonNode e : events) {
            subUser |= "user".equals(e.path("kind").asText()) && "trip-sub".equals(e.path("session").asText());
        }
        assertThat(subUser).as(log).isTrue();
    }

    @Test
    void aBlockingSubAgentRequestInsideAToolHasItsToolCallsSupervisedInItsConversation() throws IOException {
        checkSupervised("2.0.1", "blocking");
    }

    @Test
    void aBlockingSubAgentInsideAToolOfAStreamedRequestIsSupervised() throws IOException {
        checkSupervised("2.0.1", "streamed", "--stream");
    }

    /** A model that runs its rounds' tools itself (1.x provider models): the sub-agent runs inside the outer model call. */
    @Test
    void aSubAgentInsideAToolThatTheModelRunsItselfIsSupervised() throws IOException {
        checkSupervised("2.0.1", "model-loop", "--model-loop");
    }

    @Test
    void aStreamedSubAgentIsSupervisedAsBefore() throws IOException {
        checkSupervised("2.0.1", "sub-stream", "--sub-stream");
    }

    /**
     * A tool whose body calls the model itself (a summarizer, no ChatClient): its ASSISTANT is the request's
     * conversation's, blocking and streamed (the tool then runs on a Reactor worker; before, it went to "default"
     * there), and the card number in its answer is blocked in that conversation. Its prompt, which the tool built, is
     * no USER event (since session 23: before, it was a second USER event of the conversation, so what the tool had the
     * model read counted as the user's words, trial47 05).
     */
    @Test
    void aToolsOwnModelCallIsInTheRequestsConversationBlockingAndStreamed() throws IOException {
        for (String mode : List.of("blocking", "streamed")) {
            List<JsonNode> events = mode.equals("streamed") ? run("2.0.1", "summarize-" + mode, "--summarize", "--stream")
                    : run("2.0.1", "summarize-" + mode, "--summarize");
            String log = mode + ": " + events;
            List<String> messages = new ArrayList<>();
            for (JsonNode e : events) {
                String kind = e.path("kind").asText();
                if (kind.equals("user") || kind.equals("assistant") || !e.path("session").asText().equals("trip")) {
                    messages.add(e.path("session").asText() + " " + kind + " " + e.path("decision").asText());
                }
            }
            // the outer USER, the tool's blocked ASSISTANT (the card; its prompt no USER), the outer ASSISTANT; nothing elsewhere
            assertThat(messages).as(log).containsExactly("trip user pass", "trip assistant block", "trip assistant pass");
        }
    }

    /**
     * The same summariser with its body streaming the model ({@code ChatModel#stream}, no ChatClient): its prompt is no
     * USER event either (before session 25 it was, so text the tool had the model read counted as the user's words);
     * a streamed sub-agent's request keeps its USER in its own conversation ({@link #aStreamedSubAgentIsSupervisedAsBefore}).
     */
    @Test
    void aToolBodyThatStreamsTheModelRecordsNoUserEvent() throws IOException {
        for (String mode : List.of("blocking", "streamed")) {
            List<JsonNode> events = mode.equals("streamed") ? run("2.0.1", "summarize-streaming-" + mode, "--summarize-streaming", "--stream")
                    : run("2.0.1", "summarize-streaming-" + mode, "--summarize-streaming");
            List<String> users = new ArrayList<>();
            for (JsonNode e : events) {
                if (e.path("kind").asText().equals("user")) users.add(e.path("session").asText() + " " + e.path("text").asText());
            }
            assertThat(users).as(mode + ": " + events).containsExactly("trip please handle my trip");
            assertThat(events.stream().filter(e -> e.path("kind").asText().equals("assistant")).map(e -> e.path("session").asText()))
                    .as(mode + ": " + events).containsOnly("trip");
        }
    }

    @Test
    void onSpringAi11TheSubAgentIsSupervisedToo() throws IOException {
        checkSupervised("1.1.2", "v11", "--tool-advisor");
        checkSupervised("1.1.2", "v11-model-loop", "--model-loop");
    }
}
