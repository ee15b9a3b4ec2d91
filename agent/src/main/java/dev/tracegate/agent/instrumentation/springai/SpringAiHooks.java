package dev.tracegate.agent.instrumentation.springai;

import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.HandlerScope;
import dev.tracegate.agent.bootstrap.ReplacedMessage;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.StreamCheck;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.instrumentation.HookPoint;
import dev.tracegate.agent.instrumentation.Hooks;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.model.tool.internal.ToolCallReactiveContextHolder;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.execution.ToolExecutionException;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import reactor.util.context.Context;
import reactor.util.context.ContextView;

import java.util.ArrayList;
import java.util.List;

import static dev.tracegate.agent.instrumentation.TypeMatch.subTypeOf;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNameStartsWith;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNamed;
import static net.bytebuddy.matcher.ElementMatchers.hasSuperType;
import static net.bytebuddy.matcher.ElementMatchers.isAbstract;
import static net.bytebuddy.matcher.ElementMatchers.isInterface;
import static net.bytebuddy.matcher.ElementMatchers.isStatic;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.not;
import static net.bytebuddy.matcher.ElementMatchers.returns;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * Spring AI (tested with 2.0.1 and 1.1.2): {@code ToolCallback#call(String[, ToolContext])} on the interface and every
 * implementation (method, function and MCP callbacks), counted once; the conversation id from the request's
 * {@code ToolContext} ({@code chat_memory_conversation_id}), else the advisor context, at
 * {@code DefaultAroundAdvisorChain#nextCall} (same thread as blocking tool calls) and
 * {@code #nextStream} (written into the Reactor context, which Spring AI hands to the tool thread through
 * {@code ToolCallReactiveContextHolder}); USER and ASSISTANT at {@code ChatModel#call(Prompt)}, USER and the streamed
 * answer at {@code ChatModel#stream(Prompt)}; the results of {@code returnDirect} tools, which Spring AI hands to the
 * application as the answer, as ASSISTANT at {@code DefaultToolCallingManager#executeToolCalls}. Each generation's text of
 * a blocking response is an ASSISTANT event of its own (a reasoning generation before the answer, n > 1 choices), a
 * replacement rewrites only the generation that broke the contract. A blocking response that asks for tools is checked
 * too: each generation's text beside the requests is an ASSISTANT event, before the tools run;
 * a replacement keeps the tool calls (decided as CALL events when they run), a block under {@code block.style: exception}
 * refuses the round (its tools do not run), as for text a stream shows before its request for tools.
 *
 * <p>A tool that throws is the tool's error RETURN (text = the tool's exception class and message). Spring AI wraps it in
 * a {@code ToolExecutionException}, whose message its exception processor gives the model (by default): when a contract
 * withholds that result, the advice throws a {@code ToolExecutionException} of the same tool whose message is the notice
 * instead, so the processor handles the notice as it would have handled the original; when nothing acts the host's own
 * throwable goes on unchanged. A redirect runs its target inside the advice: the target's result (or failure) is the
 * target's RETURN, and the model gets what that decision leaves.
 *
 * <p>Streamed ASSISTANT text ({@code ChatModel#stream(Prompt)}, called directly or by a {@code ChatClient}, 2.0.x and
 * 1.1.x): the Flux the outermost {@code stream} call returns is wired to a {@link StreamCheck}, which lets every chunk
 * through as it arrives and checks the complete answer (the text after the last chunk that asked for tools) once the
 * model's stream completes, in the session the thread had while the stream was assembled (a {@code ChatClient}'s
 * conversation id, else "default"). A violation appends one more chunk carrying the notice, or, with
 * {@code block.style: exception}, ends the stream with {@code TracegateViolation} as its error. A {@code ChatClient} calls
 * {@code stream} once per model round, so each round is checked once; text a round streams before it asks for tools has
 * reached the application too and is checked as its own ASSISTANT event when the request for tools arrives (its notice
 * follows at the end of the round, a block under {@code block.style: exception} ends the stream before the tools run);
 * its advisors then see the notice as part of the answer, as the application does. A model call or stream for the same
 * {@code Prompt} while that stream is subscribed (a model whose {@code stream} runs its own {@code call} later, inside
 * {@code Flux.defer}, on a worker thread where the conversation is not set) is nested in it: its USER is not checked
 * again; a blocking call's answer is checked in the stream's conversation, before it is streamed (so a violation is
 * replaced before any of it is shown), and the stream does not check it a second time; a nested stream's chunks are
 * checked by the outer stream only.
 */
public final class SpringAiHooks implements Hooks {

    static final String TOOL_CALLBACK = "org.springframework.ai.tool.ToolCallback";
    static final String CHAT_MODEL = "org.springframework.ai.chat.model.ChatModel";
    /** The framework name of streamed answers (its log lines and the stream check's chunk reader). */
    static final String STREAM = "springai-stream";
    /** {@code ChatMemory.CONVERSATION_ID}. */
    public static final String CONVERSATION_ID = "chat_memory_conversation_id";

    @Override
    public String name() {
        return "springai";
    }

    @Override
    public String frameworkPackage() {
        return "org.springframework.ai";
    }

    @Override
    public List<String> chokePoints() {
        return List.of(TOOL_CALLBACK, "org.springframework.ai.model.tool.DefaultToolCallingManager");
    }

    @Override
    public List<String> chokePointSiblings() {
        // spring-ai-model, as both choke points (1.0.3 to 2.0.1)
        return List.of("org.springframework.ai.tool.definition.ToolDefinition", "org.springframework.ai.model.tool.ToolCallingManager");
    }

    @Override
    public String marker() {
        return TOOL_CALLBACK;
    }

    @Override
    public List<HookPoint> points() {
        String self = SpringAiHooks.class.getName();
        // the advice that checks streamed answers reads their chunks through this (it runs only once these points are woven)
        Dispatcher.installChunks(STREAM, new ChatResponseChunks());
        return List.of(
                new HookPoint(subTypeOf(TOOL_CALLBACK),
                        named("call").and(not(isAbstract())).and(returns(String.class))
                                .and(takesArguments(1).or(takesArguments(2).and(takesArgument(1, named("org.springframework.ai.chat.model.ToolContext")))))
                                .and(takesArgument(0, String.class)),
                        self + "$ToolCallAdvice"),
                new HookPoint(typeNamed("org.springframework.ai.model.tool.DefaultToolCallingManager"),
                        named("executeToolCall").and(takesArgument(0, named("org.springframework.ai.chat.prompt.Prompt"))),
                        self + "$ToolTableAdvice").role("the tool table a redirect runs its target from"),
                new HookPoint(typeNamed("org.springframework.ai.model.tool.DefaultToolCallingManager"),
                        named("executeToolCalls").and(takesArguments(2)).and(takesArgument(0, named("org.springframework.ai.chat.prompt.Prompt"))),
                        self + "$ReturnDirectAdvice").role("the answer a returnDirect tool hands to the application"),
                new HookPoint(typeNamed("org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain"),
                        named("nextCall").and(takesArguments(1)).and(takesArgument(0, named("org.springframework.ai.chat.client.ChatClientRequest"))),
                        self + "$ConversationAdvice").role("the conversation id (the session) of ChatClient calls"),
                new HookPoint(typeNamed("org.springframework.ai.chat.client.advisor.DefaultAroundAdvisorChain"),
                        named("nextStream").and(takesArguments(1)).and(takesArgument(0, named("org.springframework.ai.chat.client.ChatClientRequest"))),
                        self + "$StreamConversationAdvice").role("the conversation id (the session) of streamed ChatClient calls"),
                new HookPoint(subTypeOf("org.springframework.ai.chat.client.advisor.api.StreamAdvisor"),
                        named("adviseStream").and(not(isAbstract())).and(takesArguments(2))
                                .and(takesArgument(0, named("org.springframework.ai.chat.client.ChatClientRequest"))),
                        self + "$StreamAdvisorScopeAdvice"),
                // the user's own text before an advisor (QuestionAnswerAdvisor, RetrievalAugmentationAdvisor, the
                // application's own) added to it: the USER event is that text, not the retrieved documents
                new HookPoint(subTypeOf("org.springframework.ai.chat.client.advisor.api.BaseAdvisor").and(not(isInterface())),
                        named("before").and(not(isAbstract())).and(takesArguments(2))
                                .and(takesArgument(0, named("org.springframework.ai.chat.client.ChatClientRequest")))
                                .and(returns(named("org.springframework.ai.chat.client.ChatClientRequest"))),
                        self + "$AugmentAdvice").role("the user's own text before an advisor augmented it (RAG)"),
                // the user's own text before ChatModelCallAdvisor appended a structured output's format instructions
                // (.entity(...)): the USER event is that text, not the JSON schema (augmentWithFormatInstructions, private
                // static in 1.0.x to 2.0.x; matched by its shape)
                new HookPoint(typeNamed("org.springframework.ai.chat.client.advisor.ChatModelCallAdvisor"),
                        isStatic().and(takesArguments(1))
                                .and(takesArgument(0, named("org.springframework.ai.chat.client.ChatClientRequest")))
                                .and(returns(named("org.springframework.ai.chat.client.ChatClientRequest"))),
                        self + "$FormatAdvice").role("the user's own text before the structured output format was appended"),
                // call(Prompt) and stream(Prompt): the same USER check before; ASSISTANT after call, and for stream a
                // check of the complete answer wired into the returned Flux
                new HookPoint(subTypeOf(CHAT_MODEL),
                        named("call").or(named("stream")).and(not(isAbstract())).and(takesArguments(1))
                                .and(takesArgument(0, named("org.springframework.ai.chat.prompt.Prompt"))),
                        self + "$ChatAdvice"));
    }

    /** CALL and RETURN around a tool callback; block, redirect, redact, suppress. */
    public static final class ToolCallAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.This ToolCallback self,
                            @Advice.AllArguments(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object[] args,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgSession") String session,
                            @Advice.Local("tgTool") String tool,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgCarried") boolean carried,
                            @Advice.Local("tgPrevious") Object previousSession) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[0];
            depth[0] = saved + 1;
            outer = saved == 0;
            if (!outer) {
                return null;
            }
            Ruling ruling = null;
            try {
                // read once: each read of an @AllArguments parameter in inlined advice builds a new array (session 24)
                Object[] all = args;
                tool = self.getToolDefinition().name();
                // the model's tool-call id when Spring AI's tool calling manager runs this call for a model round: the
                // round's next request of this tool with these arguments (it runs them one after another, on this thread);
                // else (the application calls the callback itself) this invocation's own
                Object round = Dispatcher.round();
                if (round instanceof Object[] && ((Object[]) round).length == 2 && ((Object[]) round)[0] instanceof List
                        && ((Object[]) round)[1] instanceof int[]) {
                    List<?> requests = (List<?>) ((Object[]) round)[0];
                    int[] next = (int[]) ((Object[]) round)[1];
                    for (int i = next[0]; i < requests.size(); i++) {
                        Object candidate = requests.get(i);
                        if (!(candidate instanceof AssistantMessage.ToolCall)) {
                            continue;
                        }
                        AssistantMessage.ToolCall request = (AssistantMessage.ToolCall) candidate;
                        String input = request.arguments();
                        if (tool.equals(request.name()) && (all[0] == input || all[0] != null && (all[0].equals(input)
                                || "{}".equals(all[0]) && (input == null || input.isBlank())))) {
                            next[0] = i + 1;
                            if (request.id() != null && !request.id().isEmpty()) {
                                callId = request.id();
                            }
                            break;
                        }
                    }
                }
                if (callId == null) {
                    callId = Dispatcher.newCallId();
                }
                session = Dispatcher.session(null);
                if (session == null) {
                    // streaming: the tool runs on a Reactor worker; Spring AI puts the subscriber's context in this holder meanwhile
                    try {
                        ContextView view = ToolCallReactiveContextHolder.getContext();
                        Object conversation = view == null ? null : view.getOrDefault(CONVERSATION_ID, null);
                        session = conversation == null ? "default" : conversation.toString();
                    } catch (LinkageError noHolder) {
                        session = "default";
                    }
                }
                ToolContext context = all.length > 1 && all[1] instanceof ToolContext ? (ToolContext) all[1] : null;
                if (context != null && context.getContext() != null) {
                    Object conversation = context.getContext().get(CONVERSATION_ID);
                    if (conversation != null) {
                        session = conversation.toString();
                    }
                }
                // the tool's body runs in this conversation: a model call it makes itself (a summarizer's ChatModel#call)
                // is that conversation's, also on a Reactor worker of a streamed request, where the thread had none
                // (before: session default there, the conversation when blocking). Put back on exit
                if (!"default".equals(session)) {
                    previousSession = Dispatcher.swapSession(session);
                    carried = true;
                }
                ruling = Dispatcher.onToolCall("springai", session, tool, (String) all[0], callId);
                if (ruling == null) {
                    return null;
                }
                if (ruling.kind == Ruling.REWRITE) {
                    Object[] copy = all.clone();
                    copy[0] = ruling.arguments;
                    args = copy;
                    return null;
                }
                if (ruling.kind == Ruling.REDIRECT) {
                    Object table = Dispatcher.tools();
                    if (table instanceof List) {
                        for (Object candidate : (List<?>) table) {
                            if (candidate instanceof ToolCallback
                                    && ruling.tool.equals(((ToolCallback) candidate).getToolDefinition().name())) {
                                // the target runs here, inside advice whose throwables are suppressed: a failing target
                                // must not fall through to the blocked tool, so its failure becomes the substituted result.
                                // Its result (or failure) is the target's RETURN, supervised as any other: the model gets
                                // what that decision leaves (the nested call's own advice does not report it)
                                String targetResult;
                                try {
                                    targetResult = ((ToolCallback) candidate).call(ruling.arguments, context);
                                } catch (Throwable targetFailed) {
                                    String notice = Dispatcher.onToolResult("springai", session, ruling.tool, callId,
                                            Dispatcher.thrownText(targetFailed instanceof ToolExecutionException && targetFailed.getCause() != null
                                                    ? targetFailed.getCause() : targetFailed), true);
                                    return Ruling.substitute(notice != null ? notice : "tracegate: this call was redirected to " + ruling.tool
                                            + ", which failed (" + targetFailed.getMessage() + "); the call itself did not run.");
                                }
                                String targetText = Dispatcher.jsonStringText(targetResult);
                                String notice = targetResult == null ? null
                                        : Dispatcher.onToolResult("springai", session, ruling.tool, callId,
                                                targetText != null ? targetText : targetResult, false);
                                return Ruling.replaced(notice != null ? notice : targetResult);
                            }
                        }
                    }
                    // the target is not among this call's tool callbacks: the log holds the redirected CALL, so its failure
                    // follows (failed(target) holds), and the model is told the call did not run
                    Dispatcher.onToolResult("springai", session, ruling.tool, callId, ruling.text, true);
                    return Ruling.substitute(ruling.text);
                }
                return ruling;
            } catch (Throwable failed) {
                // this advice's own failure (reading the callback or the context) follows the failure policy: suppressed,
                // it would run the tool unsupervised whatever fail: says
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("springai", tool == null ? "tool call" : "tool call " + tool, failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgSession") String session,
                         @Advice.Local("tgTool") String tool,
                         @Advice.Local("tgId") String callId,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) String result,
                         @Advice.Thrown(readOnly = false, typing = Assigner.Typing.DYNAMIC) Throwable thrown,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgCarried") boolean carried,
                         @Advice.Local("tgPrevious") Object previousSession) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (carried) {
                Dispatcher.restoreSession(previousSession);
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if (skipped.kind == Ruling.THROW) {
                    throw skipped.violation();
                }
                result = skipped.text;
                return;
            }
            if (tool != null && thrown != null) {
                // the tool threw: its error RETURN. A ToolExecutionException is what the tool calling manager hands to
                // its exception processor, which by default gives the message to the model as the tool's response; a
                // contract that withholds that result replaces it by one for the same tool whose message is the notice,
                // so the processor (whatever it does: tell the model, rethrow to the host) handles the notice instead.
                // Nothing acting, the host's own throwable goes on unchanged; anything else thrown (not caught by
                // Spring AI) reaches the host, not the model, and is only reported
                try {
                    if (thrown instanceof ToolExecutionException) {
                        // the tool method's own exception (the cause), whose message the processor gives the model
                        Throwable failure = thrown.getCause() != null ? thrown.getCause() : thrown;
                        String notice = Dispatcher.onToolResult("springai", session, tool, callId, Dispatcher.thrownText(failure), true);
                        if (notice != null) {
                            // the cause keeps the original's kind (2.0's default processor rethrows a checked cause to the
                            // host and gives a runtime one's message to the model), so the notice goes where the text went
                            thrown = new ToolExecutionException(((ToolExecutionException) thrown).getToolDefinition(),
                                    failure instanceof RuntimeException ? new TracegateViolation(notice) : new Exception(notice));
                        }
                    } else {
                        Dispatcher.onToolThrown("springai", session, tool, callId, thrown);
                    }
                } catch (Throwable failed) {
                    Ruling refusal = Dispatcher.adviceFailed("springai", "tool result " + tool, failed, null);
                    if (refusal != null && thrown instanceof ToolExecutionException) {
                        // fail: closed, as the dispatcher's own internal error on a result: the model gets the refusal
                        thrown = new ToolExecutionException(((ToolExecutionException) thrown).getToolDefinition(), refusal.violation());
                    }
                }
                return;
            }
            if (tool != null && result != null) {
                // Spring AI's default converter hands the model a String result as a JSON string ("\"flights ...\""): its
                // RETURN is the text that string encodes, so anchored patterns and len(result) see the tool's text; any other
                // result (JSON the model gets as it is) is judged as it is. A withheld result is replaced whole, by the notice
                String text = Dispatcher.jsonStringText(result);
                String notice = Dispatcher.onToolResult("springai", session, tool, callId, text != null ? text : result, false);
                if (notice != null) {
                    result = notice;
                }
            }
        }
    }

    /**
     * The results of {@code returnDirect} tools, which Spring AI hands to the application as the answer (no model round
     * follows): each is the conversation's ASSISTANT event, checked (masked, replaced by the notice, or refused) before
     * Spring AI builds the answer from it, in the session of the round's tool calls.
     */
    public static final class ReturnDirectAdvice {

        @Advice.OnMethodExit
        static void exit(@Advice.Argument(0) Prompt prompt,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) ToolExecutionResult result) {
            try {
                if (result == null || !result.returnDirect()) {
                    return;
                }
                List<Message> history = result.conversationHistory();
                Message last = history == null || history.isEmpty() ? null : history.get(history.size() - 1);
                if (!(last instanceof ToolResponseMessage)) {
                    return;
                }
                // the session as the tool calls just made read it: the ToolContext's id, else the thread's (a ChatClient's),
                // else the Reactor context Spring AI hands to a streamed round's tools, else "default"
                Object options = prompt == null ? null : prompt.getOptions();
                Object conversation = options instanceof ToolCallingChatOptions && ((ToolCallingChatOptions) options).getToolContext() != null
                        ? ((ToolCallingChatOptions) options).getToolContext().get(CONVERSATION_ID) : null;
                String session = conversation != null ? conversation.toString() : Dispatcher.session(null);
                if (session == null) {
                    try {
                        ContextView view = ToolCallReactiveContextHolder.getContext();
                        Object streamed = view == null ? null : view.getOrDefault(CONVERSATION_ID, null);
                        session = streamed == null ? "default" : streamed.toString();
                    } catch (LinkageError noHolder) {
                        session = "default";
                    }
                }
                List<ToolResponseMessage.ToolResponse> responses = ((ToolResponseMessage) last).getResponses();
                List<ToolResponseMessage.ToolResponse> checked = null;
                List<String> replaced = null;
                for (int i = 0; i < responses.size(); i++) {
                    ToolResponseMessage.ToolResponse response = responses.get(i);
                    String text = response.responseData();
                    String replacement = text == null || text.isEmpty() ? null : Dispatcher.onAssistantMessage("springai", session, text);
                    if (replacement != null) {
                        if (checked == null) {
                            checked = new ArrayList<ToolResponseMessage.ToolResponse>(responses);
                            replaced = new ArrayList<String>();
                        }
                        checked.set(i, new ToolResponseMessage.ToolResponse(response.id(), response.name(), replacement));
                        replaced.add(text);
                    }
                }
                if (checked != null) {
                    List<Message> copy = new ArrayList<Message>(history);
                    // its metadata less what carries the replaced results (ReplacedMessage), as every replaced message's
                    copy.set(copy.size() - 1, ToolResponseMessage.builder().responses(checked)
                            .metadata(ReplacedMessage.metadata(last.getMetadata(), replaced)).build());
                    result = ToolExecutionResult.builder().conversationHistory(copy).returnDirect(true).build();
                }
            } catch (TracegateViolation violation) {
                throw violation;   // a block under block.style: exception (or fail: closed inside the dispatcher)
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("springai", "returnDirect answer", failed, null);
                if (refusal != null) {
                    throw refusal.violation();   // fail: closed: the answer is refused, as a model answer would be
                }
            }
        }
    }

    /**
     * Makes the prompt's tool callbacks reachable for redirects on this thread; and opens a new nesting scope for the
     * round's tool calls: a round run inside a tool (a sub-agent's {@code ChatClient} request, a model that runs its
     * tools itself, called by a tool) asks for calls of its own, not for the enclosing tool call seen again.
     */
    public static final class ToolTableAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.AllArguments Object[] args, @Advice.Local("tgRound") Object previousRound,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel) {
            // the guard of tool calls and of model calls starts over for this round (put back on exit, first thing):
            // before, the tool calls of a round made inside a tool ran unsupervised, taken for the outer call's layers
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            Object options = args.length == 0 || !(args[0] instanceof Prompt) ? null : ((Prompt) args[0]).getOptions();
            Object previous = Dispatcher.swapTools(options instanceof ToolCallingChatOptions ? ((ToolCallingChatOptions) options).getToolCallbacks() : null);
            // the round's tool requests, whose ids the tool calls made next on this thread carry (ToolCallAdvice), and
            // how far the calls got; the previous round is put back on exit
            Object message = args.length > 1 ? args[1] : null;
            previousRound = Dispatcher.swapRound(message instanceof AssistantMessage && ((AssistantMessage) message).getToolCalls() != null
                    ? new Object[] {((AssistantMessage) message).getToolCalls(), new int[1]} : null);
            return previous;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous, @Advice.Local("tgRound") Object previousRound,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
                depth[1] = savedModel;
            }
            Dispatcher.swapTools(previous);
            Dispatcher.swapRound(previousRound);
        }
    }

    /**
     * The conversation id of the advisor chain, for tool calls and model calls on this thread; and a new nesting scope:
     * a {@code ChatClient} request made inside a tool (a sub-agent) is a request of its own, whose tool and model calls
     * are supervised (also when its tools run through a tool calling manager of the application's).
     */
    public static final class ConversationAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(0) ChatClientRequest request,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool,
                            @Advice.Local("tgSavedModel") int savedModel) {
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            savedModel = depth[1];
            depth[0] = 0;
            depth[1] = 0;
            // the ToolContext's id first, as for the request's tool calls, else the advisor parameter
            Object options = request == null || request.prompt() == null ? null : request.prompt().getOptions();
            Object conversation = options instanceof ToolCallingChatOptions && ((ToolCallingChatOptions) options).getToolContext() != null
                    ? ((ToolCallingChatOptions) options).getToolContext().get(CONVERSATION_ID) : null;
            if (conversation == null && request != null && request.context() != null) {
                conversation = request.context().get(CONVERSATION_ID);
            }
            return Dispatcher.swapSession(conversation);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Local("tgSavedModel") int savedModel) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call
                depth[1] = savedModel;
            }
            Dispatcher.restoreSession(previous);
        }
    }

    /**
     * Streaming: the tools run later on a Reactor worker thread, where no thread-local of the caller is set;
     * the conversation id travels in the Reactor context of the returned stream instead.
     */
    public static final class StreamConversationAdvice {

        @Advice.OnMethodExit(suppress = Throwable.class)
        static void exit(@Advice.Argument(0) ChatClientRequest request,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Flux<?> stream) {
            Object options = request == null || request.prompt() == null ? null : request.prompt().getOptions();
            Object conversation = options instanceof ToolCallingChatOptions && ((ToolCallingChatOptions) options).getToolContext() != null
                    ? ((ToolCallingChatOptions) options).getToolContext().get(CONVERSATION_ID) : null;
            if (conversation == null && request != null && request.context() != null) {
                conversation = request.context().get(CONVERSATION_ID);
            }
            if (conversation != null && stream != null) {
                stream = stream.contextWrite(Context.of(CONVERSATION_ID, conversation));
                String id;
                try {
                    id = conversation.toString();
                } catch (Throwable unreadable) {
                    return;   // not carried: an id that cannot be read fails, and is counted, where the events read it
                }
                // the thread that delivers the end of the rest of the chain (an HTTP client's event loop, a worker) has the
                // conversation while the advisor's Flux goes on: what it subscribes next (concatWith(Mono.fromCallable(() ->
                // model.call(...)).subscribeOn(...))) is scheduled in it, and the schedule hook carries it to that worker
                try {
                    if (HandlerScope.needsHook(Schedulers.class)) {
                        Schedulers.onScheduleHook(HandlerScope.HOOK_KEY, HandlerScope.DECORATOR);
                    }
                    stream = stream.doOnTerminate(Dispatcher.conversationEnter(id))
                            .doAfterTerminate(HandlerScope.CONVERSATION_EXIT);
                } catch (Throwable failed) {
                    // counted; fail: closed refuses the stream, as for any failure of these advices; open lets it go on
                    // as before (model calls on threads of its own in session default)
                    Ruling refusal = Dispatcher.adviceFailed("springai", "stream conversation", failed, null);
                    if (refusal != null) {
                        stream = Flux.error(refusal.violation());
                    }
                }
            }
        }
    }

    /**
     * The conversation id while a stream advisor assembles its part of the stream (the chain calls it only
     * when the stream is subscribed; the terminal advisor calls {@code ChatModel#stream} right there).
     */
    public static final class StreamAdvisorScopeAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(0) ChatClientRequest request,
                            @Advice.Local("tgConversation") Object conversationOut,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSavedTool") int savedTool) {
            // a ChatClient request opens a scope of its own, as a blocking one does (ConversationAdvice): its model call is
            // not one a tool's body makes itself, also when the request is a sub-agent's inside a tool (trial47 05's rest:
            // so a tool body that streams the model itself records no USER event, as one that calls it does)
            depth = Dispatcher.depthCell();
            savedTool = depth[0];
            depth[0] = 0;
            // the ToolContext's id first, as for the request's tool calls, else the advisor parameter
            Object options = request == null || request.prompt() == null ? null : request.prompt().getOptions();
            Object conversation = options instanceof ToolCallingChatOptions && ((ToolCallingChatOptions) options).getToolContext() != null
                    ? ((ToolCallingChatOptions) options).getToolContext().get(CONVERSATION_ID) : null;
            if (conversation == null && request != null && request.context() != null) {
                conversation = request.context().get(CONVERSATION_ID);
            }
            // the advisor's Flux is subscribed (right after this returns) in the conversation, unless the thread carries it
            // already (an outer advisor's subscription, a worker that runs the request's work)
            // (not carried: an id that cannot be read fails, and is counted, where the events read it)
            String id = null;
            if (conversation != null) {
                try {
                    id = conversation.toString();
                } catch (Throwable unreadable) {
                    id = null;
                }
            }
            conversationOut = id == null || Dispatcher.carriesConversation(id) ? null : id;
            return Dispatcher.swapSession(conversation);
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        @SuppressWarnings({"unchecked", "rawtypes"})
        static void exit(@Advice.Enter Object previous,
                         @Advice.Local("tgConversation") Object conversation,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSavedTool") int savedTool,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned) {
            if (depth != null) {
                depth[0] = savedTool;   // first, and with no call
            }
            Dispatcher.restoreSession(previous);
            if (!(returned instanceof Flux)) {
                return;
            }
            // the work the advisor's Flux does when subscribed (Mono.fromCallable(() -> model.call(...)), with or without
            // subscribeOn) is the request's conversation's: a merge subscribes its sources in order on one thread, so the
            // conversation is set there while the Flux is subscribed and put back right after (delayError: also when the
            // Flux fails while it is subscribed, e.g. a refused user message; its error then follows at once); tasks
            // scheduled meanwhile run with it (the schedule hook HandlerScope shares with the MCP handlers), and so do the
            // tasks they schedule
            try {
                // also without a conversation: a RAG advisor's note of the user's own text goes with the task that runs
                // the next BaseAdvisor's before and the model call on that advisor's scheduler
                if (HandlerScope.needsHook(Schedulers.class)) {
                    Schedulers.onScheduleHook(HandlerScope.HOOK_KEY, HandlerScope.DECORATOR);
                }
                if (conversation == null) {
                    return;
                }
                returned = Flux.mergeDelayError(32, Mono.fromCallable(Dispatcher.conversationEnter(conversation.toString())).then(),
                        (Flux) returned, Mono.fromCallable(HandlerScope.CONVERSATION_EXIT).then());
            } catch (Throwable failed) {
                // counted; fail: closed refuses the stream, as for any failure of these advices; open lets the Flux go on
                // unwrapped (model calls on threads of its own in session default)
                Ruling refusal = Dispatcher.adviceFailed("springai", "stream conversation", failed, null);
                if (refusal != null) {
                    returned = Flux.error(refusal.violation());
                }
            }
        }
    }

    /**
     * An advisor's {@code before} turned the request's user message into another text (a RAG advisor appended the retrieved
     * documents): notes on this thread that text and the user's own text it was made from, for the model call that follows
     * on this thread ({@link Dispatcher#ownUserText}; {@code BaseAdvisor} runs {@code before} and then the rest of the
     * chain on one thread, blocking and streamed). An advisor that augments a text an earlier one augmented notes the
     * first one's own text, the user's.
     */
    public static final class AugmentAdvice {

        /**
         * Its own failure (a request whose prompt or user message cannot be read) is counted as an internal error, logged
         * once, and follows {@code fail:}, as LangChain4j's retrieval augmentation's: unnoted, the USER event would be the
         * augmented text, the retrieved documents then counted as the user's own words (which the injection library
         * treats more permissively than text from elsewhere), so closed refuses the request (the advisor chain fails with
         * the refusal's {@code TracegateViolation}; the model is not called); open goes on unnoted. Before session 20 it
         * was counted only, whatever {@code fail:} said.
         */
        @Advice.OnMethodExit
        static void exit(@Advice.Argument(0) ChatClientRequest request, @Advice.Return ChatClientRequest result) {
            try {
                if (request == null || result == null || request == result || request.prompt() == null || result.prompt() == null) {
                    return;
                }
                String own = request.prompt().getUserMessage().getText();
                String augmented = result.prompt().getUserMessage().getText();
                if (own == null || augmented == null || own == augmented || augmented.isEmpty() || own.equals(augmented)) {
                    return;
                }
                Dispatcher.augmented(augmented, Dispatcher.ownUserText(own));
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("springai", "retrieval augmentation", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /**
     * {@code ChatModelCallAdvisor} appended a structured output's format instructions ({@code .entity(SomeRecord.class)}:
     * a line separator and the converter's format, a JSON schema with its field names, descriptions and enum values) to
     * the request's user message: notes on this thread the text it returns and the user's own text (before any advisor
     * augmented it), for the model call that follows at once on this thread, and the instructions themselves, which a
     * replacement of the user's text keeps (the application's parser needs them). Before session 18 the schema was part
     * of the USER event, so every value it names counted as written by the user.
     */
    public static final class FormatAdvice {

        /**
         * Its own failure (a request whose prompt or user message cannot be read) is counted as an internal error, logged
         * once, and follows {@code fail:}: unnoted, the USER event would be the text with the schema, every value it names
         * then counted as written by the user, so closed refuses the request (the {@code ChatClient} call throws the
         * refusal's {@code TracegateViolation}; the model is not called); open goes on unnoted. Before, Byte Buddy's
         * suppress dropped it, uncounted, whatever {@code fail:} said.
         */
        @Advice.OnMethodExit
        static void exit(@Advice.Argument(0) ChatClientRequest request, @Advice.Return ChatClientRequest result) {
            try {
                if (request == null || result == null || request == result || request.prompt() == null || result.prompt() == null) {
                    return;
                }
                String before = request.prompt().getUserMessage().getText();
                String after = result.prompt().getUserMessage().getText();
                if (before == null || after == null || before == after || after.isEmpty() || before.equals(after)) {
                    return;   // nothing appended (no format, or native structured output: the schema goes in the options)
                }
                Dispatcher.augmented(after, Dispatcher.ownUserText(before),
                        after.startsWith(before) ? after.substring(before.length()) : null);
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("springai", "structured output format", failed, null);
                if (refusal != null) {
                    throw refusal.violation();
                }
            }
        }
    }

    /**
     * USER (when the newest instruction is the user's) before the model call, ASSISTANT text after it (each generation's
     * apart, also the text beside the tool calls of a round that asks for tools, the tool calls kept); on
     * {@code stream(Prompt)} the same USER check while the stream is assembled, and the returned Flux wired to a
     * {@link StreamCheck} of the complete answer (in the session this thread has now; the chunks arrive elsewhere).
     */
    public static final class ChatAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static void enter(@Advice.Argument(value = 0, readOnly = false) Prompt prompt,
                          @Advice.Local("tgOuter") boolean outer,
                          @Advice.Local("tgStream") StreamCheck stream,
                          @Advice.Local("tgSession") String session,
                          @Advice.Local("tgDepth") int[] depth,
                          @Advice.Local("tgSaved") int saved) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[1];
            depth[1] = saved + 1;
            outer = saved == 0;
            try {
                if (!outer || prompt == null) {
                    return;
                }
                // the conversation: a ToolContext that names it (as the prompt's tool calls read it), else the thread's
                // (a ChatClient's, set at nextCall), else "default"
                // a conversation id that cannot be read (its toString throws) is this advice's failure on the user
                // message below, decided by the failure policy there (not suppressed here, which let the message through)
                Throwable unreadable = null;
                try {
                    Object options = prompt.getOptions();
                    Object conversation = options instanceof ToolCallingChatOptions && ((ToolCallingChatOptions) options).getToolContext() != null
                            ? ((ToolCallingChatOptions) options).getToolContext().get(CONVERSATION_ID) : null;
                    session = conversation != null ? conversation.toString() : Dispatcher.session("default");
                } catch (Throwable failed) {
                    unreadable = failed;
                }
                // for the prompt of a stream being answered (a model whose stream runs its own call later, e.g. inside
                // Flux.defer on a worker): that stream's conversation, whose USER was checked when the stream was made
                stream = StreamCheck.answering(prompt);
                if (stream != null) {
                    return;
                }
                List<Message> messages = prompt.getInstructions();
                if (messages == null || messages.isEmpty()) {
                    return;
                }
                Message last = messages.get(messages.size() - 1);
                Object replaced = Dispatcher.replacedUsers(session);   // null (no look-up at all): none in this conversation
                if (replaced != null) {
                    // a user message replaced before, sent again (a 2.0.1 ToolCallingAdvisor's later round, built from the
                    // request's own messages; a chat memory's history): replaced again, the model never gets the original
                    List<Message> copy = null;
                    int end = last instanceof UserMessage ? messages.size() - 1 : messages.size();
                    for (int i = 0; i < end; i++) {
                        Message earlier = messages.get(i);
                        String was = earlier instanceof UserMessage ? Dispatcher.replacedUser(replaced, earlier.getText()) : null;
                        if (was != null) {
                            if (copy == null) {
                                copy = new ArrayList<Message>(messages);
                            }
                            copy.set(i, UserMessage.builder().text(was).media(((UserMessage) earlier).getMedia())
                                    .metadata(ReplacedMessage.metadata(earlier.getMetadata(), earlier.getText())).build());
                        }
                    }
                    if (copy != null) {
                        messages = copy;
                        prompt = new Prompt(copy, prompt.getOptions());
                    }
                }
                if (last instanceof UserMessage) {
                    String replacement;
                    String text = null;
                    try {
                        if (unreadable != null) {
                            throw unreadable;
                        }
                        text = last.getText();
                        // the user's own words: with a RAG advisor, the text before it added the retrieved documents (the
                        // model still gets them; a replacement reaches it alone, the documents were found for the replaced text)
                        // (a structured output's format instructions are not the user's either; a replacement keeps them)
                        String kept = Dispatcher.augmentedKept();
                        String own = Dispatcher.ownUserText(text);
                        if (own != null && Dispatcher.inToolBody()) {
                            // a prompt a tool's body sends (a summariser tool's "Summarize this page: <page>"), called or
                            // streamed: text the tool built, not the user's words; the tool's RETURN carries what reaches
                            // the conversation's model of it (trial47 05). A ChatClient request inside a tool (a sub-agent)
                            // opens a scope of its own (ConversationAdvice, and StreamAdvisorScopeAdvice around each stream
                            // advisor, the terminal one calling ChatModel#stream) and keeps its USER event in its conversation
                            own = null;
                        }
                        replacement = own == null ? null : Dispatcher.onUserMessage("springai", session, own);
                        if (replacement != null && kept != null && own != text) {
                            replacement = replacement + kept;
                        }
                    } catch (Throwable failed) {
                        // this advice's own failure (e.g. a conversation id that cannot be read) follows the failure policy:
                        // fail: closed replaces the message as the dispatcher's own internal error does, open passes it
                        Ruling refusal = Dispatcher.adviceFailed("springai", "user message", failed, null);
                        replacement = refusal == null ? null : refusal.text;
                    }
                    if (replacement != null) {
                        // the text replaced, the rest kept: its media and its metadata (a message id, the application's
                        // keys) less what carries the replaced text (ReplacedMessage); before, a bare new UserMessage
                        UserMessage original = (UserMessage) last;
                        List<Message> copy = new ArrayList<Message>(messages);
                        copy.set(copy.size() - 1, UserMessage.builder().text(replacement).media(original.getMedia())
                                .metadata(ReplacedMessage.metadata(original.getMetadata(), text)).build());
                        prompt = new Prompt(copy, prompt.getOptions());
                        Dispatcher.userReplaced(session, text, replacement);
                    }
                }
            } catch (Throwable failed) {
                depth[1] = saved;   // put back before the weaver's handler, which may overflow again, sees it
                throw failed;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        @SuppressWarnings({"unchecked", "rawtypes"})
        static void exit(@Advice.Argument(0) Prompt prompt,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgStream") StreamCheck stream,
                         @Advice.Local("tgSession") String session,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object returned,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved) {
            if (depth != null) {
                depth[1] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (!outer) {
                return;
            }
            try {
                if (returned instanceof Flux) {
                    if (stream != null) {
                        return;   // a nested stream's chunks are the outer stream's, which checks them
                    }
                    StreamCheck check = Dispatcher.streamCheck(STREAM, session != null ? session : Dispatcher.session("default"), prompt);
                    if (check != null) {
                        // open for this prompt from the subscription (scanWith's seed) to its end (doFinally)
                        returned = ((Flux<Object>) returned).concatWith(Mono.just(StreamCheck.END))
                                .scanWith(check, StreamCheck.STEP)
                                .mapNotNull(StreamCheck.EMIT)
                                .doFinally((java.util.function.Consumer) check);
                    }
                    return;
                }
                if (!(returned instanceof ChatResponse)) {
                    return;   // also when the model threw: its exception reaches the host unchanged
                }
                ChatResponse response = (ChatResponse) returned;
                if (response.getResult() == null) {
                    return;
                }
                boolean asksForTools = response.hasToolCalls();
                if (asksForTools && stream != null) {
                    // nested in a stream: that stream checks this round's text when the request for tools arrives as its chunk
                    return;
                }
                // each generation's text is an ASSISTANT event of its own, in generation order: a provider may return more
                // than one (a reasoning generation before the answer, n > 1 choices), and an application that reads them
                // all, or a chat memory (which keeps every generation's message), shows each. A replacement (notice,
                // redaction) rewrites only the generation whose text broke the contract, with that generation's metadata
                // (finish reason), and keeps the others as they came; a block under block.style: exception refuses the
                // whole response. A round that asks for tools: text beside the request has reached the application too (an
                // application that runs the tools itself shows it; advisors inside ToolCallAdvisor's loop, a chat memory
                // among them, keep it; the next round sends it back to the model): checked now, before the tools run, as a
                // stream checks the text before its request for tools, and its replacement keeps the message's tool calls
                // (then decided as CALL events) and media. Either way the replacement keeps the message's properties less
                // those that carry the replaced text or what the model said about it (ReplacedMessage: a provider's copy
                // of its reasoning, a refusal, annotations); before, an answer's replacement kept none (its message id
                // and finish reason were lost) and the text beside tool calls kept all (the reasoning that was withheld).
                String round = stream != null ? stream.session() : session != null ? session : Dispatcher.session("default");
                List<Generation> generations = response.getResults();
                List<Generation> checked = null;
                boolean said = false;
                for (int i = 0; i < generations.size(); i++) {
                    Generation generation = generations.get(i);
                    AssistantMessage output = generation == null ? null : generation.getOutput();
                    String text = output == null ? null : output.getText();
                    if (text == null || text.isEmpty()) {
                        continue;
                    }
                    said = true;
                    String replacement = Dispatcher.onAssistantMessage("springai", round, text);
                    if (replacement == null) {
                        continue;
                    }
                    AssistantMessage kept;
                    java.util.Map<String, Object> properties = ReplacedMessage.metadata(output.getMetadata(), text);
                    try {
                        kept = AssistantMessage.builder().content(replacement).properties(properties)
                                .toolCalls(output.getToolCalls()).media(output.getMedia()).build();
                    } catch (NoSuchMethodError noBuilder) {
                        // 1.0.x: no builder, but this constructor is public there (protected from 1.1 on)
                        kept = AssistantMessage.class.getConstructor(String.class, java.util.Map.class, List.class, List.class)
                                .newInstance(replacement, properties, output.getToolCalls(), output.getMedia());
                    }
                    if (checked == null) {
                        checked = new ArrayList<Generation>(generations);
                    }
                    checked.set(i, new Generation(kept, generation.getMetadata()));
                }
                if (said && stream != null) {
                    stream.coveredByCall();   // checked here, before the stream shows it: not again at its end
                }
                if (checked != null) {
                    returned = new ChatResponse(checked, response.getMetadata());
                }
            } catch (TracegateViolation violation) {
                throw violation;   // a block under block.style: exception (or fail: closed inside the dispatcher)
            } catch (Throwable failed) {
                Ruling refusal = Dispatcher.adviceFailed("springai", returned instanceof Flux ? "streamed answer" : "assistant message", failed, null);
                if (refusal != null) {
                    // fail: closed, as the dispatcher's own internal error on an answer: the answer is refused with the violation
                    if (returned instanceof Flux) {
                        returned = Flux.error(refusal.violation());
                    } else {
                        throw refusal.violation();
                    }
                }
            }
        }
    }
}
