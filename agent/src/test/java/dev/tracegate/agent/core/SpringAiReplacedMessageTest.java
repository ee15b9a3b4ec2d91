package dev.tracegate.agent.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A message tracegate replaces on the Spring AI 2.0.1 path (a blocked answer's notice, the text beside a request for
 * tools, a refused user message) keeps the original's identity and the application's metadata, and its media and tool
 * calls, but not what carries the replaced text (a provider's copy of its reasoning, a refusal, a copy under another
 * key). Before, it depended on the path: an answer's notice lost everything (its message id and finish reason), the
 * text beside tool calls kept everything (the reasoning that named the withheld account), and a replaced user message
 * lost its metadata and its image. Real Spring AI classes, woven by the agent in a forked JVM.
 */
class SpringAiReplacedMessageTest {
    @TempDir Path dir;

    @Test
    void aReplacedMessageKeepsItsIdentityMediaAndToolCallsButNotWhatCarriesTheReplacedText() throws Exception {
        Path lib = Files.writeString(dir.resolve("replaced.yaml"), """
                library: replaced
                contracts:
                  - id: no-account
                    guarantee: G !output_matches("ACCT-[0-9]+")
                    strategy: block
                    message: Account numbers are not shown.
                  - id: no-project
                    assume: G !user_matches("project-x")
                    guarantee: "true"
                    strategy: suppress
                    message: Project X is not discussed.
                """);
        Path yaml = Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [" + lib + "]\n"
                + "audit.path: " + dir.resolve("audit.jsonl") + "\n"
                + "warmup: false\n");

        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + yaml, "example.springai.Isolated", null, null);

        assertThat(run.code()).as(run.err()).isZero();
        String answer = line(run.out(), "answer: ");
        String tools = line(run.out(), "tools: ");
        String user = run.out().lines().filter(l -> l.startsWith("model got: ")).reduce((a, b) -> b).orElseThrow();
        for (String replaced : new String[] {answer, tools}) {
            assertThat(replaced).as("the notice, not the account; stderr:\n%s", run.err()).doesNotContain("ACCT-4242").contains("Account numbers are not shown");
            assertThat(replaced).as("its identity and the provider's bookkeeping are kept")
                    .contains("id=chatcmpl-7").contains("finishReason=STOP").contains("index=0").contains("role=ASSISTANT")
                    .contains("messageType=ASSISTANT");
            assertThat(replaced).as("what carries the withheld text is not").doesNotContain("reasoningContent").doesNotContain("refusal=");
        }
        assertThat(answer).endsWith("media=0 toolCalls=0");
        assertThat(tools).as("the request for tools is kept (its calls are decided when they run)").endsWith("media=0 toolCalls=1");
        assertThat(user).as("the model gets the refusal, not the message; out:\n%s\nerr:\n%s", run.out(), run.err()).doesNotContain("project-x")
                .contains("Project X is not discussed");
        assertThat(user).as("the application's metadata and the image are kept").contains("messageId=u-3").contains("source=web")
                .contains("messageType=USER").endsWith("media=1");
        assertThat(user).as("a copy of the refused text under another key is not").doesNotContain("preview");
    }

    private static String line(String out, String prefix) {
        return out.lines().filter(l -> l.startsWith(prefix)).findFirst().orElseThrow(() -> new AssertionError("no '" + prefix + "' in:\n" + out));
    }
}
