package demoapp.hardening;

import demoapp.Console;
import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.definition.ToolDefinition;
import org.springframework.ai.tool.function.FunctionToolCallback;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An application whose own objects make the agent's inlined advice fail in its own code (not in the tool, not
 * inside the agent's core): a conversation key that refuses to print itself, a tool definition that cannot be
 * loaded. It imports nothing of tracegate and runs the commands given as arguments, in order:
 * <ul>
 *   <li>{@code springai-context}: a Spring AI {@code FunctionToolCallback} called directly with a {@code ToolContext}
 *       whose conversation id is a {@link CustomerKey};</li>
 *   <li>{@code springai-definition}: a Spring AI tool callback of the application whose definition (loaded lazily from
 *       a schema registry) is unavailable, called directly;</li>
 *   <li>{@code springai-chat}: a Spring AI {@code ChatClient} call whose conversation id is a {@link CustomerKey}; the
 *       scripted model asks for {@code lookup} once, then answers;</li>
 *   <li>{@code springai-stream}: the same conversation streamed ({@code ChatClient...stream()});</li>
 *   <li>{@code lc4j}: a LangChain4j AI service whose {@code @MemoryId} is a {@link CustomerKey}; the scripted model asks
 *       for {@code lookup} once, then answers;</li>
 *   <li>{@code lc4j-stream}: a streaming LangChain4j AI service ({@code TokenStream}) with the same memory id; the
 *       model streams its answer from its own thread;</li>
 *   <li>{@code springai-delete}: a well-behaved Spring AI callback, {@code delete_account}, called directly (a
 *       contract of the test blocks it: the agent still supervises this thread after the failures above);</li>
 *   <li>{@code metrics}: the agent's MBean counters (see {@link FaultApp}).</li>
 * </ul>
 * Each tool prints {@code TOOL <name> ran} when its body runs; results print as {@code RESULT ...}, exceptions that
 * reach the application as {@code HOST CAUGHT <class>: <message>}.
 */
public final class AdviceFaultApp {

    /**
     * A customer key that never prints itself (it would put a customer number in logs): equal by id, usable as a
     * map key and a conversation id, but {@code toString} refuses.
     */
    public static final class CustomerKey {
        private final long id;

        CustomerKey(long id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof CustomerKey k && k.id == id;
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(id);
        }

        @Override
        public String toString() {
            throw new IllegalStateException("customer keys are never printed (personal data)");
        }
    }

    /** A tool callback whose definition comes from a schema registry that is not reachable. */
    static final class RegistryToolCallback implements ToolCallback {
        @Override
        public ToolDefinition getToolDefinition() {
            throw new IllegalStateException("schema registry unreachable: no definition for lookup");
        }

        @Override
        public String call(String toolInput) {
            Console.line("TOOL lookup ran input=" + toolInput);
            return "found " + toolInput;
        }
    }

    /** LangChain4j tools. */
    public static final class Tools {
        @Tool("Look up a customer's orders")
        public String lookup(@P("customer") String customer) {
            Console.line("TOOL lookup ran customer=" + customer);
            return "2 orders for " + customer;
        }
    }

    /** Spring AI tools. */
    public static final class SpringTools {
        @org.springframework.ai.tool.annotation.Tool(description = "Look up a customer's orders")
        public String lookup(String customer) {
            Console.line("TOOL lookup ran customer=" + customer);
            return "2 orders for " + customer;
        }
    }

    /** A Spring AI model that asks for lookup once, then answers with the tool result it saw. */
    static final class SpringScriptedModel implements org.springframework.ai.chat.model.ChatModel {
        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        @Override
        public ChatOptions getDefaultOptions() {
            return getOptions();
        }

        /** The same replies, each as one chunk (a ChatClient's stream() runs the tool loop round by round). */
        @Override
        public reactor.core.publisher.Flux<org.springframework.ai.chat.model.ChatResponse> stream(Prompt prompt) {
            return reactor.core.publisher.Flux.defer(() -> reactor.core.publisher.Flux.just(call(prompt)));
        }

        @Override
        public org.springframework.ai.chat.model.ChatResponse call(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            Message last = messages.get(messages.size() - 1);
            if (last instanceof ToolResponseMessage t) {
                for (ToolResponseMessage.ToolResponse r : t.getResponses()) {
                    Console.line("MODEL SAW TOOL RESULT " + r.name() + ": " + r.responseData());
                }
                return new org.springframework.ai.chat.model.ChatResponse(List.of(new Generation(new AssistantMessage("you have orders"))));
            }
            Console.line("MODEL SAW USER " + last.getText());
            AssistantMessage.ToolCall call = new AssistantMessage.ToolCall("call-1", "function", "lookup", "{\"customer\":\"c-17\"}");
            return new org.springframework.ai.chat.model.ChatResponse(List.of(new Generation(
                    AssistantMessage.builder().content("").toolCalls(List.of(call)).build())));
        }
    }

    interface Assistant {
        String chat(@MemoryId CustomerKey customer, @dev.langchain4j.service.UserMessage String message);
    }

    /** Asks for lookup once, then answers with the tool result it saw. */
    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage r) {
                Console.line("MODEL SAW TOOL RESULT " + r.toolName() + ": " + r.text());
                return ChatResponse.builder().aiMessage(AiMessage.from("you have orders")).build();
            }
            if (last instanceof UserMessage u) {
                Console.line("MODEL SAW USER " + u.singleText());
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(List.of(
                    ToolExecutionRequest.builder().id("c1").name("lookup").arguments("{\"customer\":\"c-17\"}").build()))).build();
        }
    }

    interface StreamingAssistant {
        TokenStream chat(@MemoryId CustomerKey customer, @dev.langchain4j.service.UserMessage String message);
    }

    /** Streams "you have orders" in two chunks from a thread of its own, as provider modules do. */
    static final class ScriptedStreamingModel implements StreamingChatModel {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            List<ChatMessage> messages = request.messages();
            Console.line("MODEL SAW USER " + ((UserMessage) messages.get(messages.size() - 1)).singleText());
            new Thread(() -> {
                InternalStreamingChatResponseHandlerUtils.onPartialResponse(handler, "you have ");
                InternalStreamingChatResponseHandlerUtils.onPartialResponse(handler, "orders");
                InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler,
                        ChatResponse.builder().aiMessage(AiMessage.from("you have orders")).build());
            }, "provider-stream").start();
        }
    }

    public static void main(String[] args) throws Exception {
        for (String command : args) {
            try {
                switch (command) {
                    case "springai-context" -> {
                        ToolCallback lookup = FunctionToolCallback.builder("lookup", (Map<String, Object> in, ToolContext context) -> {
                            Console.line("TOOL lookup ran customer=" + in.get("customer"));
                            return "2 orders";
                        }).description("Look up a customer's orders").inputType(Map.class).build();
                        ToolContext context = new ToolContext(Map.of("chat_memory_conversation_id", new CustomerKey(17)));
                        Console.line("RESULT springai: " + lookup.call("{\"customer\":\"c-17\"}", context));
                    }
                    case "springai-definition" ->
                            Console.line("RESULT springai: " + new RegistryToolCallback().call("{\"customer\":\"c-17\"}"));
                    case "springai-delete" -> {
                        ToolCallback delete = FunctionToolCallback.builder("delete_account", (Map<String, Object> in) -> {
                            Console.line("TOOL delete_account ran");
                            return "deleted";
                        }).description("Delete an account").inputType(Map.class).build();
                        Console.line("RESULT springai: " + delete.call("{\"customer\":\"c-17\"}"));
                    }
                    case "springai-chat" -> {
                        CustomerKey customer = new CustomerKey(17);
                        String answer = ChatClient.builder(new SpringScriptedModel()).build().prompt().user("what did I order?")
                                .tools(new SpringTools()).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, customer)).call().content();
                        Console.line("RESULT springai-chat: " + answer);
                    }
                    case "springai-stream" -> {
                        CustomerKey customer = new CustomerKey(17);
                        List<String> chunks = ChatClient.builder(new SpringScriptedModel()).build().prompt().user("what did I order?")
                                .tools(new SpringTools()).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, customer))
                                .stream().content().collectList().block();
                        Console.line("RESULT springai-stream: " + (chunks == null ? null : String.join("", chunks)));
                    }
                    case "lc4j-stream" -> {
                        StreamingAssistant a = AiServices.builder(StreamingAssistant.class).streamingChatModel(new ScriptedStreamingModel())
                                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
                        CountDownLatch done = new CountDownLatch(1);
                        a.chat(new CustomerKey(17), "what did I order?")
                                .onPartialResponse(chunk -> Console.line("CHUNK: " + chunk))
                                .onCompleteResponse(response -> {
                                    Console.line("COMPLETE: " + response.aiMessage().text());
                                    done.countDown();
                                })
                                .onError(error -> {
                                    Console.line("STREAM ERROR " + error.getClass().getName() + ": " + error.getMessage());
                                    done.countDown();
                                })
                                .start();
                        if (!done.await(60, TimeUnit.SECONDS)) {
                            Console.line("TIMEOUT: the stream neither completed nor failed");
                        }
                    }
                    case "lc4j" -> {
                        Assistant a = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new Tools())
                                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
                        Console.line("RESULT lc4j: " + a.chat(new CustomerKey(17), "what did I order?"));
                    }
                    case "metrics" -> FaultApp.metrics();
                    default -> throw new IllegalArgumentException("unknown command " + command);
                }
            } catch (RuntimeException e) {
                Console.line("HOST CAUGHT " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
        Console.line("END");
    }
}
