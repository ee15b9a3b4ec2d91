package dev.tracegate.agent.instrumentation.langchain4j;

import dev.langchain4j.agent.tool.ReturnBehavior;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.invocation.InvocationContext;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServiceContext;
import dev.langchain4j.service.tool.BeforeToolExecution;
import dev.langchain4j.service.tool.ToolExecution;
import dev.langchain4j.service.tool.ToolExecutionResult;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolService;
import dev.langchain4j.service.tool.ToolServiceContext;
import dev.langchain4j.service.tool.ToolServiceResult;
import dev.langchain4j.observability.api.event.ToolExecutedEvent;
import dev.tracegate.agent.bootstrap.AgenticRuns;
import dev.tracegate.agent.bootstrap.ContentsText;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.ReplacedMessage;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.instrumentation.HookPoint;
import dev.tracegate.agent.instrumentation.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

import static dev.tracegate.agent.instrumentation.TypeMatch.subTypeOf;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNameStartsWith;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNamed;
import static net.bytebuddy.matcher.ElementMatchers.declaresField;
import static net.bytebuddy.matcher.ElementMatchers.declaresMethod;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * LangChain4j: every tool call of an AI service at {@code ToolService#executeWithErrorHandling} (tool
 * methods, MCP tools, lambda executors, concurrent execution), session = chat memory id; USER and
 * ASSISTANT events at {@code ChatModel#chat(ChatRequest)}; calls of langchain4j-mcp's {@code McpClient#executeTool}
 * made outside an AI service (inside one, the choke point already saw the call: nested, and the same tool-call id);
 * the results of {@code IMMEDIATE} tools, which an AI service hands to the application as the turn's answer, as
 * ASSISTANT: first where the tool service runs the tool ({@code ToolService#internalExecuteTool}) and hands the result to
 * the tool callbacks ({@code afterToolExecution}, a stream's {@code onToolExecuted}), before it knows the turn ends there,
 * so they get what the check leaves, as do the listeners' {@code ToolExecutedEvent}s ({@code fireEvent}); the AI
 * service's return ({@code ToolService#executeInferenceAndToolsLoop}) takes the decision over.
 *
 * <p>Streaming AI services ({@code TokenStream}, and the reactive return types built on it): USER at
 * {@code StreamingChatModel#chat(ChatRequest, ..., handler)} in the session of the {@code TokenStream} being started;
 * ASSISTANT once per model response, when the AI service's handler receives the complete response
 * ({@code AiServiceStreamingResponseHandler#onCompleteResponse}), before it is stored in the chat memory or handed to
 * the application. The streamed chunks have already reached the application by then: a violation replaces the
 * complete response (memory, {@code onCompleteResponse}) with the notice, or, with {@code onBlock=throw}, ends the
 * stream with {@code onError(TracegateViolation)} instead of completing it (nothing is stored, no tool of that
 * response runs). A streaming model called directly (not through an AI service) is checked the same way where
 * {@code StreamingChatModel#chat} hands the response to the caller's handler, in this thread's session, else "default".
 */
public final class LangChain4jHooks implements Hooks {

    static final String TOOL_SERVICE = "dev.langchain4j.service.tool.ToolService";
    static final String CHAT_MODEL = "dev.langchain4j.model.chat.ChatModel";
    static final String CHAT_REQUEST = "dev.langchain4j.model.chat.request.ChatRequest";
    static final String CHAT_MEMORY = "dev.langchain4j.memory.ChatMemory";
    static final String CHAT_MESSAGE = "dev.langchain4j.data.message.ChatMessage";
    static final String STREAMING_CHAT_MODEL = "dev.langchain4j.model.chat.StreamingChatModel";
    static final String STREAMING_HANDLER = "dev.langchain4j.model.chat.response.StreamingChatResponseHandler";
    /** The AI service's handler of a streamed model response (package-private class of langchain4j). */
    static final String SERVICE_STREAM_HANDLER = "dev.langchain4j.service.AiServiceStreamingResponseHandler";
    /** langchain4j-mcp's client interface (its own JSON-RPC client, not the MCP Java SDK's). */
    static final String MCP_CLIENT = "dev.langchain4j.mcp.client.McpClient";
    /** What the AI service's tool loop returns; {@code immediateToolReturn()} says the turn ended with tool results. */
    static final String TOOL_SERVICE_RESULT = "dev.langchain4j.service.tool.ToolServiceResult";
    static final String TOOL_REQUEST = "dev.langchain4j.agent.tool.ToolExecutionRequest";
    static final String TOOL_RESULT = "dev.langchain4j.service.tool.ToolExecutionResult";
    /** langchain4j-agentic's invocation handler of workflows and supervisors (the agent does not link to the module). */
    static final String AGENTIC_HANDLER = "dev.langchain4j.agentic.internal.PlannerBasedInvocationHandler";

    @Override
    public String name() {
        return "langchain4j";
    }

    @Override
    public String frameworkPackage() {
        return "dev.langchain4j";
    }

    @Override
    public List<String> chokePoints() {
        return List.of(TOOL_SERVICE);
    }

    @Override
    public List<String> chokePointSiblings() {
        return List.of("dev.langchain4j.service.AiServices");   // the langchain4j artifact, as ToolService (1.11.0 to 1.19.0)
    }

    @Override
    public String marker() {
        return TOOL_SERVICE;
    }

    @Override
    public List<HookPoint> points() {
        String self = LangChain4jHooks.class.getName();
        return List.of(
                new HookPoint(typeNamed(TOOL_SERVICE),
                        named("executeWithErrorHandling").and(isStatic()).and(takesArguments(5)),
                        self + "$ExecuteAdvice").role("the tool calls of AI services"),
                // the tools an AI service offers its model, once when it is built: known to the exit WARN about unseen tools
                new HookPoint(typeNamed(TOOL_SERVICE).and(declaresField(named("toolSpecifications"))),
                        named("tools").and(takesArgument(0, named("java.util.Map")).or(takesArgument(0, named("java.util.Collection")))
                                .or(takesArgument(0, named("java.util.List")))),
                        self + "$ToolsOfferedAdvice"),
                // langchain4j-agentic: what the application passed to the outermost workflow or supervisor, the run's USER
                new HookPoint(typeNamed(AGENTIC_HANDLER),
                        named("currentAgenticScope").and(takesArguments(3)).and(takesArgument(1, named("java.lang.reflect.Method")))
                                .and(takesArgument(2, Object[].class)),
                        self + "$AgenticRunAdvice").role("the user's words of a langchain4j-agentic run"),
                // langchain4j-agentic: what the outermost workflow or supervisor returns to the application, the run's answer
                new HookPoint(typeNamed(AGENTIC_HANDLER),
                        named("executeAgentMethod").and(takesArguments(3)).and(takesArgument(1, named("java.lang.reflect.Method")))
                                .and(takesArgument(2, Object[].class)),
                        self + "$AgenticResultAdvice").role("the answer of a langchain4j-agentic run"),
                new HookPoint(typeNamed(TOOL_SERVICE),
                        named("executeTool").or(named("internalExecuteTool")).and(takesArgument(1, named("java.util.Map"))),
                        self + "$ToolTableAdvice"),
                new HookPoint(subTypeOf(CHAT_MODEL),
                        named("chat").and(not(isAbstract())).and(takesArgument(0, named(CHAT_REQUEST))),
                        self + "$ChatAdvice"),
                new HookPoint(typeNameStartsWith("dev.langchain4j.service.DefaultAiServices$").and(hasSuperType(named("java.lang.reflect.InvocationHandler"))),
                        named("invoke").and(takesArguments(3)),
                        self + "$InvocationScopeAdvice"),
                new HookPoint(subTypeOf(MCP_CLIENT),
                        named("executeTool").and(not(isAbstract())).and(takesArgument(0, named("dev.langchain4j.agent.tool.ToolExecutionRequest")))
                                .and(returns(named("dev.langchain4j.service.tool.ToolExecutionResult"))),
                        self + "$McpClientAdvice"),
                new HookPoint(typeNamed("dev.langchain4j.service.DefaultAiServices"),
                        named("prepareSystemMessage").and(takesArgument(0, named("dev.langchain4j.invocation.InvocationContext"))),
                        self + "$SessionAdvice").role("the chat memory id (the session) of model events"),
                // the same call in older lines (1.11.0): it takes the chat memory id itself, not the invocation context
                new HookPoint(typeNamed("dev.langchain4j.service.DefaultAiServices"),
                        named("prepareSystemMessage").and(takesArguments(3)).and(takesArgument(0, named("java.lang.Object")))
                                .and(takesArgument(1, named("java.lang.reflect.Method"))),
                        self + "$MemoryIdSessionAdvice").role("the chat memory id (the session) of model events"),
                new HookPoint(subTypeOf(STREAMING_CHAT_MODEL),
                        named("chat").and(not(isAbstract())).and(takesArgument(0, named(CHAT_REQUEST)))
                                .and(takesArguments(2).and(takesArgument(1, named(STREAMING_HANDLER)))
                                        .or(takesArguments(3).and(takesArgument(2, named(STREAMING_HANDLER))))),
                        self + "$ChatAdvice"),
                // the user message an AI service stores before it calls the model: replaced there too when the model's
                // request gets a replacement (ChatAdvice), so that later turns do not send the original back
                new HookPoint(subTypeOf(CHAT_MEMORY).and(not(isInterface())),
                        named("add").and(not(isAbstract())).and(takesArguments(1)).and(takesArgument(0, named(CHAT_MESSAGE))),
                        self + "$MemoryAddAdvice"),
                // the user's own text before retrieval augmentation: the USER event is it, not the retrieved content
                new HookPoint(subTypeOf("dev.langchain4j.rag.RetrievalAugmentor").and(not(isInterface())),
                        named("augment").and(not(isAbstract())).and(takesArguments(1))
                                .and(takesArgument(0, named("dev.langchain4j.rag.AugmentationRequest"))),
                        self + "$AugmentAdvice"),
                new HookPoint(typeNamed("dev.langchain4j.service.AiServiceTokenStream"),
                        named("start").and(takesArguments(0)),
                        self + "$TokenStreamScopeAdvice"),
                new HookPoint(typeNamed(SERVICE_STREAM_HANDLER),
                        named("onCompleteResponse").and(takesArguments(1))
                                .and(takesArgument(0, named("dev.langchain4j.model.chat.response.ChatResponse"))),
                        self + "$StreamCompletionAdvice"),
                // the handler StreamingChatModel#chat wraps around the caller's (listeners): every streamed response of a
                // model called directly passes it; an AI service's handler is left to StreamCompletionAdvice
                new HookPoint(typeNameStartsWith(STREAMING_CHAT_MODEL + "$").and(hasSuperType(named(STREAMING_HANDLER)))
                                .and(declaresField(named("val$handler"))),
                        named("onCompleteResponse").and(takesArguments(1))
                                .and(takesArgument(0, named("dev.langchain4j.model.chat.response.ChatResponse"))),
                        self + "$DirectStreamCompletionAdvice"),
                // the results of IMMEDIATE tools, which end the turn as what the application gets: 1.19.0's loop (the
                // overload with the model call as a Function; the boolean one delegates to it), else 1.11.0's only one
                new HookPoint(typeNamed(TOOL_SERVICE),
                        named("executeInferenceAndToolsLoop").and(takesArguments(9))
                                .and(takesArgument(8, named("java.util.function.Function")))
                                .and(returns(named(TOOL_SERVICE_RESULT))),
                        self + "$ImmediateReturnAdvice").role("the answer an IMMEDIATE tool hands to the application"),
                new HookPoint(typeNamed(TOOL_SERVICE).and(not(declaresMethod(named("executeInferenceAndToolsLoop")
                                .and(takesArguments(9)).and(takesArgument(8, named("java.util.function.Function")))))),
                        named("executeInferenceAndToolsLoop").and(takesArguments(9))
                                .and(takesArgument(8, boolean.class))
                                .and(returns(named(TOOL_SERVICE_RESULT))),
                        self + "$ImmediateReturnAdvice").role("the answer an IMMEDIATE tool hands to the application"),
                // the tool service runs each tool here and hands its result to the callbacks (afterToolExecution, a
                // stream's onToolExecuted): an IMMEDIATE tool's result is checked as the answer first (1.19.0: its
                // return behaviours; 1.11.0: its set of immediate tools, and a failed result is checked too)
                new HookPoint(typeNamed(TOOL_SERVICE).and(declaresField(named("returnBehaviors"))),
                        named("internalExecuteTool").and(takesArguments(5)).and(takesArgument(2, named(TOOL_REQUEST)))
                                .and(returns(named(TOOL_RESULT))),
                        self + "$ImmediateCallbackAdvice").role("the callbacks an IMMEDIATE tool's result reaches"),
                new HookPoint(typeNamed(TOOL_SERVICE).and(not(declaresField(named("returnBehaviors")))),
                        named("internalExecuteTool").and(takesArguments(5)).and(takesArgument(2, named(TOOL_REQUEST)))
                                .and(returns(named(TOOL_RESULT))),
                        self + "$OlderImmediateCallbackAdvice").role("the callbacks an IMMEDIATE tool's result reaches"),
                // a tool provider's immediate tools are known to the loop's tool context only: it is kept on the loop's
                // thread (1.19.0: refreshed each round from dynamic providers), and each round marks those tools' requests
                new HookPoint(typeNamed(TOOL_SERVICE),
                        named("executeInferenceAndToolsLoop").and(takesArguments(9))
                                .and(takesArgument(7, named("dev.langchain4j.service.tool.ToolServiceContext"))),
                        self + "$ToolContextScopeAdvice"),
                new HookPoint(typeNamed(TOOL_SERVICE),
                        named("refreshDynamicProviders").and(isStatic()).and(takesArguments(3))
                                .and(takesArgument(0, named("dev.langchain4j.service.tool.ToolServiceContext"))),
                        self + "$ToolContextRefreshAdvice"),
                new HookPoint(typeNamed(TOOL_SERVICE).and(declaresField(named("returnBehaviors"))),
                        named("execute").and(takesArguments(3)).and(takesArgument(0, named("java.util.List")))
                                .and(takesArgument(1, named("java.util.Map"))),
                        self + "$RoundImmediateAdvice"),
                new HookPoint(typeNamed(TOOL_SERVICE).and(not(declaresField(named("returnBehaviors")))),
                        named("execute").and(takesArguments(3)).and(takesArgument(0, named("java.util.List")))
                                .and(takesArgument(1, named("java.util.Map"))),
                        self + "$OlderRoundImmediateAdvice"),
                // the listeners' ToolExecutedEvent of a tool whose result was checked as an answer carries what the check left
                new HookPoint(subTypeOf("dev.langchain4j.observability.api.AiServiceListenerRegistrar").and(not(isInterface())),
                        named("fireEvent").and(not(isAbstract())).and(takesArguments(1)),
                        self + "$ToolExecutedEventAdvice"),
                // a streaming AI service runs each tool here: an IMMEDIATE tool is marked for ImmediateCallbackAdvice;
                // 1.19.0 knows a tool's return behaviour from the handler's tool context (also a ToolProvider's
                // tools), 1.11.0 from the AI service's ToolService
                new HookPoint(typeNamed(SERVICE_STREAM_HANDLER).and(declaresField(named("toolServiceContext"))),
                        named("execute").and(takesArguments(1)).and(takesArgument(0, named(TOOL_REQUEST)))
                                .and(returns(named(TOOL_RESULT))),
                        self + "$StreamImmediateAdvice").role("the answer an IMMEDIATE tool hands to a streaming application"),
                new HookPoint(typeNamed(SERVICE_STREAM_HANDLER).and(not(declaresField(named("toolServiceContext")))),
                        named("execute").and(takesArguments(1)).and(takesArgument(0, named(TOOL_REQUEST)))
                                .and(returns(named(TOOL_RESULT))),
                        self + "$OlderStreamImmediateAdvice").role("the answer an IMMEDIATE tool hands to a streaming application"),
                // quarkus-langchain4j (@RegisterAiService, generated at build time) runs its own AI services: its tool
                // calls, blocking and streamed, take the choke point's arguments and get its advice (QuarkusAdvice)
                new HookPoint(typeNamed(QuarkusAdvice.SUPPORT).or(typeNamed(QuarkusAdvice.STREAM_HANDLER)),
                        named("executeTool").and(takesArgument(0, named(TOOL_REQUEST)))
                                .and(takesArgument(1, named("dev.langchain4j.service.tool.ToolExecutor")))
                                .and(takesArgument(2, named("dev.langchain4j.invocation.InvocationContext")))
                                .and(returns(named(TOOL_RESULT))),
                        self + "$ExecuteAdvice").role("the tool calls of quarkus-langchain4j AI services"),
                new HookPoint(typeNamed(QuarkusAdvice.SUPPORT),
                        named("doImplement0").and(isStatic()).and(takesArguments(3))
                                .and(takesArgument(1, named("dev.langchain4j.invocation.InvocationContext"))),
                        QuarkusAdvice.class.getName() + "$InvocationAdvice")
                        .role("the chat memory id (the session) of quarkus-langchain4j AI services"),
                // its streamed methods (Multi, TokenStream): the stream starts in the invocation's chat memory id, and
                // the complete response is checked where its handler gets it (a Multi<String> gets a replacement as a chunk)
                new HookPoint(typeNamed(QuarkusAdvice.TOKEN_STREAM), named("start").and(takesArguments(0)),
                        self + "$TokenStreamScopeAdvice"),
                new HookPoint(typeNamed(QuarkusAdvice.STREAM_HANDLER),
                        named("onCompleteResponse").and(takesArguments(1))
                                .and(takesArgument(0, named("dev.langchain4j.model.chat.response.ChatResponse"))),
                        QuarkusAdvice.class.getName() + "$StreamCompletionAdvice")
                        .role("the streamed answers of quarkus-langchain4j AI services"));
    }

    /** The tool-call choke point: CALL before, RETURN after; block, redirect, redact, suppress. */
    public static final class ExecuteAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.Argument(value = 0, readOnly = false) ToolExecutionRequest request,
                            @Advice.Argument(value = 1, readOnly = false) ToolExecutor executor,
                            @Advice.Argument(2) InvocationContext context,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[0];
            depth[0] = saved + 1;
            outer = saved == 0;
            if (!outer || request == null) {
                return null;
            }
            Ruling ruling = null;
            try {
                Object memoryId = context == null ? null : context.chatMemoryId();
                // an agentic sub-agent without a memory id of its own: the run's (its scope's memory id), not "default"
                String session = AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters());
                // a turn in flight at an attach: its answer is checked in this conversation, not in "default"
                Dispatcher.adoptSession(memoryId);
                callId = request.id();
                if (callId == null || callId.isEmpty()) {
                    // a request without the model's id (a provider that gives none, one the application built): this
                    // invocation's own, on its CALL and its RETURN, so the RETURN answers this call and no other
                    callId = Dispatcher.newCallId();
                }
                ruling = Dispatcher.onToolCall("langchain4j", session, request.name(), request.arguments(), callId);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    request = request.toBuilder().arguments(ruling.arguments).build();
                    return null;
                }
                if (ruling.kind == Ruling.REDIRECT) {
                    Object table = Dispatcher.tools();
                    Object other = table instanceof Map ? ((Map<?, ?>) table).get(ruling.tool) : null;
                    if (other instanceof ToolExecutor) {
                        request = request.toBuilder().name(ruling.tool).arguments(ruling.arguments).build();
                        executor = (ToolExecutor) other;
                        return null;
                    }
                    // the target is not in this service's tools: the log holds the redirected CALL, so its failure
                    // follows (failed(target) holds), and the model is told the call did not run
                    Dispatcher.onToolResult("langchain4j", session, ruling.tool, callId, ruling.text, true);
                    return Ruling.substitute(ruling.text);
                }
                return ruling;
            } catch (Throwable failed) {
                // this advice's own failure (reading the request or the chat memory id) follows the failure policy:
                // suppressed, it would run the tool unsupervised whatever fail: says
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "tool call", failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgId") String callId,
                         @Advice.Argument(0) ToolExecutionRequest request,
                         @Advice.Argument(2) InvocationContext context,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) ToolExecutionResult result,
                         @Advice.Thrown Throwable thrown,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if (skipped.kind == Ruling.THROW) {
                    throw skipped.violation();
                }
                result = ToolExecutionResult.builder().isError(skipped.isError()).resultText(skipped.text).build();
                return;
            }
            if (thrown != null && request != null) {
                // the application's ToolExecutionErrorHandler rethrew (by default a failure is an error result, below):
                // the exception reaches the host unchanged, and is the tool's error RETURN (after a redirect, the target's)
                try {
                    Object memoryId = context == null ? null : context.chatMemoryId();
                    Dispatcher.onToolThrown("langchain4j", AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters()),
                            request.name(), callId, thrown);
                } catch (Throwable failed) {
                    Dispatcher.adviceFailed("langchain4j", "tool result", failed, null);
                }
                return;
            }
            if (result != null && request != null) {
                try {
                    // the result's text: a result of several contents (1.14+: a text and an image, two texts), whose resultText()
                    // throws, by ContentsText (before, an internal error: unchecked under fail: open, no RETURN under closed)
                    List<Content> contents = null;
                    try {
                        contents = result.resultContents();
                    } catch (LinkageError older) {
                        // 1.11 to 1.13: a result is one text
                    }
                    String text = contents == null ? result.resultText()
                            : contents.size() == 1 && contents.get(0) instanceof TextContent ? ((TextContent) contents.get(0)).text()
                            : ContentsText.of(contents);
                    Object memoryId = context == null ? null : context.chatMemoryId();
                    String notice = Dispatcher.onToolResult("langchain4j", AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters()),
                            request.name(), callId, text, result.isError());
                    if (notice != null) {
                        result = ToolExecutionResult.builder().isError(false).resultText(notice).build();
                    }
                } catch (Throwable failed) {
                    Ruling refusal = Dispatcher.adviceFailed("langchain4j", "tool result", failed, null);
                    if (refusal != null) {
                        // fail: closed, as the dispatcher's own internal error on a result: the model gets the refusal
                        result = ToolExecutionResult.builder().isError(true).resultText(refusal.text).build();
                    }
                }
            }
        }
    }

    /**
     * {@code McpClient#executeTool(ToolExecutionRequest[, InvocationContext])}: a call made outside an AI service
     * (inside one it is nested in the choke point and not supervised again; its tool-call id dedups it as well).
     * Session: the invocation context's chat memory id, else the one further up this thread, else "default".
     */
    public static final class McpClientAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.Argument(value = 0, readOnly = false) ToolExecutionRequest request,
                            @Advice.AllArguments Object[] args,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgSession") String session,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[0];
            depth[0] = saved + 1;
            outer = saved == 0;
            if (!outer || request == null) {
                return null;
            }
            Ruling ruling = null;
            try {
                Object memoryId = args.length > 1 && args[1] instanceof InvocationContext ? ((InvocationContext) args[1]).chatMemoryId() : null;
                session = memoryId == null ? Dispatcher.session("default") : memoryId.toString();
                callId = request.id();
                if (callId == null || callId.isEmpty()) {
                    callId = Dispatcher.newCallId();   // a request the application built without an id: this invocation's own
                }
                ruling = Dispatcher.onToolCall("langchain4j-mcp", session, request.name(), request.arguments(), callId);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    request = request.toBuilder().arguments(ruling.arguments).build();
                    return null;
                }
                if (ruling.kind == Ruling.REDIRECT) {
                    // the safe tool is looked up on the same MCP server
                    request = request.toBuilder().name(ruling.tool).arguments(ruling.arguments).build();
                    return null;
                }
                return ruling;
            } catch (Throwable failed) {
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("langchain4j-mcp", "tool call", failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgSession") String session,
                         @Advice.Local("tgId") String callId,
                         @Advice.Argument(0) ToolExecutionRequest request,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) ToolExecutionResult result,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if (skipped.kind == Ruling.THROW) {
                    throw skipped.violation();
                }
                result = ToolExecutionResult.builder().isError(skipped.isError()).resultText(skipped.text).build();
                return;
            }
            if (result != null && request != null && session != null) {
                try {
                    // the result's text: a result of several contents (1.14+: a text and an image, two texts), whose resultText()
                    // throws, by ContentsText (before, an internal error: unchecked under fail: open, no RETURN under closed)
                    List<Content> contents = null;
                    try {
                        contents = result.resultContents();
                    } catch (LinkageError older) {
                        // 1.11 to 1.13: a result is one text
                    }
                    String text = contents == null ? result.resultText()
                            : contents.size() == 1 && contents.get(0) instanceof TextContent ? ((TextContent) contents.get(0)).text()
                            : ContentsText.of(contents);
                    String notice = Dispatcher.onToolResult("langchain4j-mcp", session, request.name(), callId, text, result.isError());
                    if (notice != null) {
                        result = ToolExecutionResult.builder().isError(false).resultText(notice).build();
                    }
                } catch (Throwable failed) {
                    Ruling refusal = Dispatcher.adviceFailed("langchain4j-mcp", "tool result", failed, null);
                    if (refusal != null) {
                        result = ToolExecutionResult.builder().isError(true).resultText(refusal.text).build();
                    }
                }
            }
        }
    }

    /**
     * The tools registered with an AI service ({@code ToolService#tools}, when the service is built; not per call): the
     * application has them, so the exit WARN about contract tools that never came leaves them out (trial32 04: a tool
     * registered but unused in a run was named as if it might be misspelt). A {@code ToolProvider}'s tools, given per
     * request, are not seen here.
     */
    public static final class ToolsOfferedAdvice {

        @Advice.OnMethodExit
        static void exit(@Advice.FieldValue("toolSpecifications") List<?> specifications) {
            try {
                if (specifications == null || specifications.isEmpty()) {
                    return;
                }
                List<String> names = new ArrayList<String>(specifications.size());
                for (Object specification : specifications) {
                    if (specification instanceof dev.langchain4j.agent.tool.ToolSpecification) {
                        names.add(((dev.langchain4j.agent.tool.ToolSpecification) specification).name());
                    }
                }
                Dispatcher.toolsOffered(names);
            } catch (Throwable failed) {
                // counted, logged once; only the exit WARN about unseen tools may name these tools: nothing to refuse
                Dispatcher.adviceFailed("langchain4j", "tools offered", failed, null);
            }
        }
    }

    /** Makes the AI service's tool table (name -> executor) reachable for redirects on this thread. */
    public static final class ToolTableAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(1) Map<?, ?> executors) {
            return Dispatcher.swapTools(executors);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous) {
            Dispatcher.swapTools(previous);
        }
    }

    /**
     * USER (the newest message, when it is the user's) before a model call, blocking ({@code ChatModel#chat}) or streaming
     * ({@code StreamingChatModel#chat}, one advice for both, so the user message and its chat memory are handled in one
     * place); ASSISTANT after a blocking call, from the response it returns. A streaming call returns nothing (the
     * response is null here): its ASSISTANT is {@link StreamCompletionAdvice} or {@link DirectStreamCompletionAdvice}.
     */
    public static final class ChatAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) ChatRequest request,
                          @Advice.Local("tgOuter") boolean outer,
                          @Advice.Local("tgDepth") int[] depth,
                          @Advice.Local("tgSaved") int saved) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[1];
            depth[1] = saved + 1;
            outer = saved == 0;
            try {
                if (!outer || request == null) {
                    return;
                }
                List<ChatMessage> messages = request.messages();
                if (messages == null || messages.isEmpty()) {
                    return;
                }
                ChatMessage last = messages.get(messages.size() - 1);
                if (last instanceof UserMessage) {
                    UserMessage user = (UserMessage) last;
                    String text = null;
                    String own = null;
                    String replacement;
                    try {
                        // the text of its text contents, in order (several joined by a line break); an image or other
                        // content beside it does not keep the text from being checked (before, only a single text was)
                        StringBuilder joined = null;
                        for (Content content : user.contents()) {
                            if (!(content instanceof TextContent)) {
                                continue;
                            }
                            String part = ((TextContent) content).text();
                            if (text == null) {
                                text = part;
                            } else {
                                if (joined == null) {
                                    joined = new StringBuilder(text);
                                }
                                joined.append('\n').append(part);
                            }
                        }
                        if (joined != null) {
                            text = joined.toString();
                        }
                        // the user's own words: with retrieval augmentation, the text before the retrieved content was added
                        own = Dispatcher.ownUserText(text);
                        if (own != null && (AgenticRuns.internalPrompt() || Dispatcher.inToolBody())) {
                            // a prompt the agentic module built inside a run (a sub-agent's template filled from other
                            // agents' outputs, a planner's request with the last response): not the user's words, which
                            // are the run's own USER event (AgenticRunAdvice). Nor is a prompt a tool's body sends (a
                            // summariser tool's "Summarize this page: <page>"): what reaches the conversation's model of
                            // it is the tool's RETURN, so its values keep a tool output's provenance (trial47 05)
                            own = null;
                        }
                        replacement = own == null ? null : Dispatcher.onUserMessage("langchain4j", Dispatcher.session("default"), own);
                    } catch (Throwable failed) {
                        // this advice's own failure (e.g. a chat memory id that cannot be read) follows the failure policy:
                        // fail: closed replaces the message as the dispatcher's own internal error does, open passes it
                        Ruling refusal = Dispatcher.adviceFailed("langchain4j", "user message", failed, null);
                        replacement = refusal == null ? null : refusal.text;
                    }
                    if (replacement != null) {
                        // the text replaced, the rest kept: its name, its other contents (an image) in their places, and its
                        // attributes less what carries the replaced text (ReplacedMessage); before, a bare UserMessage.from
                        List<Content> contents = new ArrayList<Content>();
                        boolean placed = false;
                        for (Content content : user.contents()) {
                            if (!(content instanceof TextContent)) {
                                contents.add(content);
                            } else if (!placed) {
                                // with retrieval augmentation the retrieved content goes too (it was found for the replaced text)
                                contents.add(TextContent.from(replacement));
                                placed = true;
                            }
                        }
                        if (!placed) {
                            contents.add(0, TextContent.from(replacement));
                        }
                        UserMessage replaced = user.toBuilder().contents(contents)
                                .attributes(ReplacedMessage.metadata(user.attributes(), text)).build();
                        List<ChatMessage> copy = new ArrayList<ChatMessage>(messages);
                        copy.set(copy.size() - 1, replaced);
                        request = request.toBuilder().messages(copy).build();
                        // the chat memory that stored this turn's message (an AI service stores it before the model call)
                        // gets the replacement too: else later turns send the original back to the model. The message it
                        // stored is this one, or (retrieval augmentation that keeps the retrieved content out of the
                        // memory) the user's own text within this one; a memory that stored another message is left alone
                        Object[] stored = Dispatcher.takeStoredUserMessage();
                        if (stored != null && stored[0] instanceof ChatMemory && stored[1] instanceof UserMessage) {
                            try {
                                UserMessage kept = (UserMessage) stored[1];
                                String keptText = kept.hasSingleText() ? kept.singleText() : null;
                                if (kept == user || kept.equals(user) || keptText != null && text != null && text.contains(keptText)) {
                                    UserMessage keptReplaced = kept == user ? replaced : kept.toBuilder()
                                            .contents(java.util.Collections.<Content>singletonList(TextContent.from(replacement)))
                                            .attributes(ReplacedMessage.metadata(kept.attributes(), keptText)).build();
                                    ChatMemory memory = (ChatMemory) stored[0];
                                    List<ChatMessage> held = new ArrayList<ChatMessage>(memory.messages());
                                    for (int i = held.size() - 1; i >= 0; i--) {
                                        if (held.get(i) == kept || held.get(i).equals(kept)) {
                                            held.set(i, keptReplaced);
                                            memory.set(held);
                                            break;
                                        }
                                    }
                                    Dispatcher.forgetStoredUserMessage();   // the memory's own add of the messages set again
                                }
                            } catch (Throwable failed) {
                                Dispatcher.adviceFailed("langchain4j", "chat memory", failed, null);
                            }
                        }
                    } else {
                        Dispatcher.forgetStoredUserMessage();   // checked and kept: a later model call must not take it
                    }
                }
            } catch (Throwable failed) {
                depth[1] = saved;   // put back before the weaver's handler, which may overflow again, sees it
                throw failed;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Local("tgOuter") boolean outer,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved) {
            if (depth != null) {
                depth[1] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (!outer || !(returned instanceof ChatResponse)) {
                return;   // a streaming call (void: null here), a call that threw, or a nested one
            }
            ChatResponse response = (ChatResponse) returned;
            AiMessage message = response.aiMessage();
            try {
                // the agentic module's own planner and response scorer answer with a plan or scores, not the conversation's
                // answer: before, an answer contract judged the JSON plan and a notice in its place failed the run to parse
                Object turn = AgenticRuns.turn();
                String thinking = message == null ? null : message.thinking();
                if (message != null && (message.text() != null || thinking != null && !thinking.isEmpty()) && !AgenticRuns.internalAnswer(turn)) {
                    String replacement;
                    try {
                        // the event's text: the answer's text, then its thinking on the next line (the application
                        // gets both; before, the thinking was never checked and a replaced answer kept it, trial47 02)
                        String said = thinking == null || thinking.isEmpty() ? message.text()
                                : message.text() == null ? thinking : message.text() + "\n" + thinking;
                        replacement = Dispatcher.onAssistantMessage("langchain4j", Dispatcher.session("default"), said);
                        // an agent of an agentic run: the run's result, when it is this answer, was checked here
                        AgenticRuns.answered(turn, replacement != null ? replacement : message.text());
                    } catch (TracegateViolation violation) {
                        throw violation;   // a block under block.style: exception (or fail: closed inside the dispatcher)
                    } catch (Throwable failed) {
                        Ruling refusal = Dispatcher.adviceFailed("langchain4j", "assistant message", failed, null);
                        if (refusal != null) {
                            throw refusal.violation();   // fail: closed, as the dispatcher's own internal error on an answer
                        }
                        replacement = null;
                    }
                    if (replacement != null) {
                        // the replaced answer keeps its tool calls and attributes, less its thinking and what carries the
                        // replaced text (ReplacedMessage: a thinking_signature); before, withText kept the thinking (trial47 02)
                        returned = response.toBuilder().aiMessage(AiMessage.builder().text(replacement)
                            .toolExecutionRequests(message.toolExecutionRequests())
                            .attributes(ReplacedMessage.metadata(message.attributes(), java.util.Arrays.asList(message.text(), message.thinking())))
                            .build()).build();
                    }
                }
            } finally {
                if (message != null && message.hasToolExecutionRequests()) {
                    Dispatcher.awaitTools();   // without a conversation id here (a turn in flight at the attach), its tools tell it
                    try {
                        List<ToolExecutionRequest> asked = message.toolExecutionRequests();
                        for (int i = 0; i < asked.size(); i++) {
                            ToolExecutionRequest request = asked.get(i);   // AiMessage keeps a null element as it came
                            if (request != null) {
                                Dispatcher.toolRequested(request.name());   // a tool asked for whose call never comes is said at exit
                            }
                        }
                    } catch (Throwable failed) {
                        // only a note for the exit's WARN: counted and logged once, nothing to refuse, never into the host
                        Dispatcher.adviceFailed("langchain4j", "tools the model asked for", failed, null);
                    }
                } else {
                    Dispatcher.dropAdoptedSession();   // the turn's final answer (or a refused one): a session adopted for it ends here
                }
            }
        }
    }

    /** The user message a chat memory stores on this thread ({@link Dispatcher#userMessageStored}); its other messages cost an instanceof. */
    public static final class MemoryAddAdvice {

        @Advice.OnMethodEnter
        static void enter(@Advice.This Object memory, @Advice.Argument(0) Object message) {
            if (message instanceof UserMessage) {
                try {
                    Dispatcher.userMessageStored(memory, message);
                } catch (Throwable failed) {
                    // counted, logged once; closed: not stored unmarked (a replaced message would stay in the memory)
                    Ruling refusal = Dispatcher.adviceFailed("langchain4j", "chat memory", failed, null);
                    if (refusal != null) {
                        throw refusal.violation();
                    }
                }
            }
        }
    }

    /**
     * A retrieval augmentor's result: the text of the augmented user message and the user's own text it was made from, for
     * the model call that follows on this thread ({@link Dispatcher#ownUserText}). A nested augmentor's note is overwritten
     * by the outer one's, whose request is the user's message. Its own failure is counted as an internal error, logged
     * once, and follows {@code fail:}: unnoted, the USER event would be the augmented text, the retrieved content then
     * counted as the user's own words (which the injection library treats more permissively than text from elsewhere),
     * so closed refuses the request (the AI service call throws the refusal's {@code TracegateViolation}; the model is
     * not called); open goes on unnoted. Before session 20 it was counted only, whatever {@code fail:} said.
     */
    public static final class AugmentAdvice {

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Argument(0) dev.langchain4j.rag.AugmentationRequest request,
                         @Advice.Return dev.langchain4j.rag.AugmentationResult result) {
            try {
                if (request == null || result == null || !(request.chatMessage() instanceof UserMessage)
                        || !(result.chatMessage() instanceof UserMessage)) {
                    return;
                }
                UserMessage before = (UserMessage) request.chatMessage();
                UserMessage after = (UserMessage) result.chatMessage();
                if (before != after && before.hasSingleText() && after.hasSingleText()) {
                    Dispatcher.augmented(after.singleText(), before.singleText());
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "retrieval augmentation", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the retrieved content must not pass as the user's words
                }
            }
        }
    }

    /**
     * The chat memory id of the AI service invocation whose {@code TokenStream} starts (the invocation itself has
     * returned); and a new nesting scope, as {@link InvocationScopeAdvice}: a stream started inside a tool whose model
     * answers on the starting thread runs its tools here, and they are calls of their own.
     */
    public static final class TokenStreamScopeAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.FieldValue("invocationContext") InvocationContext context,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel) {
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            Object session = null;
            try {
                session = context == null || context.chatMemoryId() == null ? null
                        : AgenticRuns.invocationSession(context.chatMemoryId(), context.managedParameters(), context.interfaceName());
            } catch (Throwable failed) {
                // counted, logged once; the stream runs in the thread's session (this advice keeps suppress for its
                // nesting guard, so it cannot refuse: the stream's events are still checked, in that session)
                Dispatcher.adviceFailed("langchain4j-stream", "session", failed, null);
            }
            return Dispatcher.swapSession(session);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
                depth[1] = savedModel;
            }
            Dispatcher.restoreSession(previous);
        }
    }

    /**
     * ASSISTANT: the complete streamed response, once, before the AI service stores it or hands it on. A replacement
     * (block notice, redacted text) becomes the response; a {@code TracegateViolation} ({@code onBlock=throw}) is
     * delivered to the stream's error handler and the response is dropped.
     */
    public static final class StreamCompletionAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter(@Advice.This StreamingChatResponseHandler self,
                             @Advice.FieldValue("invocationContext") InvocationContext context,
                             @Advice.Argument(value = 0, readOnly = false) ChatResponse response) {
            AiMessage message = response == null ? null : response.aiMessage();
            String thinking = message == null ? null : message.thinking();
            if (message == null || (message.text() == null || message.text().isEmpty()) && (thinking == null || thinking.isEmpty())) {
                return false;
            }
            // the event's text: the answer's text, then its thinking on the next line (as ChatAdvice's)
            String said = thinking == null || thinking.isEmpty() ? message.text()
                    : message.text() == null || message.text().isEmpty() ? thinking : message.text() + "\n" + thinking;
            String replacement;
            try {
                Object memoryId = context == null ? null : context.chatMemoryId();
                replacement = Dispatcher.onAssistantMessage("langchain4j-stream",
                        AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters()), said);
            } catch (Throwable failed) {
                TracegateViolation violation = failed instanceof TracegateViolation ? (TracegateViolation) failed : null;
                if (violation == null) {
                    // this advice's own failure (e.g. a chat memory id that cannot be read): closed refuses the answer
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
                // its tool calls and attributes kept, less its thinking and what carries the replaced text (as ChatAdvice's)
                response = response.toBuilder().aiMessage(AiMessage.builder().text(replacement)
                        .toolExecutionRequests(message.toolExecutionRequests())
                        .attributes(ReplacedMessage.metadata(message.attributes(), java.util.Arrays.asList(message.text(), message.thinking())))
                        .build()).build();
            }
            return false;
        }

        /**
         * A tool requested in the streamed response runs inside this method; blocked under {@code block.style: exception}
         * it throws a {@code TracegateViolation}, which would leave on the provider's thread and leave the
         * {@code TokenStream} waiting for ever (trial12). It goes to the handler's {@code onError}, as a blocked
         * streamed answer does; any other throwable goes on as the framework lets it.
         */
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

    /**
     * ASSISTANT for a streaming model called directly (not through an AI service): the complete response as it reaches
     * the listener wrapper of {@code StreamingChatModel#chat}, in the session of this thread, else "default" (a model
     * call carries no conversation id). A replacement becomes the response; a {@code TracegateViolation} goes to the
     * handler's {@code onError} and the response is dropped.
     */
    public static final class DirectStreamCompletionAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static boolean enter(@Advice.This StreamingChatResponseHandler self,
                             @Advice.FieldValue("val$handler") Object delegate,
                             @Advice.Argument(value = 0, readOnly = false) ChatResponse response) {
            if (delegate == null || delegate.getClass().getName().equals(SERVICE_STREAM_HANDLER)
                    || delegate.getClass().getName().equals(QuarkusAdvice.STREAM_HANDLER)) {   // checked by its own advice
                return false;
            }
            AiMessage message = response == null ? null : response.aiMessage();
            String thinking = message == null ? null : message.thinking();
            if (message == null || (message.text() == null || message.text().isEmpty()) && (thinking == null || thinking.isEmpty())) {
                return false;
            }
            // the event's text: the answer's text, then its thinking on the next line (as ChatAdvice's)
            String said = thinking == null || thinking.isEmpty() ? message.text()
                    : message.text() == null || message.text().isEmpty() ? thinking : message.text() + "\n" + thinking;
            String replacement;
            try {
                replacement = Dispatcher.onAssistantMessage("langchain4j-stream", Dispatcher.session("default"), said);
            } catch (Throwable failed) {
                TracegateViolation violation = failed instanceof TracegateViolation ? (TracegateViolation) failed : null;
                if (violation == null) {
                    // this advice's own failure (e.g. a chat memory id that cannot be read): closed refuses the answer
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
                // its tool calls and attributes kept, less its thinking and what carries the replaced text (as ChatAdvice's)
                response = response.toBuilder().aiMessage(AiMessage.builder().text(replacement)
                        .toolExecutionRequests(message.toolExecutionRequests())
                        .attributes(ReplacedMessage.metadata(message.attributes(), java.util.Arrays.asList(message.text(), message.thinking())))
                        .build()).build();
            }
            return false;
        }
    }

    /**
     * The results of tools declared {@code @Tool(returnBehavior = IMMEDIATE)} (or {@code IMMEDIATE_IF_LAST}), with which
     * the AI service ends the turn without another model round: the application gets them from
     * {@code Result.toolExecutions()} (1.19.0 also as the method's own value, the tool's returned object, when its type
     * fits). Each is the conversation's ASSISTANT event, checked before the AI service builds what it returns: a
     * replacement (notice, masked text) becomes that execution's result text, and its result object when the tool
     * returned text (another type cannot carry it: null); a block under {@code block.style: exception} throws to the
     * caller. A result {@link ImmediateCallbackAdvice} checked as its tool ended is not checked again: its decision is
     * taken over. The chat memory keeps the result as the model's input of the next turn, as for any tool.
     */
    public static final class ImmediateReturnAdvice {

        @Advice.OnMethodExit
        static void exit(@Advice.Argument(1) Object memoryId,
                         @Advice.Argument(6) InvocationContext context,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) ToolServiceResult result) {
            if (result == null) {
                return;
            }
            if (!result.immediateToolReturn()) {
                // the loop ended with the model's answer, which ChatAdvice checked; a result checked as an answer as its
                // tool ended in a round that went on to the model (IMMEDIATE_IF_LAST not last, beside other tools) is
                // taken by no one now: its decision is forgotten, so that it does not hold one of the 64 slots
                try {
                    List<ToolExecution> done = result.toolExecutions();
                    for (int i = 0; done != null && i < done.size() && Dispatcher.anyCheckedAnswer(); i++) {
                        ToolExecution execution = done.get(i);
                        if (execution != null) {
                            Dispatcher.checkedAnswer(execution.request(), true);
                        }
                    }
                } catch (Throwable failed) {
                    Dispatcher.adviceFailed("langchain4j", "immediate tool answer", failed, null);   // counted; the answer was checked
                }
                return;
            }
            try {
                Object id = context != null && context.chatMemoryId() != null ? context.chatMemoryId() : memoryId;
                String session = AgenticRuns.conversation(id, context == null ? null : context.managedParameters());
                List<ToolExecution> executions = result.toolExecutions();
                // the executions are those of every round of the turn; the answer is the last round's (the requests of
                // the final response): an earlier round's result went to the model, and is no answer (before, a lookup
                // tool's result of the first round was checked as a second ASSISTANT event and could be blocked)
                ChatResponse last = result.finalResponse();
                List<ToolExecutionRequest> answering = last == null || last.aiMessage() == null || !last.aiMessage().hasToolExecutionRequests()
                        ? null : last.aiMessage().toolExecutionRequests();
                List<ToolExecution> checked = null;
                // an agent of an agentic run: its answer is the tool's result as checked, which the module may return
                // as the run's result (not to be recorded again there)
                Object turn = AgenticRuns.turn();
                for (int i = 0; executions != null && i < executions.size(); i++) {
                    ToolExecution execution = executions.get(i);
                    String text = execution == null ? null : execution.result();
                    if (text == null || text.isEmpty()) {
                        continue;
                    }
                    if (answering != null && !answering.contains(execution.request())) {
                        Dispatcher.checkedAnswer(execution.request(), true);   // forgets a decision of a round that went on
                        continue;
                    }
                    // checked as the tool ended, before its callbacks got it: that decision, not a second ASSISTANT event
                    String replacement = Dispatcher.checkedAnswer(execution.request(), true);
                    if (replacement == null) {
                        replacement = Dispatcher.onAssistantMessage("langchain4j", session, text);
                    } else if (replacement == Dispatcher.KEPT) {
                        replacement = null;
                    }
                    AgenticRuns.answered(turn, replacement != null ? replacement : text);
                    if (replacement == null) {
                        continue;
                    }
                    if (checked == null) {
                        checked = new ArrayList<ToolExecution>(executions);
                    }
                    Object returned = execution.resultObject();
                    ToolExecutionResult replaced = ToolExecutionResult.builder()
                            .isError(execution.hasFailed())
                            .result(returned instanceof CharSequence ? replacement : null)
                            .resultText(replacement)
                            .build();
                    ToolExecution.Builder copy = ToolExecution.builder().request(execution.request()).result(replaced);
                    try {
                        copy.startTime(execution.startTime()).finishTime(execution.finishTime()).invocationContext(execution.invocationContext());
                    } catch (LinkageError older) {
                        // 1.11.0's ToolExecution has no times or invocation context
                    }
                    checked.set(i, copy.build());
                }
                if (checked != null) {
                    result = ToolServiceResult.builder()
                            .intermediateResponses(result.intermediateResponses())
                            .finalResponse(result.finalResponse())
                            .toolExecutions(checked)
                            .aggregateTokenUsage(result.aggregateTokenUsage())
                            .immediateToolReturn(true)
                            .build();
                }
            } catch (TracegateViolation violation) {
                throw violation;   // a block under block.style: exception (or fail: closed inside the dispatcher)
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the answer is refused, as a model answer would be
                }
            } finally {
                Dispatcher.dropAdoptedSession();   // the turn's answer: a session adopted for it ends here
            }
        }
    }

    /**
     * The result of a tool declared {@code IMMEDIATE} (1.19.0: also {@code IMMEDIATE_IF_LAST}) where the tool service
     * runs it ({@code ToolService#internalExecuteTool}, blocking and streaming, also with tools run concurrently) and
     * hands it to the callbacks as it ends: {@code AiServices...afterToolExecution(...)} and a {@code TokenStream}'s
     * {@code onToolExecuted} (both in {@code after}). The result may be the turn's answer, which these callbacks are the
     * first to get, so it is the conversation's ASSISTANT event, checked before they get it: the advice takes
     * {@code after} from the method, checks the result text, notes the decision for the listeners' event
     * ({@link ToolExecutedEventAdvice}) and the AI service's return ({@link ImmediateReturnAdvice}), and hands
     * {@code after} what the decision leaves (a replacement as result text, and as result object when the tool returned
     * text). The method returns the result as its RETURN left it (the chat memory keeps that). A block under
     * {@code block.style: exception} throws from the tool's execution: the AI service method throws it (a stream ends
     * with {@code onError}), and no callback gets the result. 1.19.0: a tool is immediate by the tool service's own tools,
     * by the mark of the streaming handler that runs it ({@link StreamImmediateAdvice}: a {@code ToolProvider}'s tools
     * too), or by its request's mark from the blocking loop's round ({@link RoundImmediateAdvice}: a {@code ToolProvider}'s
     * tools); a failed result never ends a 1.19.0 round and is handed on unchecked.
     * Per tool call: one thread-local read and one return-behaviour look-up (map get), no allocation, when not immediate.
     */
    public static final class ImmediateCallbackAdvice {

        @Advice.OnMethodEnter
        static String enter(@Advice.This ToolService service,
                            @Advice.Argument(2) ToolExecutionRequest request,
                            @Advice.Argument(value = 4, readOnly = false) Consumer<ToolExecution> after,
                            @Advice.Local("tgAfter") Consumer<ToolExecution> held,
                            @Advice.Local("tgStart") java.time.LocalDateTime start) {
            String framework = Dispatcher.takeImmediateMark();
            try {
                if (request == null) {
                    return null;
                }
                if (framework == null) {
                    ReturnBehavior behaviour = service.returnBehavior(request.name());
                    if (behaviour != ReturnBehavior.IMMEDIATE && behaviour != ReturnBehavior.IMMEDIATE_IF_LAST
                            && !Dispatcher.takeImmediateRequest(request)) {   // a tool provider's, marked by RoundImmediateAdvice
                        return null;
                    }
                    framework = "langchain4j";
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the tool does not run unchecked
                }
                return null;
            }
            held = after;
            after = null;   // the callbacks get the result after its check (exit)
            start = java.time.LocalDateTime.now();
            return framework;
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter String framework,
                         @Advice.Argument(0) InvocationContext context,
                         @Advice.Argument(2) ToolExecutionRequest request,
                         @Advice.Local("tgAfter") Consumer<ToolExecution> held,
                         @Advice.Local("tgStart") java.time.LocalDateTime start,
                         @Advice.Return ToolExecutionResult result) {
            if (framework == null) {
                return;
            }
            ToolExecutionResult shown = result;
            String text = null;
            if (result != null && !result.isError()) {
                // its text as the tool-result advice reads it: several contents (1.14+) by ContentsText, as resultText() throws
                List<Content> contents = null;
                try {
                    contents = result.resultContents();
                } catch (LinkageError older) {
                    // 1.11 to 1.13: a result is one text
                }
                text = contents == null ? result.resultText()
                        : contents.size() == 1 && contents.get(0) instanceof TextContent ? ((TextContent) contents.get(0)).text()
                        : ContentsText.of(contents);
            }
            if (text != null && !text.isEmpty()) {
                String replacement = null;
                try {
                    Object memoryId = context == null ? null : context.chatMemoryId();
                    replacement = Dispatcher.onAssistantMessage(framework,
                            AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters()), text);
                } catch (TracegateViolation violation) {
                    throw violation;   // a block under block.style: exception: the caller (or the stream's onError) gets it
                } catch (Throwable failed) {
                    Ruling refusal = Dispatcher.adviceFailed(framework, "immediate tool answer", failed, null);
                    if (refusal != null) {
                        throw refusal.violation();   // fail: closed: the answer is refused, as a model answer would be
                    }
                }
                // a stream's listeners' event is the decision's last use; a blocking loop's return takes it after the event
                Dispatcher.answerChecked(request, replacement, "langchain4j-stream".equals(framework));
                if (replacement != null) {
                    shown = ToolExecutionResult.builder().isError(false)
                            .result(result.result() instanceof CharSequence ? replacement : null)
                            .resultText(replacement).build();
                }
            }
            if (held != null) {
                held.accept(ToolExecution.builder().request(request).result(shown)
                        .startTime(start).finishTime(java.time.LocalDateTime.now()).invocationContext(context).build());
            }
        }
    }

    /**
     * {@link ImmediateCallbackAdvice} for lines whose tool service knows its immediate tools by name only (1.11.0, also a
     * streaming handler's: 1.11.0 decides there by the same set) and ends a round of them also when one failed, so a
     * failed result is checked as well; 1.11.0's {@code ToolExecution} has no times or invocation context.
     */
    public static final class OlderImmediateCallbackAdvice {

        @Advice.OnMethodEnter
        static String enter(@Advice.This ToolService service,
                            @Advice.Argument(2) ToolExecutionRequest request,
                            @Advice.Argument(value = 4, readOnly = false) Consumer<ToolExecution> after,
                            @Advice.Local("tgAfter") Consumer<ToolExecution> held) {
            String framework = Dispatcher.takeImmediateMark();
            try {
                if (request == null) {
                    return null;
                }
                if (framework == null) {
                    if (!service.isImmediateTool(request.name()) && !Dispatcher.takeImmediateRequest(request)) {
                        return null;
                    }
                    framework = "langchain4j";
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the tool does not run unchecked
                }
                return null;
            }
            held = after;
            after = null;   // the callbacks get the result after its check (exit)
            return framework;
        }

        @Advice.OnMethodExit
        static void exit(@Advice.Enter String framework,
                         @Advice.Argument(0) InvocationContext context,
                         @Advice.Argument(2) ToolExecutionRequest request,
                         @Advice.Local("tgAfter") Consumer<ToolExecution> held,
                         @Advice.Return ToolExecutionResult result) {
            if (framework == null) {
                return;
            }
            ToolExecutionResult shown = result;
            String text = null;
            if (result != null) {
                // its text as the tool-result advice reads it: several contents (1.14+) by ContentsText, as resultText() throws
                List<Content> contents = null;
                try {
                    contents = result.resultContents();
                } catch (LinkageError older) {
                    // 1.11 to 1.13: a result is one text
                }
                text = contents == null ? result.resultText()
                        : contents.size() == 1 && contents.get(0) instanceof TextContent ? ((TextContent) contents.get(0)).text()
                        : ContentsText.of(contents);
            }
            if (text != null && !text.isEmpty()) {
                String replacement = null;
                try {
                    Object memoryId = context == null ? null : context.chatMemoryId();
                    replacement = Dispatcher.onAssistantMessage(framework,
                            AgenticRuns.conversation(memoryId, context == null ? null : context.managedParameters()), text);
                } catch (TracegateViolation violation) {
                    throw violation;   // a block under block.style: exception: the caller (or the stream's onError) gets it
                } catch (Throwable failed) {
                    Ruling refusal = Dispatcher.adviceFailed(framework, "immediate tool answer", failed, null);
                    if (refusal != null) {
                        throw refusal.violation();   // fail: closed: the answer is refused, as a model answer would be
                    }
                }
                // a stream's listeners' event is the decision's last use; a blocking loop's return takes it after the event
                Dispatcher.answerChecked(request, replacement, "langchain4j-stream".equals(framework));
                if (replacement != null) {
                    shown = ToolExecutionResult.builder().isError(result.isError())
                            .result(result.result() instanceof CharSequence ? replacement : null)
                            .resultText(replacement).build();
                }
            }
            if (held != null) {
                held.accept(ToolExecution.builder().request(request).result(shown).build());
            }
        }
    }

    /**
     * A listener's {@code ToolExecutedEvent} (both the blocking tool loop's and a streaming handler's, every line): the
     * event of a tool whose result {@link ImmediateCallbackAdvice} checked as an answer carries what the check left.
     * Other events cost an instanceof; a tool's event costs one volatile read while no immediate result's decision is held.
     */
    public static final class ToolExecutedEventAdvice {

        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(value = 0, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object event) {
            if (!(event instanceof ToolExecutedEvent)) {
                return;
            }
            try {
                ToolExecutedEvent executed = (ToolExecutedEvent) event;
                String replacement = Dispatcher.checkedAnswerForEvent(executed.request());
                if (replacement == null || replacement == Dispatcher.KEPT) {
                    return;
                }
                ToolExecutedEvent.ToolExecutedEventBuilder copy = ToolExecutedEvent.builder()
                        .invocationContext(executed.invocationContext()).request(executed.request());
                try {
                    copy.resultContents(List.<Content>of(TextContent.from(replacement)));
                } catch (LinkageError older) {
                    copy.resultText(replacement);   // 1.11.0: the event has text only
                }
                event = copy.build();
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool event", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the listeners do not get the result unchecked
                }
            }
        }
    }

    /**
     * The tool context of the AI service's tool loop ({@code ToolService#executeInferenceAndToolsLoop}: which tools the
     * invocation has, a {@code ToolProvider}'s too, and how each returns), on this thread while the loop runs, for
     * {@link RoundImmediateAdvice}; put back on exit, also when the loop throws. Once per AI service loop.
     */
    public static final class ToolContextScopeAdvice {

        @Advice.OnMethodEnter
        static Object enter(@Advice.Argument(7) Object tools) {
            try {
                return Dispatcher.swapToolContext(tools);
            } catch (Throwable failed) {
                // counted, logged once; closed: the loop does not run with its provider's immediate tools unmarked
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
                return null;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Object previous) {
            try {
                Dispatcher.swapToolContext(previous);
            } catch (Throwable failed) {
                Dispatcher.adviceFailed("langchain4j", "immediate tool mark", failed, null);   // counted; the loop has ended
            }
        }
    }

    /** 1.19.0's loop refreshes its tool context from dynamic tool providers at each round: the refreshed one is the loop's. */
    public static final class ToolContextRefreshAdvice {

        @Advice.OnMethodExit
        static void exit(@Advice.Argument(0) Object before, @Advice.Return Object refreshed) {
            try {
                if (refreshed != before && Dispatcher.toolContext() == before) {
                    Dispatcher.swapToolContext(refreshed);
                }
            } catch (Throwable failed) {
                // counted, logged once; closed: the round does not run with a refreshed provider's immediate tools unmarked
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /**
     * A round of the blocking tool loop ({@code ToolService#execute}, on the loop's thread, before any of its tools runs):
     * a tool that the loop's tool context says is {@code IMMEDIATE} (or {@code IMMEDIATE_IF_LAST}) but the tool service
     * does not know as such (a {@code ToolProvider}'s) is marked by its request, so that {@link ImmediateCallbackAdvice}
     * checks its result before the callbacks get it, on whichever thread it runs. Per round: one return-behaviour look-up
     * per tool request.
     */
    public static final class RoundImmediateAdvice {

        /**
         * Its own failure (reading the round's requests or the return behaviours) is counted as an internal error, logged
         * once, and follows {@code fail:}: closed refuses the round (the AI service throws the refusal's
         * {@code TracegateViolation}: an unmarked immediate tool's result would reach its callbacks unchecked); open lets
         * the round run unmarked.
         */
        @Advice.OnMethodEnter
        static void enter(@Advice.This ToolService service, @Advice.Argument(0) List<ToolExecutionRequest> requests) {
            try {
                Object context = Dispatcher.toolContext();
                if (!(context instanceof ToolServiceContext) || requests == null) {
                    return;
                }
                ToolServiceContext tools = (ToolServiceContext) context;
                for (int i = 0; i < requests.size(); i++) {
                    ToolExecutionRequest request = requests.get(i);
                    String name = request == null ? null : request.name();
                    if (name == null) {
                        continue;
                    }
                    ReturnBehavior behaviour = tools.returnBehavior(name);
                    if (behaviour == ReturnBehavior.IMMEDIATE || behaviour == ReturnBehavior.IMMEDIATE_IF_LAST) {
                        ReturnBehavior own = service.returnBehavior(name);
                        if (own != ReturnBehavior.IMMEDIATE && own != ReturnBehavior.IMMEDIATE_IF_LAST) {
                            Dispatcher.markImmediateRequest(request);
                        }
                    }
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /** {@link RoundImmediateAdvice} for lines whose tool context lists its immediate tools by name (1.11.0). */
    public static final class OlderRoundImmediateAdvice {

        /** Its own failure: as {@link RoundImmediateAdvice}'s (counted, logged once, closed refuses the round). */
        @Advice.OnMethodEnter
        static void enter(@Advice.This ToolService service, @Advice.Argument(0) List<ToolExecutionRequest> requests) {
            try {
                Object context = Dispatcher.toolContext();
                if (!(context instanceof ToolServiceContext) || requests == null) {
                    return;
                }
                java.util.Set<String> immediate = ((ToolServiceContext) context).immediateReturnTools();
                if (immediate == null || immediate.isEmpty()) {
                    return;
                }
                for (int i = 0; i < requests.size(); i++) {
                    ToolExecutionRequest request = requests.get(i);
                    String name = request == null ? null : request.name();
                    if (name != null && immediate.contains(name) && !service.isImmediateTool(name)) {
                        Dispatcher.markImmediateRequest(request);
                    }
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /**
     * A streaming AI service runs each tool here; 1.19.0's handler knows a tool's return behaviour from its tool context
     * (also a {@code ToolProvider}'s tools, which the tool service does not know): an {@code IMMEDIATE} (or
     * {@code IMMEDIATE_IF_LAST}) tool is marked on this thread as one whose result is checked as the streamed turn's
     * answer ({@code langchain4j-stream}) by {@link ImmediateCallbackAdvice}, where the tool service then runs it. The
     * mark is cleared on exit, whatever happened.
     */
    public static final class StreamImmediateAdvice {

        /**
         * Its own failure is counted, logged once, and follows {@code fail:}: closed refuses the tool (its execution
         * throws the refusal's {@code TracegateViolation}, which ends the stream with {@code onError}); open runs it
         * unmarked.
         */
        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) ToolExecutionRequest request,
                          @Advice.FieldValue("toolServiceContext") ToolServiceContext tools) {
            try {
                ReturnBehavior behaviour = tools == null || request == null ? null : tools.returnBehavior(request.name());
                if (behaviour == ReturnBehavior.IMMEDIATE || behaviour == ReturnBehavior.IMMEDIATE_IF_LAST) {
                    Dispatcher.markImmediate("langchain4j-stream");
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j-stream", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            try {
                Dispatcher.markImmediate(null);
            } catch (Throwable failed) {
                Dispatcher.adviceFailed("langchain4j-stream", "immediate tool mark", failed, null);   // counted; the tool has run
            }
        }
    }

    /**
     * {@link StreamImmediateAdvice} for lines whose streaming handler has no tool context (1.11.0): the AI service's
     * {@code ToolService} says which tools are {@code IMMEDIATE}, as 1.11.0 itself decides; the mark names the check
     * {@code langchain4j-stream}.
     */
    public static final class OlderStreamImmediateAdvice {

        /** Its own failure: as {@link StreamImmediateAdvice}'s (counted, logged once, closed refuses the tool). */
        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) ToolExecutionRequest request,
                          @Advice.FieldValue("context") AiServiceContext service) {
            try {
                if (request != null && service != null && service.toolService != null && service.toolService.isImmediateTool(request.name())) {
                    Dispatcher.markImmediate("langchain4j-stream");
                }
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j-stream", "immediate tool mark", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit() {
            try {
                Dispatcher.markImmediate(null);
            } catch (Throwable failed) {
                Dispatcher.adviceFailed("langchain4j-stream", "immediate tool mark", failed, null);   // counted; the tool has run
            }
        }
    }

    /**
     * Scopes the chat memory id to one AI service invocation on this thread; and opens a new nesting scope: an AI service
     * called inside a tool (a sub-agent, its own chat memory id) is an invocation of its own, whose tool calls and model
     * calls are supervised, not taken for layers of the enclosing tool call. Both guards start over here and are put back
     * on exit, also when the invocation throws.
     */
    public static final class InvocationScopeAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel) {
            // before, the tool calls of an AI service invoked inside a tool ran unsupervised (no record, nothing
            // blocked): ExecuteAdvice saw the enclosing tool call's depth and took them for its layers
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            Dispatcher.dropAdoptedSession();   // left by a turn in flight at the attach that ended without an answer
            return Dispatcher.swapSession(null);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
                depth[1] = savedModel;
            }
            Dispatcher.restoreSession(previous);
        }
    }

    /**
     * langchain4j-agentic: a workflow's or supervisor's invocation has found its {@code AgenticScope}. For the outermost
     * one (the application's call: the handler has no scope of its own; a nested workflow is invoked by the module with
     * the parent's scope and arguments read from it), the run's scope is noted and the application's arguments are the
     * run's USER event ({@link AgenticRuns#runStarts}), before the module writes them to the scope; the prompts of the AI
     * services inside the run are not USER events (ChatAdvice). Per run, not per call.
     */
    public static final class AgenticRunAdvice {

        @Advice.OnMethodExit
        static void exit(@Advice.FieldValue("agenticScope") Object own,
                         @Advice.Argument(1) java.lang.reflect.Method method,
                         @Advice.Argument(2) Object[] args,
                         @Advice.Return Object scope) {
            if (own != null) {
                return;
            }
            try {
                AgenticRuns.runStarts(scope, method, args);
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "agentic run's user message", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the run does not start unchecked
                }
            }
        }
    }

    /**
     * The outermost langchain4j-agentic invocation ({@code PlannerBasedInvocationHandler#executeAgentMethod} of a handler
     * without a scope of its own) returns the run's result to the application: text no agent of the run answered (a
     * {@code SUMMARY} supervisor's done response, a workflow's {@code output} function) is checked as the run's answer
     * ({@link AgenticRuns#runEnds}); a replacement is what the application gets, a block under
     * {@code block.style: exception} throws. Per run, not per call.
     */
    public static final class AgenticResultAdvice {

        @Advice.OnMethodEnter
        static Object enter(@Advice.FieldValue("agenticScope") Object own) {
            try {
                return own != null ? null : AgenticRuns.enterRun();
            } catch (Throwable failed) {
                // counted, logged once; closed: the run does not start with its answer unchecked
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "agentic run's answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
                return null;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.FieldValue("agenticScope") Object own,
                         @Advice.Enter Object outer,
                         @Advice.Thrown Throwable thrown,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result) {
            if (own != null) {
                return;
            }
            Object run;
            try {
                run = AgenticRuns.exitRun(outer);   // each run its own, also two of one memory id (one scope) at once
            } catch (Throwable failed) {
                // counted, logged once; closed: the result is refused, as the dispatcher's own internal error on an answer
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "agentic run's answer", failed, null);
                if (refusal != null && thrown == null) {
                    throw refusal.violation();
                }
                run = null;
            }
            if (thrown != null || run == null) {
                return;
            }
            String replacement;
            try {
                replacement = AgenticRuns.runEnds(run, result);
            } catch (TracegateViolation violation) {
                throw violation;   // a block under block.style: exception (or fail: closed inside the dispatcher)
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "agentic run's answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed, as the dispatcher's own internal error on an answer
                }
                replacement = null;
            }
            if (replacement != null) {
                result = replacement;
            }
        }
    }

    /** Learns the chat memory id of the running AI service invocation, for model-call events. */
    public static final class SessionAdvice {

        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) InvocationContext context) {
            try {
                if (context != null && context.chatMemoryId() != null) {
                    // inside an agentic run, an AI service without a memory id of its own is checked in the run's, and its
                    // prompt is the module's, not the user's words (AgenticRuns.Turn)
                    Dispatcher.swapSession(AgenticRuns.invocationSession(context.chatMemoryId(), context.managedParameters(), context.interfaceName()));
                }
            } catch (Throwable failed) {
                // counted, logged once; closed: the invocation does not run with its events in another conversation
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "session", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /** {@link SessionAdvice} for lines whose {@code prepareSystemMessage} is given the chat memory id ("default" without {@code @MemoryId}). */
    public static final class MemoryIdSessionAdvice {

        @Advice.OnMethodEnter
        static void enter(@Advice.Argument(0) Object memoryId) {
            try {
                Dispatcher.swapSession(memoryId);
            } catch (Throwable failed) {
                // counted, logged once; closed: the invocation does not run with its events in another conversation
                Ruling refusal = Dispatcher.adviceFailed("langchain4j", "session", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }
}
