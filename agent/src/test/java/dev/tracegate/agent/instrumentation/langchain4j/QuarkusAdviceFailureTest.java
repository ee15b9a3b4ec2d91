package dev.tracegate.agent.instrumentation.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * quarkus-langchain4j's advices' own failures (session 19: they ran under Byte Buddy's suppress, so a failure was printed,
 * counted nowhere, and the invocation or the streamed answer went on whatever fail: said). Induced as in
 * {@link LangChain4jHooksFailureTest}: the advice methods are called as the woven code calls them, with framework objects
 * that throw (managed parameters whose isEmpty() throws, an answer whose text() throws, a handler whose
 * onPartialResponse throws).
 */
class QuarkusAdviceFailureTest {

    @AfterEach
    void uninstall() {
        Dispatcher.install(null);
    }

    private static InvocationContext unreadableManagedParameters() {
        return unreadableManagedParameters(new IllegalStateException("induced: managed parameters"));
    }

    /** As above, failing with {@code error} (its class tells a test's first failure from another's, each logged once). */
    private static InvocationContext unreadableManagedParameters(RuntimeException error) {
        Map<Class<? extends dev.langchain4j.invocation.LangChain4jManaged>, dev.langchain4j.invocation.LangChain4jManaged> broken =
                new AbstractMap<>() {
                    @Override
                    public boolean isEmpty() {
                        throw error;
                    }

                    @Override
                    public Set<Entry<Class<? extends dev.langchain4j.invocation.LangChain4jManaged>, dev.langchain4j.invocation.LangChain4jManaged>> entrySet() {
                        throw error;
                    }
                };
        return InvocationContext.builder().chatMemoryId("alice").managedParameters(broken).build();
    }

    @Test
    void anInvocationWhoseSessionCannotBeReadIsCountedAndRunsUnderFailOpen() {
        LangChain4jHooksFailureTest.Policy open = new LangChain4jHooksFailureTest.Policy(null);
        Dispatcher.install(open);
        int[] depth = Dispatcher.depthCell();
        depth[0] = 3;   // inside an enclosing tool call: the invocation is a nesting scope of its own all the same
        long before = Dispatcher.internalErrors();
        Object previous = QuarkusAdvice.InvocationAdvice.enter(null, unreadableManagedParameters(), null, null, 0, 0, null);
        try {
            assertThat(Dispatcher.internalErrors() - before).as("counted").isEqualTo(1);
            assertThat(open.asked).containsExactly("langchain4j quarkus invocation: induced: managed parameters");
            assertThat(depth[0]).as("a scope of its own").isZero();
        } finally {
            QuarkusAdvice.InvocationAdvice.exit(previous, depth, 3, 0, null);
        }
        assertThat(depth[0]).isEqualTo(3);
        depth[0] = 0;
    }

    @Test
    void anInvocationWhoseSessionCannotBeReadIsRefusedUnderFailClosedAndLeavesTheThreadAsItWas() {
        Dispatcher.install(new LangChain4jHooksFailureTest.Policy(Ruling.substitute("refused: internal error")));
        int[] depth = Dispatcher.depthCell();
        depth[0] = 2;
        Object tools = Dispatcher.tools();
        long before = Dispatcher.internalErrors();
        try {
            assertThatThrownBy(() -> QuarkusAdvice.InvocationAdvice.enter(null, unreadableManagedParameters(new UnsupportedOperationException("induced")), null, null, 0, 0, null))
                    .isInstanceOf(TracegateViolation.class).hasMessageContaining("refused: internal error");
            assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
            // the exit does not run when the enter throws: nothing may have been changed
            assertThat(depth[0]).isEqualTo(2);
            assertThat(Dispatcher.tools()).isSameAs(tools);
        } finally {
            depth[0] = 0;
        }
    }

    /** A streaming handler that records what the advice hands it. */
    static final class Handler implements StreamingChatResponseHandler {
        final List<String> seen = new ArrayList<>();
        final boolean partialThrows;

        Handler(boolean partialThrows) {
            this.partialThrows = partialThrows;
        }

        @Override
        public void onPartialResponse(String partial) {
            if (partialThrows) throw new UnsupportedOperationException("induced: partial response");   // not the other tests' class: each place and class is logged once
            seen.add("partial " + partial);
        }

        @Override
        public void onCompleteResponse(ChatResponse response) {
            seen.add("complete " + response.aiMessage().text());
        }

        @Override
        public void onError(Throwable error) {
            seen.add("error " + error.getClass().getSimpleName() + ": " + error.getMessage());
        }
    }

    @Test
    void aStreamedAnswerThatCannotBeReadIsCountedAndFollowsThePolicy() {
        // the response's text is read before the advice's own try in 915ed57: its failure left the advice, suppressed
        ChatResponse response = ChatResponse.builder().aiMessage(new AiMessage("the answer") {
            @Override
            public String text() {
                throw new IllegalStateException("induced: answer text");
            }
        }).build();
        InvocationContext context = InvocationContext.builder().chatMemoryId("alice").build();
        LangChain4jHooksFailureTest.Policy open = new LangChain4jHooksFailureTest.Policy(null);
        Dispatcher.install(open);
        long before = Dispatcher.internalErrors();
        Handler handler = new Handler(false);
        assertThat(QuarkusAdvice.StreamCompletionAdvice.enter(handler, context, null, response)).as("open: not skipped").isFalse();
        assertThat(handler.seen).isEmpty();
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
        assertThat(open.asked).containsExactly("langchain4j-stream assistant message: induced: answer text");

        Dispatcher.install(new LangChain4jHooksFailureTest.Policy(Ruling.substitute("refused: internal error")));
        assertThat(QuarkusAdvice.StreamCompletionAdvice.enter(handler, context, null, response)).as("closed: dropped").isTrue();
        assertThat(handler.seen).containsExactly("error TracegateViolation: refused: internal error");
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(2);
    }

    /** A notice that cannot be handed on is refused under fail: open too: the original answer never goes out in its place. */
    @Test
    void aReplacementTheAdviceCannotHandOnIsRefusedUnderEitherPolicy() {
        ChatResponse response = ChatResponse.builder().aiMessage(AiMessage.from("the secret is 42")).build();
        InvocationContext context = InvocationContext.builder().chatMemoryId("alice").build();
        Dispatcher.install(new LangChain4jHooksFailureTest.Policy(null) {
            @Override
            public String onAssistantMessage(String f, String s, String t) {
                return "[withheld by tracegate]";
            }
        });
        long before = Dispatcher.internalErrors();
        Handler handler = new Handler(true);
        assertThat(QuarkusAdvice.StreamCompletionAdvice.enter(handler, context, null, response)).as("dropped").isTrue();
        assertThat(handler.seen).containsExactly("error TracegateViolation: [withheld by tracegate]");
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(1);
    }
}
