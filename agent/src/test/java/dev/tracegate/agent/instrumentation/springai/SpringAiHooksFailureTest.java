package dev.tracegate.agent.instrumentation.springai;

import dev.tracegate.agent.bootstrap.DispatchTarget;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.prompt.Prompt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Spring AI's note-taking advices' own failures (session 19: FormatAdvice and AugmentAdvice ran under Byte Buddy's
 * suppress, so a failure was printed, counted nowhere, and the request went on unnoted whatever fail: said). Induced by
 * calling the advice methods as the woven code does with a request whose prompt's user message cannot be read.
 */
class SpringAiHooksFailureTest {

    /** Records what the dispatcher asks of the failure policy; returns {@code policy} (null: fail open). */
    static final class Policy implements DispatchTarget {
        final Ruling policy;
        final List<String> asked = new ArrayList<>();

        Policy(Ruling policy) {
            this.policy = policy;
        }

        public Ruling onToolCall(String f, String s, String t, String a, String c) { return null; }
        public String onToolResult(String f, String s, String t, String c, String r, boolean e) { return null; }
        public Object onToolResultObject(String f, String s, String t, String c, Object r) { return null; }
        public String onUserMessage(String f, String s, String t) { return null; }
        public String onAssistantMessage(String f, String s, String t) { return null; }
        public Ruling onMethodCall(String o, Object[] a, String id) { return null; }
        public Object onMethodResult(String o, Object[] a, Object r, String id) { return null; }
        public String toJson(Object v) { return "{}"; }
        public Object fromJson(String j) { return null; }
        public Ruling onInternalError(String where, Throwable error) { return policy; }

        @Override
        public Ruling onAdviceFailure(String where, Throwable error, boolean repeated) {
            asked.add(where + (repeated ? " (repeated)" : "") + ": " + error.getMessage());
            return policy;
        }
    }

    @AfterEach
    void uninstall() {
        Dispatcher.install(null);
    }

    /** A request whose prompt's user message cannot be read. */
    private static ChatClientRequest unreadable() {
        return unreadable(new IllegalStateException("induced: user message"));
    }

    /** As above, failing with {@code error} (its class tells a test's first failure from another's, each logged once). */
    private static ChatClientRequest unreadable(RuntimeException error) {
        Prompt prompt = new Prompt(new UserMessage("What is the order status?")) {
            @Override
            public UserMessage getUserMessage() {
                throw error;
            }
        };
        return new ChatClientRequest(prompt, Map.of());
    }

    private static ChatClientRequest readable() {
        return new ChatClientRequest(new Prompt(new UserMessage("What is the order status?\nYour response should be in JSON format.")), Map.of());
    }

    @Test
    void aFormatNoteThatFailsIsCountedAndGoesOnUnderFailOpen() {
        Policy open = new Policy(null);
        Dispatcher.install(open);
        long before = Dispatcher.internalErrors();
        SpringAiHooks.FormatAdvice.exit(unreadable(), readable());
        SpringAiHooks.FormatAdvice.exit(unreadable(), readable());
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(2);
        assertThat(open.asked).containsExactly("springai structured output format: induced: user message",
                "springai structured output format (repeated): induced: user message");
    }

    @Test
    void aFormatNoteThatFailsRefusesTheRequestUnderFailClosed() {
        Dispatcher.install(new Policy(Ruling.substitute("refused: internal error")));
        long before = Dispatcher.internalErrors();
        assertThatThrownBy(() -> SpringAiHooks.FormatAdvice.exit(unreadable(new UnsupportedOperationException("induced")), readable()))
                .isInstanceOf(TracegateViolation.class).hasMessageContaining("refused: internal error");
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
    }

    /**
     * A retrieval augmentation's note follows fail: as the format note does: unnoted, the retrieved documents would count
     * as the user's own words (session 19: counted only, so closed let the request through).
     */
    @Test
    void anAugmentationNoteThatFailsRefusesTheRequestUnderFailClosed() {
        Policy closed = new Policy(Ruling.substitute("refused: internal error"));
        Dispatcher.install(closed);
        long before = Dispatcher.internalErrors();
        assertThatThrownBy(() -> SpringAiHooks.AugmentAdvice.exit(unreadable(), readable()))
                .isInstanceOf(TracegateViolation.class).hasMessageContaining("refused: internal error");
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
        assertThat(closed.asked).containsExactly("springai retrieval augmentation: induced: user message");
    }

    @Test
    void anAugmentationNoteThatFailsIsCountedAndGoesOnUnderFailOpen() {
        Policy open = new Policy(null);
        Dispatcher.install(open);
        long before = Dispatcher.internalErrors();
        SpringAiHooks.AugmentAdvice.exit(unreadable(new ArithmeticException("induced: augmentation")), readable());
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
        assertThat(open.asked).containsExactly("springai retrieval augmentation: induced: augmentation");
        assertThat(Dispatcher.ownUserText("What is the order status?\nYour response should be in JSON format."))
                .as("nothing noted").isEqualTo("What is the order status?\nYour response should be in JSON format.");
    }
}
