package dev.tracegate.agent.instrumentation.langchain4j;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServiceContext;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.tracegate.agent.bootstrap.AgenticRuns;
import dev.tracegate.agent.bootstrap.Dispatcher;
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

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(0) AiServiceMethodCreateInfo method,
                            @Advice.Argument(1) InvocationContext context,
                            @Advice.Argument(2) AiServiceContext service,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel,
                            @Advice.Local("tgTools") Object tools) {
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            Dispatcher.dropAdoptedSession();
            Map<String, ToolExecutor> table = method == null ? null : method.getToolExecutors();
            if ((table == null || table.isEmpty()) && service != null && service.toolService != null) {
                table = service.toolService.toolExecutors();
            }
            tools = Dispatcher.swapTools(table);
            Object memoryId = context == null ? null : context.chatMemoryId();
            return Dispatcher.swapSession(memoryId == null ? null
                    : AgenticRuns.invocationSession(memoryId, context.managedParameters(), context.interfaceName()));
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel,
                         @Advice.Local("tgTools") Object tools) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
                depth[1] = savedModel;
            }
            Dispatcher.swapTools(tools);
            Dispatcher.restoreSession(previous);
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

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter(@Advice.This StreamingChatResponseHandler self,
                             @Advice.FieldValue("invocationContext") InvocationContext context,
                             @Advice.FieldValue("memoryId") Object memoryId,
                             @Advice.Argument(value = 0, readOnly = false) ChatResponse response) {
            AiMessage message = response == null ? null : response.aiMessage();
            if (message == null || message.text() == null || message.text().isEmpty()) {
                return false;
            }
            String replacement;
            try {
                Object id = context != null && context.chatMemoryId() != null ? context.chatMemoryId() : memoryId;
                replacement = Dispatcher.onAssistantMessage("langchain4j-stream",
                        AgenticRuns.conversation(id, context == null ? null : context.managedParameters()), message.text());
            } catch (Throwable failed) {
                TracegateViolation violation = failed instanceof TracegateViolation ? (TracegateViolation) failed : null;
                if (violation == null) {
                    Ruling refusal = Dispatcher.adviceFailed("langchain4j-stream", "assistant message", failed, null);
                    if (refusal == null) {
                        return false;
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
            if (replacement != null) {
                self.onPartialResponse(replacement);   // a Multi<String>'s subscriber gets partial responses only
                response = response.toBuilder().aiMessage(message.withText(replacement)).build();
            }
            return false;
        }

        /** A tool of the response blocked under {@code block.style: exception} ends the stream with {@code onError}, as in LangChain4j's handler. */
        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
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
