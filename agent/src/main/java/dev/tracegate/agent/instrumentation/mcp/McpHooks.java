package dev.tracegate.agent.instrumentation.mcp;

import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.bootstrap.HandlerScope;
import dev.tracegate.agent.bootstrap.McpMarks;
import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.instrumentation.HookPoint;
import dev.tracegate.agent.instrumentation.Hooks;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.server.McpAsyncServerExchange;
import io.modelcontextprotocol.spec.McpSchema;
import net.bytebuddy.asm.Advice;
import net.bytebuddy.implementation.bytecode.assign.Assigner;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static dev.tracegate.agent.instrumentation.TypeMatch.subTypeOf;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNameStartsWith;
import static dev.tracegate.agent.instrumentation.TypeMatch.typeNamed;
import static net.bytebuddy.matcher.ElementMatchers.nameStartsWith;
import static net.bytebuddy.matcher.ElementMatchers.named;
import static net.bytebuddy.matcher.ElementMatchers.takesArgument;
import static net.bytebuddy.matcher.ElementMatchers.takesArguments;

/**
 * MCP Java SDK (tested with 2.1.0 and 1.1.5, which has the same shapes): server tool calls at the synthetic {@code tools/call} handler body of
 * {@code McpAsyncServer} and {@code McpStatelessAsyncServer} (matched by name prefix and parameter
 * types), session = exchange session id; client calls at {@code McpAsyncClient#callTool}.
 *
 * <p>The hooked methods only assemble a {@code Mono}; the tool runs later on another thread, so a block
 * returns {@code Mono.just(error result)} and results are observed with {@code map}. A tool that fails (its handler
 * throws, its {@code Mono} ends with an error, the server answers a call with a JSON-RPC error) is the tool's error RETURN,
 * text = the throwable's class and message: the same throwable goes on, or, when a contract withholds that result, a
 * {@code TracegateViolation} whose message is the notice (the JSON-RPC error then carries the notice). A client call in
 * this JVM marks its request's {@code _meta} so that the same call reaching a server in this JVM is not
 * supervised twice.
 *
 * <p>A stateless server has no session: its calls are supervised in the session the application's
 * transport context names under {@value #STATELESS_SESSION_KEY} (its {@code McpTransportContextExtractor}
 * fills the context per request, e.g. from an authenticated user or a conversation header), else all in one
 * session, {@value #STATELESS_SESSION}. A client-chosen value ({@code _meta}) is never used: a client could
 * change it on every call and so escape every contract that counts or remembers.
 */
public final class McpHooks {

    /** The {@code _meta} key a supervised client call carries; its value is a one-shot mark ({@link McpMarks}). */
    public static final String SEEN = "dev.tracegate/supervised";

    /** The transport-context key whose value is the session of a stateless server's call. */
    public static final String STATELESS_SESSION_KEY = "tracegate.session";

    /** The one session of a stateless server's calls whose transport context names none. */
    public static final String STATELESS_SESSION = "stateless";

    private McpHooks() {
    }

    /** The server side. */
    public static final class Server implements Hooks {
        @Override
        public String name() {
            return "mcp-server";
        }

        @Override
        public String frameworkPackage() {
            return "io.modelcontextprotocol";
        }

        @Override
        public List<String> chokePoints() {
            return List.of("io.modelcontextprotocol.server.McpAsyncServer", "io.modelcontextprotocol.server.McpStatelessAsyncServer");
        }

        @Override
        public List<String> chokePointSiblings() {
            return List.of("io.modelcontextprotocol.spec.McpSchema");   // mcp-core, as the servers (1.1.5, 2.1.0)
        }

        @Override
        public String marker() {
            return "io.modelcontextprotocol.server.McpAsyncServer";
        }

        @Override
        public List<HookPoint> points() {
            String self = McpHooks.class.getName();
            return List.of(
                    new HookPoint(typeNamed("io.modelcontextprotocol.server.McpAsyncServer"),
                            nameStartsWith("lambda$toolsCallRequestHandler$").and(takesArguments(2))
                                    .and(takesArgument(0, named("io.modelcontextprotocol.server.McpAsyncServerExchange")))
                                    .and(takesArgument(1, Object.class)),
                            self + "$ServerCallAdvice").role("the tool calls of MCP servers"),
                    new HookPoint(typeNamed("io.modelcontextprotocol.server.McpStatelessAsyncServer"),
                            nameStartsWith("lambda$toolsCallRequestHandler$").and(takesArguments(2))
                                    .and(takesArgument(0, named("io.modelcontextprotocol.common.McpTransportContext")))
                                    .and(takesArgument(1, Object.class)),
                            self + "$StatelessServerCallAdvice").role("the tool calls of stateless MCP servers"),
                    // a sync server's handler runs later, out of the call's advice (on the transport's thread with
                    // immediateExecution, else on a bounded elastic one): the synthetic body that calls it notes its conversation
                    new HookPoint(typeNamed("io.modelcontextprotocol.server.McpServerFeatures$AsyncToolSpecification"),
                            nameStartsWith("lambda$fromSync$").and(takesArguments(3))
                                    .and(takesArgument(1, named("io.modelcontextprotocol.server.McpAsyncServerExchange")))
                                    .and(takesArgument(2, named("io.modelcontextprotocol.spec.McpSchema$CallToolRequest"))),
                            self + "$SyncHandlerAdvice").role("the conversation of consents and erasures in MCP sync tool handlers"),
                    new HookPoint(typeNamed("io.modelcontextprotocol.server.McpStatelessServerFeatures$AsyncToolSpecification"),
                            nameStartsWith("lambda$fromSync$").and(takesArguments(3))
                                    .and(takesArgument(1, named("io.modelcontextprotocol.common.McpTransportContext")))
                                    .and(takesArgument(2, named("io.modelcontextprotocol.spec.McpSchema$CallToolRequest"))),
                            self + "$StatelessSyncHandlerAdvice").role("the conversation of consents and erasures in MCP stateless sync tool handlers"));
        }
    }

    /** The client side. */
    public static final class Client implements Hooks {
        @Override
        public String name() {
            return "mcp-client";
        }

        @Override
        public String frameworkPackage() {
            return "io.modelcontextprotocol";
        }

        @Override
        public List<String> chokePoints() {
            return List.of("io.modelcontextprotocol.client.McpAsyncClient");
        }

        @Override
        public List<String> chokePointSiblings() {
            return List.of("io.modelcontextprotocol.spec.McpSchema");   // mcp-core, as the client (1.1.5, 2.1.0)
        }

        @Override
        public String marker() {
            return "io.modelcontextprotocol.client.McpAsyncClient";
        }

        @Override
        public List<HookPoint> points() {
            return List.of(new HookPoint(typeNamed("io.modelcontextprotocol.client.McpAsyncClient"),
                    named("callTool").and(takesArguments(1)).and(takesArgument(0, named("io.modelcontextprotocol.spec.McpSchema$CallToolRequest"))),
                    McpHooks.class.getName() + "$ClientCallAdvice").role("the tool calls of MCP clients"));
        }
    }

    /** {@code lambda$toolsCallRequestHandler$N(McpAsyncServerExchange, Object params)}. */
    public static final class ServerCallAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.Argument(0) McpAsyncServerExchange exchange,
                            @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object params,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgSession") String session,
                            @Advice.Local("tgTool") String tool,
                            @Advice.Local("tgRedirect") String redirect,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgHandler") boolean handler,
                            @Advice.Local("tgHandlerPrevious") Object handlerPrevious) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[0];
            depth[0] = saved + 1;
            outer = saved == 0;
            if (!outer || !(params instanceof Map)) {
                return null;
            }
            Ruling ruling = null;
            try {
                Map<?, ?> p = (Map<?, ?>) params;
                Object meta = p.get("_meta");
                // spared only for the live one-shot mark of this JVM's own client call of this tool with these
                // arguments (McpMarks): nothing a remote peer sends switches supervision off
                if (meta instanceof Map && ((Map<?, ?>) meta).get(SEEN) != null
                        && McpMarks.take(((Map<?, ?>) meta).get(SEEN), String.valueOf(p.get("name")), Dispatcher.toJson(p.get("arguments")))) {
                    return null;
                }
                tool = String.valueOf(p.get("name"));
                session = exchange == null || exchange.sessionId() == null ? "default" : exchange.sessionId();
                callId = Dispatcher.newCallId();   // the SDK hands the handler no request id: this invocation's own, on its CALL and RETURN
                ruling = Dispatcher.onToolCall("mcp-server", session, tool, Dispatcher.toJson(p.get("arguments")), callId);
                if (ruling != null && (ruling.kind == Ruling.REWRITE || ruling.kind == Ruling.REDIRECT)) {
                    params = Dispatcher.rewriteToolCall(p, ruling);
                    if (ruling.kind == Ruling.REDIRECT) {
                        tool = ruling.tool;
                        redirect = ruling.text;
                    }
                } else if (ruling != null) {
                    return ruling;
                }
                // the method calls the tool's handler: what an async handler runs before it returns its Mono belongs to
                // this call's conversation (a consent or erasure method it calls, agent/CONFIG.md); the exit carries it
                // into the work the Mono does when subscribed
                Dispatcher.mcpServing();
                handlerPrevious = Dispatcher.swapHandlerSession(session);
                handler = true;
                // the rest of the method reads the request and calls the handler: the tool's own code, whose calls (an MCP
                // client call to another server, `return client.callTool(request)`; a framework tool it runs) are other,
                // outbound actions, each supervised once in this call's session; the guard held while the call was
                // read and decided, and the framework calls those make nest under them as before (the exit puts it back)
                depth[0] = saved;
                return null;
            } catch (Throwable failed) {
                // this advice's own failure (reading the request) follows the failure policy: suppressed, it would run
                // the tool unsupervised whatever fail: says
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("mcp-server", "tool call", failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        @SuppressWarnings({"unchecked", "rawtypes"})
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgSession") String session,
                         @Advice.Local("tgTool") String tool,
                         @Advice.Local("tgRedirect") String redirect,
                         @Advice.Local("tgId") String callId,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown(readOnly = false, typing = Assigner.Typing.DYNAMIC) Throwable thrown,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgHandler") boolean handler,
                         @Advice.Local("tgHandlerPrevious") Object handlerPrevious) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (handler) {
                Dispatcher.restoreHandlerSession(handlerPrevious);
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if (skipped.kind == Ruling.THROW) {
                    result = Mono.error(skipped.violation());
                } else {
                    result = Mono.just(McpSchema.CallToolResult.builder().addTextContent(skipped.text).isError(skipped.isError()).build());
                }
                return;
            }
            if (tool != null && session != null && thrown != null) {
                // the handler threw while its Mono was assembled: the same error RETURN as an error signal gets
                String notice = Dispatcher.onToolResult("mcp-server", session, tool, callId, Dispatcher.thrownText(thrown), true);
                if (notice != null) {
                    thrown = new TracegateViolation(notice);
                }
                return;
            }
            if (tool != null && result instanceof Mono) {
                if (handler) {
                    // the work the handler's Mono does when subscribed belongs to this call's conversation too (a consent
                    // or erasure method it calls): set on the subscribing thread while the Mono is subscribed, and carried
                    // to the Reactor scheduler tasks it schedules meanwhile (HandlerScope, agent/CONFIG.md)
                    try {
                        if (HandlerScope.needsHook(Schedulers.class)) {
                            Schedulers.onScheduleHook(HandlerScope.HOOK_KEY, HandlerScope.DECORATOR);
                        }
                        result = Mono.zipDelayError(HandlerScope.RESULT, Mono.fromCallable(Dispatcher.handlerEnter(session)),
                                (Mono<?>) result, Mono.fromCallable(HandlerScope.EXIT));
                    } catch (Throwable failed) {
                        // counted; under fail: closed the call is refused, as for any failure of this advice
                        Ruling refusal = Dispatcher.adviceFailed("mcp-server", "handler session", failed, null);
                        if (refusal != null) {
                            result = refusal.kind == Ruling.THROW ? Mono.error(refusal.violation())
                                    : Mono.just(McpSchema.CallToolResult.builder().addTextContent(refusal.text).isError(refusal.isError()).build());
                            return;
                        }
                    }
                }
                // an error signal (the handler threw, its Mono failed) is the tool's error RETURN: the same throwable goes
                // on (the JSON-RPC error carries its message), or, when a contract withholds it, one whose message is the notice
                result = ((Mono<?>) result).onErrorMap(Dispatcher.errorHook("mcp-server", session, tool, callId))
                        .map(Dispatcher.resultHook("mcp-server", session, tool, callId));
                if (redirect != null) {
                    // a redirect to a tool the server does not have: the SDK's "Unknown tool" error becomes the refusal,
                    // as when a Spring AI call's callbacks lack the target (the log holds the target's failed RETURN)
                    result = ((Mono) result).onErrorReturn(Dispatcher.UNKNOWN_TOOL,
                            McpSchema.CallToolResult.builder().addTextContent(redirect).isError(true).build());
                }
            }
        }
    }

    /**
     * {@code lambda$toolsCallRequestHandler$N(McpTransportContext, Object params)} of the stateless server; session =
     * the transport context's {@value #STATELESS_SESSION_KEY}, else {@value #STATELESS_SESSION}.
     */
    public static final class StatelessServerCallAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.Argument(0) McpTransportContext context,
                            @Advice.Argument(value = 1, readOnly = false, typing = Assigner.Typing.DYNAMIC) Object params,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgSession") String session,
                            @Advice.Local("tgTool") String tool,
                            @Advice.Local("tgRedirect") String redirect,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgDepth") int[] depth,
                            @Advice.Local("tgSaved") int saved,
                            @Advice.Local("tgHandler") boolean handler,
                            @Advice.Local("tgHandlerPrevious") Object handlerPrevious) {
            // the nesting guard is this thread's cell; the exit writes back the value saved here first thing, with no
            // call, so a StackOverflowError unwinding through nested calls cannot leave the thread marked as inside one
            depth = Dispatcher.depthCell();
            saved = depth[0];
            depth[0] = saved + 1;
            outer = saved == 0;
            if (!outer || !(params instanceof Map)) {
                return null;
            }
            Ruling ruling = null;
            try {
                Map<?, ?> p = (Map<?, ?>) params;
                Object meta = p.get("_meta");
                // spared only for the live one-shot mark of this JVM's own client call of this tool with these
                // arguments (McpMarks): nothing a remote peer sends switches supervision off
                if (meta instanceof Map && ((Map<?, ?>) meta).get(SEEN) != null
                        && McpMarks.take(((Map<?, ?>) meta).get(SEEN), String.valueOf(p.get("name")), Dispatcher.toJson(p.get("arguments")))) {
                    return null;
                }
                tool = String.valueOf(p.get("name"));
                Object named = context == null ? null : context.get(STATELESS_SESSION_KEY);
                session = named == null || named.toString().isEmpty() ? STATELESS_SESSION : named.toString();
                callId = Dispatcher.newCallId();   // the SDK hands the handler no request id: this invocation's own, on its CALL and RETURN
                ruling = Dispatcher.onToolCall("mcp-server", session, tool, Dispatcher.toJson(p.get("arguments")), callId);
                if (ruling != null && (ruling.kind == Ruling.REWRITE || ruling.kind == Ruling.REDIRECT)) {
                    params = Dispatcher.rewriteToolCall(p, ruling);
                    if (ruling.kind == Ruling.REDIRECT) {
                        tool = ruling.tool;
                        redirect = ruling.text;
                    }
                } else if (ruling != null) {
                    return ruling;
                }
                // the method calls the tool's handler: what an async handler runs before it returns its Mono belongs to
                // this call's conversation (a consent or erasure method it calls, agent/CONFIG.md); the exit carries it
                // into the work the Mono does when subscribed
                Dispatcher.mcpServing();
                handlerPrevious = Dispatcher.swapHandlerSession(session);
                handler = true;
                // the rest of the method reads the request and calls the handler: the tool's own code, whose calls (an MCP
                // client call to another server, `return client.callTool(request)`; a framework tool it runs) are other,
                // outbound actions, each supervised once in this call's session; the guard held while the call was
                // read and decided, and the framework calls those make nest under them as before (the exit puts it back)
                depth[0] = saved;
                return null;
            } catch (Throwable failed) {
                // this advice's own failure (reading the request) follows the failure policy: suppressed, it would run
                // the tool unsupervised whatever fail: says
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("mcp-server", "tool call", failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        @SuppressWarnings({"unchecked", "rawtypes"})
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgSession") String session,
                         @Advice.Local("tgTool") String tool,
                         @Advice.Local("tgRedirect") String redirect,
                         @Advice.Local("tgId") String callId,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown(readOnly = false, typing = Assigner.Typing.DYNAMIC) Throwable thrown,
                         @Advice.Local("tgDepth") int[] depth,
                         @Advice.Local("tgSaved") int saved,
                         @Advice.Local("tgHandler") boolean handler,
                         @Advice.Local("tgHandlerPrevious") Object handlerPrevious) {
            if (depth != null) {
                depth[0] = saved;   // first, and with no call: cannot overflow the stack, whatever unwinds the method
            }
            if (handler) {
                Dispatcher.restoreHandlerSession(handlerPrevious);
            }
            if (!outer) {
                return;
            }
            if (skipped != null) {
                if (skipped.kind == Ruling.THROW) {
                    result = Mono.error(skipped.violation());
                } else {
                    result = Mono.just(McpSchema.CallToolResult.builder().addTextContent(skipped.text).isError(skipped.isError()).build());
                }
                return;
            }
            if (tool != null && session != null && thrown != null) {
                // the handler threw while its Mono was assembled: the same error RETURN as an error signal gets
                String notice = Dispatcher.onToolResult("mcp-server", session, tool, callId, Dispatcher.thrownText(thrown), true);
                if (notice != null) {
                    thrown = new TracegateViolation(notice);
                }
                return;
            }
            if (tool != null && session != null && result instanceof Mono) {
                if (handler) {
                    // the work the handler's Mono does when subscribed belongs to this call's conversation too (a consent
                    // or erasure method it calls): set on the subscribing thread while the Mono is subscribed, and carried
                    // to the Reactor scheduler tasks it schedules meanwhile (HandlerScope, agent/CONFIG.md)
                    try {
                        if (HandlerScope.needsHook(Schedulers.class)) {
                            Schedulers.onScheduleHook(HandlerScope.HOOK_KEY, HandlerScope.DECORATOR);
                        }
                        result = Mono.zipDelayError(HandlerScope.RESULT, Mono.fromCallable(Dispatcher.handlerEnter(session)),
                                (Mono<?>) result, Mono.fromCallable(HandlerScope.EXIT));
                    } catch (Throwable failed) {
                        // counted; under fail: closed the call is refused, as for any failure of this advice
                        Ruling refusal = Dispatcher.adviceFailed("mcp-server", "handler session", failed, null);
                        if (refusal != null) {
                            result = refusal.kind == Ruling.THROW ? Mono.error(refusal.violation())
                                    : Mono.just(McpSchema.CallToolResult.builder().addTextContent(refusal.text).isError(refusal.isError()).build());
                            return;
                        }
                    }
                }
                // an error signal (the handler threw, its Mono failed) is the tool's error RETURN: the same throwable goes
                // on (the JSON-RPC error carries its message), or, when a contract withholds it, one whose message is the notice
                result = ((Mono<?>) result).onErrorMap(Dispatcher.errorHook("mcp-server", session, tool, callId))
                        .map(Dispatcher.resultHook("mcp-server", session, tool, callId));
                if (redirect != null) {
                    // a redirect to a tool the server does not have: the SDK's "Unknown tool" error becomes the refusal,
                    // as when a Spring AI call's callbacks lack the target (the log holds the target's failed RETURN)
                    result = ((Mono) result).onErrorReturn(Dispatcher.UNKNOWN_TOOL,
                            McpSchema.CallToolResult.builder().addTextContent(redirect).isError(true).build());
                }
            }
        }
    }

    /**
     * {@code McpServerFeatures.AsyncToolSpecification#lambda$fromSync$N(SyncToolSpecification, McpAsyncServerExchange,
     * CallToolRequest)}: the body that runs a sync server's tool handler, whenever and wherever the server runs it (the
     * transport's thread with {@code immediateExecution}, else a bounded elastic thread). A consent or erasure method
     * without {@code session-param} that the handler calls belongs to the call's conversation, the exchange's session,
     * as the server's call advice names it. A call a client in this JVM supervised (its {@code _meta} mark) is left alone.
     */
    public static final class SyncHandlerAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(1) McpAsyncServerExchange exchange,
                            @Advice.Argument(2) McpSchema.CallToolRequest request,
                            @Advice.Local("tgHandler") boolean handler) {
            Map<String, Object> meta = request == null ? null : request.meta();
            if (meta != null && McpMarks.taken(meta.get(SEEN))) {
                return null;
            }
            Object previous = Dispatcher.swapHandlerSession(exchange == null || exchange.sessionId() == null ? "default" : exchange.sessionId());
            handler = true;
            return previous;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous, @Advice.Local("tgHandler") boolean handler) {
            if (handler) {
                Dispatcher.restoreHandlerSession(previous);
            }
        }
    }

    /** As {@link SyncHandlerAdvice}, for a stateless sync server: the session its call advice names from the transport context. */
    public static final class StatelessSyncHandlerAdvice {

        @Advice.OnMethodEnter(suppress = Throwable.class)
        static Object enter(@Advice.Argument(1) McpTransportContext context,
                            @Advice.Argument(2) McpSchema.CallToolRequest request,
                            @Advice.Local("tgHandler") boolean handler) {
            Map<String, Object> meta = request == null ? null : request.meta();
            if (meta != null && McpMarks.taken(meta.get(SEEN))) {
                return null;
            }
            Object named = context == null ? null : context.get(STATELESS_SESSION_KEY);
            Object previous = Dispatcher.swapHandlerSession(named == null || named.toString().isEmpty() ? STATELESS_SESSION : named.toString());
            handler = true;
            return previous;
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class, suppress = Throwable.class)
        static void exit(@Advice.Enter Object previous, @Advice.Local("tgHandler") boolean handler) {
            if (handler) {
                Dispatcher.restoreHandlerSession(previous);
            }
        }
    }

    /** {@code McpAsyncClient#callTool(CallToolRequest)} ({@code McpSyncClient} delegates to it). */
    public static final class ClientCallAdvice {

        @Advice.OnMethodEnter(skipOn = Advice.OnNonDefaultValue.class, suppress = Throwable.class)
        static Ruling enter(@Advice.Argument(value = 0, readOnly = false) McpSchema.CallToolRequest request,
                            @Advice.Local("tgOuter") boolean outer,
                            @Advice.Local("tgSession") String session,
                            @Advice.Local("tgTool") String tool,
                            @Advice.Local("tgRedirect") String redirect,
                            @Advice.Local("tgId") String callId,
                            @Advice.Local("tgMark") String mark,
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
                tool = request.name();
                // the caller's conversation; in an MCP server's tool handler (an aggregating server), that tool call's
                // session (the handler advice and HandlerScope set it), so the nested call counts with its connection
                session = Dispatcher.session(null);
                if (session == null) {
                    session = Dispatcher.handlerSession();
                    if (session == null) {
                        session = "default";
                        Dispatcher.mcpClientCallInDefault(tool);   // once per tool, in a JVM that serves MCP tools
                    }
                }
                callId = Dispatcher.newCallId();   // the SDK hands the handler no request id: this invocation's own, on its CALL and RETURN
                ruling = Dispatcher.onToolCall("mcp-client", session, tool, Dispatcher.toJson(request.arguments()), callId);
                if (ruling != null && ruling.skips()) {
                    return ruling;
                }
                Map<String, Object> arguments = request.arguments();
                String name = tool;
                if (ruling != null && (ruling.kind == Ruling.REWRITE || ruling.kind == Ruling.REDIRECT)) {
                    Object parsed = Dispatcher.fromJson(ruling.arguments);
                    if (parsed instanceof Map) {
                        @SuppressWarnings("unchecked")
                        Map<String, Object> map = (Map<String, Object>) parsed;
                        arguments = map;
                    }
                    if (ruling.kind == Ruling.REDIRECT) {
                        name = ruling.tool;
                        tool = ruling.tool;
                        redirect = ruling.text;
                    }
                }
                // a one-shot mark for this call, which a server in this JVM takes so as not to supervise it again
                // (McpMarks); it ends when the call does (the exit)
                Map<String, Object> meta = new LinkedHashMap<String, Object>();
                if (request.meta() != null) {
                    meta.putAll(request.meta());
                }
                meta.remove(SEEN);   // never forwarded: only a mark this call issues
                mark = McpMarks.issue(name, Dispatcher.toJson(arguments));
                if (mark != null) {
                    meta.put(SEEN, mark);
                }
                request = new McpSchema.CallToolRequest(name, arguments, meta);
                return null;
            } catch (Throwable failed) {
                // the guard is put back first, with no call: a second overflow in the failure's own handling (here, or
                // the weaver's handler that prints what advice suppresses) then leaves nothing set
                depth[0] = saved;
                outer = false;
                Ruling refusal = Dispatcher.adviceFailed("mcp-client", "tool call", failed, ruling);
                depth[0] = saved + 1;
                outer = refusal != null;   // open: the call runs unsupervised, and its result is not reported either
                return refusal;
            }
        }

        @Advice.OnMethodExit(onThrowable = Throwable.class)
        @SuppressWarnings({"unchecked", "rawtypes"})
        static void exit(@Advice.Enter Ruling skipped,
                         @Advice.Local("tgOuter") boolean outer,
                         @Advice.Local("tgSession") String session,
                         @Advice.Local("tgTool") String tool,
                         @Advice.Local("tgRedirect") String redirect,
                         @Advice.Local("tgId") String callId,
                         @Advice.Local("tgMark") String mark,
                         @Advice.Return(readOnly = false, typing = Assigner.Typing.DYNAMIC) Object result,
                         @Advice.Thrown(readOnly = false, typing = Assigner.Typing.DYNAMIC) Throwable thrown,
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
                    result = Mono.error(skipped.violation());
                } else {
                    result = Mono.just(McpSchema.CallToolResult.builder().addTextContent(skipped.text).isError(skipped.isError()).build());
                }
                return;
            }
            if (mark != null) {
                // the mark lives while the call is in flight: ended when its Mono ends (completes, fails, is
                // cancelled), or now when there is none
                if (thrown == null && result instanceof Mono) {
                    result = ((Mono) result).doFinally((java.util.function.Consumer) McpMarks.expiry(mark));
                } else {
                    McpMarks.expiry(mark).accept(null);
                }
            }
            if (tool != null && session != null && thrown != null) {
                // callTool threw before returning its Mono: the same error RETURN as an error signal gets
                String notice = Dispatcher.onToolResult("mcp-client", session, tool, callId, Dispatcher.thrownText(thrown), true);
                if (notice != null) {
                    thrown = new TracegateViolation(notice);
                }
                return;
            }
            if (tool != null && result instanceof Mono) {
                // an error signal (the server answered with a JSON-RPC error, the transport failed) is the tool's error
                // RETURN: the same throwable reaches the caller, or, when a contract withholds it, one whose message is the notice
                result = ((Mono<?>) result).onErrorMap(Dispatcher.errorHook("mcp-client", session, tool, callId))
                        .map(Dispatcher.resultHook("mcp-client", session, tool, callId));
                if (redirect != null) {
                    // a redirect to a tool the server does not have: the SDK's "Unknown tool" error becomes the refusal,
                    // as when a Spring AI call's callbacks lack the target (the log holds the target's failed RETURN)
                    result = ((Mono) result).onErrorReturn(Dispatcher.UNKNOWN_TOOL,
                            McpSchema.CallToolResult.builder().addTextContent(redirect).isError(true).build());
                }
            }
        }
    }
}
