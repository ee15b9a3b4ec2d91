package dev.tracegate.agent.instrumentation.langchain4j;

import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.service.AiServiceContext;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.tracegate.agent.bootstrap.AgenticRuns;
import dev.tracegate.agent.bootstrap.Dispatcher;
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
}
