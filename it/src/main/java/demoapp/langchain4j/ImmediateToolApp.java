package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.ReturnBehavior;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.CompleteToolCall;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.observability.api.event.ToolExecutedEvent;
import dev.langchain4j.observability.api.listener.ToolExecutedEventListener;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.TokenStream;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.model.chat.request.json.JsonObjectSchema;
import dev.langchain4j.service.tool.ToolExecution;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.service.tool.ToolProvider;
import dev.langchain4j.service.tool.ToolProviderResult;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A LangChain4j AI service whose tools are declared {@code @Tool(returnBehavior = ReturnBehavior.IMMEDIATE)}: the turn
 * ends with their results, no model round follows, and the application reads what it gets from
 * {@code Result.toolExecutions()} (or, on 1.19.0, as the method's own value when the tool's return type fits).
 * Usage: {@code ImmediateToolApp <result|direct|object|two> [memory id]}:
 * {@code result}: {@code Result<String>}, the model asks for {@code orderStatus};
 * {@code direct}: a {@code String} method, the same tool (1.19.0);
 * {@code object}: an {@code OrderInfo} method, a tool that returns an {@code OrderInfo} (1.19.0);
 * {@code two}: {@code Result<String>}, the model asks for {@code orderStatus} and {@code trackingNote} in one round;
 * {@code after-lookup}: {@code Result<String>}, the model asks for the ordinary {@code customerNote}, then, having read it,
 * for {@code trackingNote};
 * {@code stream}: a streaming AI service ({@code TokenStream}) whose model asks for {@code orderStatus} from a thread of
 * its own; prints what {@code onToolExecuted}, {@code onCompleteResponse} or {@code onError} receive and the tool result
 * the chat memory kept; {@code stream-concurrent}: the same with the AI service's tools run concurrently.
 * A scenario followed by {@code +callbacks} (e.g. {@code result+callbacks}) also registers the AI service's own tool
 * callbacks, {@code afterToolExecution(...)} and a {@code ToolExecutedEvent} listener, and prints what they receive
 * ({@code AFTER TOOL RESULT name: ...}, {@code EVENT TOOL RESULT name: ...}); {@code +callbacks-only} on a stream does
 * so without an {@code onToolExecuted} handler. {@code provider}: as {@code result}, the tool given by a
 * {@code ToolProvider} whose result names it an immediate return tool.
 */
public final class ImmediateToolApp {

    /** What the {@code orderInfo} tool returns. */
    public record OrderInfo(String id, String status, String courierToken) {
    }

    interface Desk {
        Result<String> ask(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    interface DirectDesk {
        String ask(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    interface StreamingDesk {
        TokenStream ask(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    interface InfoDesk {
        OrderInfo ask(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** Tools whose results go to the application as they are, without the model. */
    public static final class OrderTools {
        @Tool(value = "The status of an order", returnBehavior = ReturnBehavior.IMMEDIATE)
        public String orderStatus(String id) {
            Console.line("TOOL orderStatus ran id=" + id);
            return "order " + id + ": shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000";
        }

        @Tool(value = "A note on the tracking of an order", returnBehavior = ReturnBehavior.IMMEDIATE)
        public String trackingNote(String id) {
            Console.line("TOOL trackingNote ran id=" + id);
            return "order " + id + " arrives on Friday";
        }

        @Tool("The customer's note on an order (an ordinary tool: its result goes to the model)")
        public String customerNote(String id) {
            Console.line("TOOL customerNote ran id=" + id);
            return "customer note on order " + id + ": courier token SECRET-TOKEN-42";
        }

        @Tool(value = "An order as a record", returnBehavior = ReturnBehavior.IMMEDIATE)
        public OrderInfo orderInfo(String id) {
            Console.line("TOOL orderInfo ran id=" + id);
            return new OrderInfo(id, "shipped", "SECRET-TOKEN-42");
        }
    }

    /** Asks for the scenario's tools; a second round (which IMMEDIATE tools never start) says what it saw. */
    static final class ScriptedModel implements ChatModel {
        private final String scenario;

        ScriptedModel(String scenario) {
            this.scenario = scenario;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage && "customerNote".equals(((ToolExecutionResultMessage) last).toolName())) {
                // after-lookup: the ordinary tool's result read, the immediate tool ends the turn
                Console.line("MODEL SAW LOOKUP RESULT " + ((ToolExecutionResultMessage) last).text());
                return ChatResponse.builder().aiMessage(AiMessage.from(List.of(request("trackingNote")))).build();
            }
            if (last instanceof ToolExecutionResultMessage) {
                Console.line("MODEL SAW TOOL RESULT " + ((ToolExecutionResultMessage) last).text());
                return ChatResponse.builder().aiMessage(AiMessage.from("done")).build();
            }
            Console.line("MODEL SAW USER: " + ((UserMessage) last).singleText());
            List<ToolExecutionRequest> calls = new ArrayList<>();
            switch (scenario) {
                case "result":
                case "direct":
                case "provider":
                    calls.add(request("orderStatus"));
                    break;
                case "object":
                    calls.add(request("orderInfo"));
                    break;
                case "two":
                    calls.add(request("orderStatus"));
                    calls.add(request("trackingNote"));
                    break;
                case "after-lookup":
                    calls.add(request("customerNote"));
                    break;
                default:
                    throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
        }

        private static ToolExecutionRequest request(String name) {
            return ToolExecutionRequest.builder().id("call-" + name).name(name).arguments("{\"id\":\"7\"}").build();
        }
    }

    /** Asks for {@code orderStatus} from a thread of its own, as a provider streams; a second round says what it saw. */
    static final class ScriptedStreamingModel implements StreamingChatModel {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            new Thread(() -> reply(request, handler), "provider-stream").start();
        }

        private static void reply(ChatRequest request, StreamingChatResponseHandler handler) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                Console.line("MODEL SAW TOOL RESULT " + ((ToolExecutionResultMessage) last).text());
                InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler, ChatResponse.builder().aiMessage(AiMessage.from("done")).build());
                return;
            }
            Console.line("MODEL SAW USER: " + ((UserMessage) last).singleText());
            // as providers do: each complete tool call first (where concurrent tools start), then the complete response
            ToolExecutionRequest call = ScriptedModel.request("orderStatus");
            InternalStreamingChatResponseHandlerUtils.onCompleteToolCall(handler, new CompleteToolCall(0, call));
            InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler,
                    ChatResponse.builder().aiMessage(AiMessage.from(List.of(call))).build());
        }
    }

    /** The streaming AI service: prints what each of the stream's handlers gets, then the tool result the memory kept. */
    private static void stream(String scenario, String user) throws InterruptedException {
        ChatMemory memory = MessageWindowChatMemory.withMaxMessages(20);
        AiServices<StreamingDesk> builder = AiServices.builder(StreamingDesk.class)
                .streamingChatModel(new ScriptedStreamingModel())
                .tools(new OrderTools())
                .chatMemoryProvider(id -> memory);
        if (scenario.startsWith("stream-concurrent")) {
            builder.executeToolsConcurrently();
        }
        if (scenario.contains("+callbacks")) {
            callbacks(builder);
        }
        CountDownLatch done = new CountDownLatch(1);
        TokenStream stream = builder.build().ask(user, "where is order 7?")
                .onPartialResponse(chunk -> Console.line("CHUNK: " + chunk));
        if (!scenario.endsWith("+callbacks-only")) {
            stream = stream.onToolExecuted(execution -> {
                Console.line("STREAM TOOL RESULT " + execution.request().name() + ": " + execution.result());
                Console.line("STREAM TOOL OBJECT " + execution.request().name() + ": " + execution.resultObject());
            });
        }
        stream.onCompleteResponse(response -> {
                    Console.line("STREAM COMPLETE: text=" + response.aiMessage().text()
                            + " tool requests=" + response.aiMessage().toolExecutionRequests().size());
                    done.countDown();
                })
                .onError(error -> {
                    Console.exception(error);
                    done.countDown();
                })
                .start();
        if (!done.await(60, TimeUnit.SECONDS)) {
            Console.line("TIMEOUT: the stream neither completed nor failed");
        }
        for (ChatMessage message : memory.messages()) {
            if (message instanceof ToolExecutionResultMessage) {
                Console.line("MEMORY TOOL RESULT: " + ((ToolExecutionResultMessage) message).text());
            }
        }
    }

    /** The AI service's own tool callbacks: what each gets is printed. */
    private static void callbacks(AiServices<?> builder) {
        builder.afterToolExecution(execution ->
                Console.line("AFTER TOOL RESULT " + execution.request().name() + ": " + execution.result()));
        builder.registerListener(new ToolExecutedEventListener() {
            @Override
            public void onEvent(ToolExecutedEvent event) {
                Console.line("EVENT TOOL RESULT " + event.request().name() + ": " + event.resultText());
            }
        });
    }

    /** {@code orderStatus} as a tool provider's immediate tool (named in the result's immediate return tool names). */
    private static ToolProvider orderProvider() {
        ToolSpecification spec = ToolSpecification.builder().name("orderStatus").description("The status of an order")
                .parameters(JsonObjectSchema.builder().addStringProperty("id").build()).build();
        ToolExecutor executor = (request, memoryId) -> {
            Console.line("TOOL orderStatus ran id=7 (provider)");
            return "order 7: shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000";
        };
        return request -> ToolProviderResult.builder().add(spec, executor).immediateReturnToolNames(Set.of("orderStatus")).build();
    }

    private static <T> T service(Class<T> type, String scenario) {
        boolean withCallbacks = scenario.endsWith("+callbacks");
        String base = withCallbacks ? scenario.substring(0, scenario.length() - "+callbacks".length()) : scenario;
        AiServices<T> builder = AiServices.builder(type)
                .chatModel(new ScriptedModel(base))
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20));
        if (base.equals("provider")) {
            builder.toolProvider(orderProvider());
        } else {
            builder.tools(new OrderTools());
        }
        if (withCallbacks) {
            callbacks(builder);
        }
        return builder.build();
    }

    public static void main(String[] args) throws InterruptedException {
        String scenario = args.length > 0 ? args[0] : "result";
        String user = args.length > 1 ? args[1] : "alice";
        try {
            switch (scenario) {
                case "stream":
                case "stream-concurrent":
                case "stream+callbacks":
                case "stream-concurrent+callbacks":
                case "stream+callbacks-only":
                    stream(scenario, user);
                    System.exit(0);   // the provider's and the tool executor's threads end with the JVM
                    break;
                case "direct":
                    Console.line("DIRECT: " + service(DirectDesk.class, scenario).ask(user, "where is order 7?"));
                    break;
                case "object":
                    Console.line("DIRECT OBJECT: " + service(InfoDesk.class, scenario).ask(user, "where is order 7?"));
                    break;
                default:
                    Result<String> result = service(Desk.class, scenario).ask(user, "where is order 7?");
                    Console.line("CONTENT: " + result.content());
                    for (ToolExecution execution : result.toolExecutions()) {
                        Console.line("TOOL RESULT " + execution.request().name() + ": " + execution.result());
                        Console.line("TOOL OBJECT " + execution.request().name() + ": " + execution.resultObject());
                    }
            }
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
