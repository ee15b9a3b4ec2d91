package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A LangChain4j 1.19.0 answer's {@code thinking} (a reasoning model's, which the application gets beside the text and
 * may show) is part of the answer's ASSISTANT event, after its text; an answer an answer contract replaces keeps no
 * thinking and no attribute that carries it or signs it ({@code thinking_signature}), as a replaced Spring AI message
 * drops its reasoning metadata. Before (trial47 02), the replaced answer kept the thinking, which held what was withheld,
 * and a clean text with the secret in its thinking was never checked. Blocking ({@code Result<String>}) and streamed
 * ({@code TokenStream}); real LangChain4j in a forked JVM, the app (demoapp.langchain4j.ThinkingAnswerApp) imports
 * nothing of tracegate.
 */
class LangChain4jThinkingAnswerTest {
    private static final String APP = "demoapp.langchain4j.ThinkingAnswerApp";
    private static final String NOTICE = "tracegate blocked model output (contract rule.blockOutput): it contains a forbidden word";
    private static final String REPLACED = "text=" + NOTICE + " thinking=null attributes={requestId=r-9}";

    private static ForkedJvm.Result run(String mode, String text, String thinking) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("trace=true,blockOutput=SECRET")),
                ForkedJvm.appClasspath(), APP, mode, text, thinking);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("DONE").doesNotContain("EXCEPTION").doesNotContain("TIMEOUT");
        return r;
    }

    @Test
    void aReplacedAnswerDropsItsThinkingAndItsSignature() {
        for (String mode : List.of("blocking", "stream")) {
            String framework = mode.equals("stream") ? "langchain4j-stream" : "langchain4j";
            ForkedJvm.Result r = run(mode, "Code SECRET-TOKEN-42", "The code is SECRET-TOKEN-42");
            assertThat(r.stdout()).as(mode + "\n" + r).contains("FINAL " + REPLACED).contains("MEMORY " + REPLACED)
                    .doesNotContain("SECRET-TOKEN-42").doesNotContain("sig-0042");
            assertThat(ForkedJvm.count(r.stderr(), "BLOCK ASSISTANT " + framework + " session=ada contract=rule.blockOutput")).as(mode + "\n" + r).isEqualTo(1);
        }
    }

    @Test
    void theThinkingIsCheckedWithTheText() {
        for (String mode : List.of("blocking", "stream")) {
            String framework = mode.equals("stream") ? "langchain4j-stream" : "langchain4j";
            ForkedJvm.Result r = run(mode, "All fine.", "The code is SECRET-TOKEN-42");
            assertThat(r.stdout()).as(mode + "\n" + r).contains("FINAL " + REPLACED).contains("MEMORY " + REPLACED)
                    .doesNotContain("SECRET-TOKEN-42");
            assertThat(r.stderr()).as(mode + "\n" + r).contains("BLOCK ASSISTANT " + framework + " session=ada contract=rule.blockOutput");

            // an answer whose text and thinking are clean comes as it was: its thinking and attributes kept
            ForkedJvm.Result clean = run(mode, "All fine.", "Nothing to hide.");
            String kept = "text=All fine. thinking=Nothing to hide. attributes={requestId=r-9, thinking_signature=sig-0042}";
            assertThat(clean.stdout()).as(mode + "\n" + clean).contains("FINAL " + kept).contains("MEMORY " + kept);
            assertThat(clean.stderr()).as(mode + "\n" + clean).contains("ASSISTANT " + framework + " session=ada -> KEEP");
        }
    }
}
