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
 * An "agent as a tool" on LangChain4j 1.19.0 and 1.11.0 (demoapp.langchain4j.SubAgentApp): a tool of conversation {@code trip}
 * invokes an AI service of its own (chat memory id {@code trip-sub}) whose model asks for three cancellations, one more
 * than the contract allows. The sub-agent's tool calls are calls of their own, supervised in its conversation (before,
 * they ran unsupervised: no record, nothing blocked, taken for layers of the enclosing tool call), each recorded once.
 */
class LangChain4jSubAgentTest {

    private static final String APP = "demoapp.langchain4j.SubAgentApp";

    private static final String LIBRARY = String.join("\n",
            "tracegate: 1",
            "library: trips",
            "contracts:",
            "  - id: trips.max-two-cancels",
            "    guarantee: G(count(cancelBooking) <= 2)",
            "    message: At most two cancellations per conversation.",
            "");

    @TempDir
    Path dir;

    private static List<String> calls(List<JsonNode> events, String session, String tool, String kind) {
        List<String> found = new ArrayList<>();
        for (JsonNode e : events) {
            if (kind.equals(e.path("kind").asText()) && session.equals(e.path("session").asText()) && tool.equals(e.path("tool").asText())) {
                found.add(e.path("decision").asText());
            }
        }
        return found;
    }

    private void checkSupervised(String mode) throws IOException {
        checkSupervised("1.19.0", mode);
    }

    private void checkSupervised(String line, String mode) throws IOException {
        Path library = Files.writeString(dir.resolve("trips.yaml"), LIBRARY);
        Path audit = dir.resolve(line + "-" + mode + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("1.19.0") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("langchain4j-" + line), APP, mode);
        String what = line + " " + mode + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        // the third cancellation is blocked in the sub-agent's conversation: the tool ran twice, the model was told
        assertThat(r.stdout()).as(what)
                .contains("TOOL delegateCancellations ran bookings=B1,B2,B3")
                .contains("TOOL cancelBooking ran booking=B1")
                .contains("TOOL cancelBooking ran booking=B2")
                .doesNotContain("TOOL cancelBooking ran booking=B3")
                .contains("SUB-AGENT ANSWER: done: \"cancelled B1\"; \"cancelled B2\"; \"tracegate blocked the call to cancelBooking")
                .contains("ANSWER: done: ");
        List<JsonNode> events = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String text : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(text);
            if ("event".equals(node.path("rec").asText())) {
                events.add(node);
            }
        }
        String log = what + "\n" + events;
        // the sub-agent's three calls are CALL events of its conversation, each once, the third blocked
        assertThat(calls(events, "trip-sub", "cancelBooking", "call")).as(log).containsExactly("pass", "pass", "block");
        assertThat(calls(events, "trip-sub", "cancelBooking", "return")).as(log).hasSize(2);
        // the delegating call is the outer conversation's, once, and none of the sub-agent's calls are
        assertThat(calls(events, "trip", "delegateCancellations", "call")).as(log).containsExactly("pass");
        assertThat(calls(events, "trip", "delegateCancellations", "return")).as(log).hasSize(1);
        assertThat(calls(events, "trip", "cancelBooking", "call")).as(log).isEmpty();
        // the sub-agent's own model turn is its conversation's; the outer answer is the outer conversation's
        List<String> messages = new ArrayList<>();
        for (JsonNode e : events) {
            String kind = e.path("kind").asText();
            if (kind.equals("user") || kind.equals("assistant")) {
                messages.add(e.path("session").asText() + " " + kind);
            }
        }
        assertThat(messages).as(log).contains("trip user", "trip-sub user", "trip-sub assistant", "trip assistant");
        assertThat(messages.get(messages.size() - 1)).as(log).isEqualTo("trip assistant");
    }

    @Test
    void aSubAgentInvokedInsideAToolHasItsToolCallsSupervisedInItsConversation() throws IOException {
        checkSupervised("blocking");
    }

    /** A streaming sub-agent whose model answers on the tool's own thread: its tools run inside the enclosing tool call. */
    @Test
    void aStreamingSubAgentAnsweredOnTheToolsThreadIsSupervised() throws IOException {
        checkSupervised("sub-stream");
    }

    /** The sub-agent's first invocation throws (its model fails): the scope is put back, the second one is supervised. */
    @Test
    void aSubAgentInvocationThatThrowsLeavesTheNextOneSupervised() throws IOException {
        checkSupervised("sub-fails");
    }

    @Test
    void onLangChain4j111TheSubAgentIsSupervisedToo() throws IOException {
        checkSupervised("1.11.0", "blocking");
        checkSupervised("1.11.0", "sub-stream");
        checkSupervised("1.11.0", "sub-fails");
    }
}
