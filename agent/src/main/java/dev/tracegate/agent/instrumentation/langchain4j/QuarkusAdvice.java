package dev.tracegate.agent.instrumentation.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServiceContext;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.tracegate.agent.bootstrap.AgenticRuns;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.ReplacedMessage;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import io.quarkiverse.langchain4j.runtime.aiservice.AiServiceMethodCreateInfo;
import net.bytebuddy.asm.Advice;

import java.util.Map;

/**
 * quarkus-langchain4j ({@code @RegisterAiService}): its AI services are generated at build time ({@code *$$QuarkusImpl})
 * and run by {@code AiServiceMethodImplementationSupport}, not by LangChain4j's {@code DefaultAiServices} and
 * {@code ToolService}. Its tool calls pass {@code AiServiceMethodImplementationSupport#executeTool} (blocking) and
 * {@code QuarkusAiServiceStreamingResponseHandler#executeTool} (streamed), which take what LangChain4j's
 * {@code ToolService#executeWithErrorHandling} takes: they get {@link LangChain4jHooks.ExecuteAdvice} itself (one
 * supervision, one nesting guard: a call both saw is counted once). This class holds what differs: the invocation's
 * scope and the streamed answer of a {@code Multi<String>}.
 */
public final class QuarkusAdvice {

    /** The class whose static methods implement every method of a quarkus-langchain4j AI service. */
    static final String SUPPORT = "io.quarkiverse.langchain4j.runtime.aiservice.AiServiceMethodImplementationSupport";
    /** The handler of a streamed model response of a quarkus-langchain4j AI service ({@code Multi}, {@code TokenStream}). */
    static final String STREAM_HANDLER = "io.quarkiverse.langchain4j.runtime.aiservice.QuarkusAiServiceStreamingResponseHandler";
    /** The {@code TokenStream} quarkus-langchain4j starts for a streamed method (also under a {@code Multi}). */
    static final String TOKEN_STREAM = "io.quarkiverse.langchain4j.runtime.aiservice.QuarkusAiServiceTokenStream";

    private QuarkusAdvice() {
    }

    /**
     * One invocation of an AI service method ({@code doImplement0(createInfo, invocationContext, context)}, on the
     * thread that runs its blocking turn): the invocation context's chat memory id ({@code @MemoryId}) is this thread's
     * session for the model events (USER, ASSISTANT), the invocation's tool table (name -> executor: the method's tools,
     * else the service's) is there for redirects, and a new nesting scope begins (as {@code DefaultAiServices}' invocation
     * handler's, {@link LangChain4jHooks.InvocationScopeAdvice}). All put back on exit, also when it throws. Per
     * invocation, not per event.
     */
    public static final class InvocationAdvice {

        /**
         * Its own failure (reading the method's or the service's tools, the chat memory id, the managed parameters) is
         * counted as an internal error, logged once, and follows {@code fail:}: closed refuses the invocation (the AI
         * service method throws the refusal's {@code TracegateViolation}; nothing on the thread was changed yet, and the
         * exit does not run); open runs it with what could be read (no tool table for redirects, the session of an
         * invocation without a memory id). Before, Byte Buddy's suppress dropped it, uncounted, whatever {@code fail:} said.
         */
        @Advice.OnMethodEnter
        static Object enter(@Advice.Argument(0) AiServiceMethodCreateInfo method,
                            @Advice.Argument(1) InvocationContext context,
                            @Advice.Argument(2) AiServiceContext service,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel,
                            @Advice.Local("tgTools") Object tools) {
            // what the framework holds is read first: a failure there has changed nothing on this thread
            Map<String, ToolExecutor> table = null;
            Object session = null;
            try {
                table = method == null ? null : method.getToolExecutors();
                if ((table == null || table.isEmpty()) && service != null && service.toolService != null) {
                    table = service.toolService.toolExecutors();
                }
                Object memoryId = context == null ? null : context.chatMemoryId();
                session = memoryId == null ? null
                        : AgenticRuns.invocationSession(memoryId, context.managedParameters(), context.interfaceName());
            } catch (Throwable failed) {
                // counted, logged once; closed: the invocation does not run with its events in another conversation
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "quarkus invocation", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
                session = null;
            }
            // the nesting scope and the thread's tools and session: the dispatcher's thread-locals only (what can fail
            // here is a stack or heap that ran out, as in the nesting-scope advices; the host's own call fails next)
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            Dispatcher.dropAdoptedSession();
            tools = Dispatcher.swapTools(table);
            return Dispatcher.swapSession(session);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel,
                         @Advice.Local("tgTools") Object tools) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
                depth[1] = savedModel;
            }
            try {
                Dispatcher.swapTools(tools);
                Dispatcher.restoreSession(previous);
            } catch (Throwable failed) {
                Dispatcher.adviceFailed("langchain4j", "quarkus invocation", failed, null);   // counted; the invocation has ended
            }
        }
    }

    /**
     * ASSISTANT of a streamed quarkus-langchain4j AI service: the complete response where its handler receives it
     * ({@code QuarkusAiServiceStreamingResponseHandler#onCompleteResponse}), once, in the invocation's chat memory id,
     * before it is stored or handed on. A {@code Multi<String>} method's subscriber gets only the partial responses
     * (quarkus-langchain4j drops the complete one), so a replacement (the notice, the masked copy) is handed to the
     * handler as one more partial response first, then becomes the complete response (what the chat memory keeps, what a
     * {@code TokenStream}'s {@code onCompleteResponse} gets): the subscriber sees the chunks already shown, then the
     * notice, as the record's {@code streamed} says. A {@code TracegateViolation} ({@code block.style: exception}) goes to
     * the handler's {@code onError} and the response is dropped (the {@code Multi} fails with it). Per streamed response.
     */
    public static final class StreamCompletionAdvice {

        /**
         * Its own failure follows {@code fail:} and is counted, logged once: one reading the response or the chat memory
         * id leaves the answer unchecked, so closed refuses it ({@code onError}, the response dropped) and open lets it
         * through; one handing on a replacement (the notice, the masked copy) is refused under either policy, as any
         * decision the advice fails to carry out (the original text never goes out in its place). Before, Byte Buddy's
         * suppress let the response through unchecked, uncounted, whatever {@code fail:} said.
         */
        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class)
        static boolean enter(@Advice.This StreamingChatResponseHandler self,
                             @Advice.FieldValue("invocationContext") InvocationContext context,
                             @Advice.FieldValue("memoryId") Object memoryId,
                             @Advice.Argument(value = 0, readOnly = false) ChatResponse response) {
            AiMessage message = null;
            String text = null;
            String replacement = null;
            TracegateViolation violation = null;
            try {
                message = response == null ? null : response.aiMessage();
                text = message == null ? null : message.text();
                String thinking = message == null ? null : message.thinking();
                if ((text == null || text.isEmpty()) && (thinking == null || thinking.isEmpty())) {
                    return false;
                }
                // the event's text: the answer's text, then its thinking on the next line (as LangChain4jHooks' ChatAdvice)
                String said = thinking == null || thinking.isEmpty() ? text
                        : text == null || text.isEmpty() ? thinking : text + "\n" + thinking;
                Object id = context != null && context.chatMemoryId() != null ? context.chatMemoryId() : memoryId;
                replacement = Dispatcher.onAssistantMessage("langchain4j-stream",
                        AgenticRuns.conversation(id, context == null ? null : context.managedParameters()), said);
                if (replacement != null) {
                    // its tool calls and attributes kept, less its thinking and what carries the replaced text
                    ChatResponse replaced = response.toBuilder().aiMessage(AiMessage.builder().text(replacement)
                            .toolExecutionRequests(message.toolExecutionRequests())
                            .attributes(ReplacedMessage.metadata(message.attributes(), java.util.Arrays.asList(text, thinking)))
                            .build()).build();
                    self.onPartialResponse(replacement);   // a Multi<String>'s subscriber gets partial responses only
                    response = replaced;
                }
                return false;
            } catch (TracegateViolation refused) {
                violation = refused;   // a block under block.style: exception (or fail: closed inside the dispatcher)
            } catch (Throwable failed) {
                // decided but not handed on: refused whatever fail: says (the decision's text is the refusal's)
                Ruling refusal = Dispatcher.adviceFailed("langchain4j-stream", "assistant message", failed,
                        replacement != null ? Ruling.substitute(replacement) : null);
                if (refusal == null) {
                    return false;   // open: the answer goes on unchecked
                }
                violation = refusal.violation();
            }
            try {
                self.onError(violation);
            } catch (RuntimeException ignored) {
                // the application's error handler failed; the response is dropped all the same
            }
            return true;
        }

        /**
         * A tool of the response blocked under {@code block.style: exception} ends the stream with {@code onError}, as in
         * LangChain4j's handler. Nothing of the agent's own can fail here (an error of the application's handler other
         * than a {@code RuntimeException} goes on as the framework lets it, no longer dropped by Byte Buddy's suppress).
         */
        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.This StreamingChatResponseHandler self,
                         @Advice.Thrown(readOnly = false) Throwable thrown) {
            if (thrown instanceof TracegateViolation) {
                Throwable violation = thrown;
                thrown = null;
                try {
                    self.onError(violation);
                } catch (RuntimeException ignored) {
                    // the application's error handler failed; the stream has ended with the violation all the same
                }
            }
        }
    }
}
