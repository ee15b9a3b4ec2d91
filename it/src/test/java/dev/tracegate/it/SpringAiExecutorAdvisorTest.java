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
 * What agent/README.md ("Model calls made during a request") tells an application whose advisor hands a model call to a
 * thread pool of its own (demoapp.springai.ExecutorAdvisorApp; each request's conversation id is its mode's name, the
 * summary names a card, which a per-conversation contract blocks): a {@code CompletableFuture} on the pool, blocking or
 * streamed, is not in the request's conversation (session {@code default}: the agent does not instrument the JDK's
 * executors); the two ways out are a {@code Prompt} that names the conversation in its {@code ToolContext} (blocking and
 * streamed) and, streamed, a Reactor scheduler over the pool ({@code Schedulers.fromExecutorService(pool)}), whose tasks
 * the schedule hook carries the conversation to; a blocking {@code adviseCall} that blocks on such a scheduler is not
 * carried (only a streamed request's conversation is). Real Spring AI 2.0.1 and 1.1.2, the agent jar in a forked JVM.
 */
class SpringAiExecutorAdvisorTest {

    private static final String APP = "demoapp.springai.ExecutorAdvisorApp";

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

    private void check(String line) throws Exception {
        Path library = Files.writeString(dir.resolve("trips.yaml"), LIBRARY);
        Path audit = dir.resolve(line + ".jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line), APP);
        String what = line + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        assertThat(r.stdout()).as(what).contains("DONE").doesNotContain("Exception");
        List<String> modes = List.of("call-future", "call-scheduler", "call-prompt", "stream-future", "stream-scheduler", "stream-prompt");
        for (String mode : modes) {
            // every summary ran on the application's pool, and its card was blocked (in whichever session it was)
            assertThat(r.stdout()).as(what).contains("SUMMARY " + mode + " on app-pool: [tracegate] No card numbers in answers.")
                    .contains("ANSWER " + mode + ": fine");
        }
        List<String> messages = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String text : Files.readAllLines(audit)) {
            JsonNode e = json.readTree(text);
            String kind = e.path("kind").asText();
            if ("event".equals(e.path("rec").asText()) && (kind.equals("user") || kind.equals("assistant"))) {
                messages.add(e.path("session").asText() + " " + kind + " " + e.path("text").asText() + " " + e.path("decision").asText());
            }
        }
        List<String> expected = new ArrayList<>();
        for (String mode : modes) {
            expected.add(mode + " user plan my trip pass");
            expected.add(mode + " assistant fine pass");
            // the request's conversation only where the Prompt names it, or streamed through a Reactor scheduler
            String session = mode.endsWith("-prompt") || mode.equals("stream-scheduler") ? mode : "default";
            expected.add(session + " user summarize for " + mode + " pass");
            expected.add(session + " assistant summary: 2 flights, paid with CARD-4242 block");
        }
        assertThat(messages).as(what).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void aModelCallOnTheApplicationsOwnPoolIsInTheConversationOnlyWhenItsPromptOrAReactorSchedulerCarriesIt() throws Exception {
        check("2.0.1");
    }

    @Test
    void onSpringAi11TheSame() throws Exception {
        check("1.1.2");
    }
}
