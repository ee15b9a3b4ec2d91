package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user message tracegate replaces on the LangChain4j 1.19.0 path (suppressed: the notice; redacted: the masked text)
 * keeps the rest of the original, as Spring AI's does (df5083f): its name, its non-text contents (an image) and its
 * attributes, less an attribute that carries the replaced text. Real LangChain4j, the agent jar in a forked JVM; the
 * application (demoapp.langchain4j.ReplacedUserMessageApp) imports nothing of tracegate.
 */
class LangChain4jReplacedUserMessageTest {
    private static final String APP = "demoapp.langchain4j.ReplacedUserMessageApp";
    private static final String NOTICE = "[withheld by tracegate: this user message breaks an assumption of contract rule.suppressUser]";

    private static ForkedJvm.Result run(String mode) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("suppressUser=password")), ForkedJvm.appClasspath(), APP, mode);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).contains("DONE");
        return r;
    }

    @Test
    void aReplacedUserMessageKeepsItsNameImageAndAttributesButNotWhatCarriesTheText() {
        ForkedJvm.Result r = run("direct");
        String text = r.stdout().substring(r.stdout().indexOf("TURN text\n"), r.stdout().indexOf("TURN text and image"));
        String image = r.stdout().substring(r.stdout().indexOf("TURN text and image"));

        assertThat(text).as(r.toString()).contains("MODEL SAW USER name=ada contents=[text:" + NOTICE + "; ] attributes={requestId=r-7}");
        // before, a message with an image beside its text was not checked at all: the model saw the password
        assertThat(image).as(r.toString()).contains("MODEL SAW USER name=ada contents=[text:" + NOTICE
                + "; image:https://example.com/cat.png; ] attributes={requestId=r-7}");
        assertThat(r.stdout()).as("the text and the application's copy of it under 'preview'").doesNotContain("hunter2");
        assertThat(ForkedJvm.count(r.stderr(), "SUPPRESS USER langchain4j session=default")).as(r.toString()).isEqualTo(2);
    }

    /**
     * An AI service stores the turn's user message in its chat memory before it calls the model; before, only the model's
     * request got the notice, the memory kept the original, and the next turn sent it to the model. Now the memory holds
     * the notice too.
     */
    @Test
    void theChatMemoryKeepsTheReplacementSoALaterTurnDoesNotSendTheOriginal() {
        ForkedJvm.Result r = run("memory");
        String turn2 = r.stdout().substring(r.stdout().indexOf("TURN 2"));

        assertThat(turn2).as(r.toString()).contains("MODEL SAW USER name=null contents=[text:" + NOTICE + "; ] attributes={}")
                .contains("MODEL SAW USER name=null contents=[text:what is the weather?; ] attributes={}");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("hunter2");
        assertThat(ForkedJvm.count(r.stderr(), "SUPPRESS USER langchain4j session=ada")).as("once, at turn 1\n" + r).isEqualTo(1);
    }

    /** The same in a streaming AI service ({@code TokenStream}): its chat memory holds the notice, not the original. */
    @Test
    void aStreamingAiServicesChatMemoryKeepsTheReplacementToo() {
        ForkedJvm.Result r = run("stream-memory");
        String turn2 = r.stdout().substring(r.stdout().indexOf("TURN 2"));

        assertThat(turn2).as(r.toString()).contains("MODEL SAW USER name=null contents=[text:" + NOTICE + "; ] attributes={}")
                .contains("MODEL SAW USER name=null contents=[text:what is the weather?; ] attributes={}");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("hunter2").doesNotContain("TIMEOUT");
        assertThat(ForkedJvm.count(r.stderr(), "SUPPRESS USER langchain4j session=ada")).as("once, at turn 1\n" + r).isEqualTo(1);
    }
}
