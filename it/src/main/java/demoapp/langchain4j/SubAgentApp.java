package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.TokenStream;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * An "agent as a tool" on LangChain4j: the AI service of conversation {@code trip} has a tool, {@code delegateCancellations},
 * that invokes an AI service itself (the sub-agent, chat memory id {@code trip-sub}); the sub-agent's model asks for
 * {@code cancelBooking} three times in one round. Usage: {@code SubAgentApp [blocking|sub-stream|sub-fails]}:
 * {@code blocking}: the sub-agent is a blocking AI service; {@code sub-stream}: the sub-agent is a streaming AI service
 * ({@code TokenStream}) whose model answers on the thread that starts the stream (the tool's); {@code sub-fails}: the
 * sub-agent's first invocation throws (its model fails), the tool catches that and invokes it again.
 */
public final class SubAgentApp {

    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    interface StreamingAssistant {
        TokenStream chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    static Assistant outer;
    static Assistant subAgent;
    static StreamingAssistant streamingSubAgent;
    static String mode = "blocking";
    static boolean failNext;

    /** The outer conversation's tool: asks the sub-agent. */
    public static final class DelegatingTools {
        @Tool("Delegates the cancellation of the given bookings to the cancellation agent")
        public String delegateCancellations(String bookings) {
            Console.line("TOOL delegateCancellations ran bookings=" + bookings);
            String answer;
            if (mode.equals("sub-stream")) {
                CompletableFuture<String> done = new CompletableFuture<>();
                streamingSubAgent.chat("trip-sub", "cancel " + bookings)
                        .onPartialResponse(chunk -> { })
                        .onCompleteResponse(response -> done.complete(response.aiMessage().text()))
                        .onError(done::completeExceptionally)
                        .start();
                try {
                    answer = done.get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    answer = "failed: " + e;
                }
            } else if (mode.equals("sub-fails")) {
                failNext = true;
                try {
                    subAgent.chat("trip-sub", "cancel " + bookings);
                    answer = "unexpected";
                } catch (RuntimeException e) {
                    Console.line("SUB-AGENT FAILED: " + e.getMessage());
                }
                answer = subAgent.chat("trip-sub", "cancel " + bookings);
            } else {
                answer = subAgent.chat("trip-sub", "cancel " + bookings);
            }
            Console.line("SUB-AGENT ANSWER: " + answer);
            return answer;
        }
    }

    /** The sub-agent's tool. */
    public static final class BookingTools {
        @Tool("Cancels a booking")
        public String cancelBooking(String booking) {
            Console.line("TOOL cancelBooking ran booking=" + booking);
            return "cancelled " + booking;
        }
    }

    /** The model's replies: the sub-agent's asks for three cancellations, the outer one for the delegation. */
    static ChatResponse reply(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        ChatMessage last = messages.get(messages.size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            List<String> results = new ArrayList<>();
            for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage; i--) {
                results.add(0, "\"" + ((ToolExecutionResultMessage) messages.get(i)).text() + "\"");
            }
            return ChatResponse.builder().aiMessage(AiMessage.from("done: " + String.join("; ", results))).build();
        }
        String text = ((UserMessage) last).singleText();
        List<ToolExecutionRequest> calls = new ArrayList<>();
        if (text.startsWith("cancel ")) {
            int n = 0;
            for (String booking : text.substring("cancel ".length()).split(",")) {
                calls.add(ToolExecutionRequest.builder().id("sub-" + (++n)).name("cancelBooking")
                        .arguments("{\"booking\":\"" + booking + "\"}").build());
            }
        } else {
            calls.add(ToolExecutionRequest.builder().id("outer-1").name("delegateCancellations")
                    .arguments("{\"bookings\":\"B1,B2,B3\"}").build());
        }
        return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
    }

    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            if (failNext) {
                failNext = false;
                throw new IllegalStateException("the model is unavailable");
            }
            return reply(request);
        }
    }

    /** Answers on the calling thread, as a model whose client calls back synchronously. */
    static final class SameThreadStreamingModel implements StreamingChatModel {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler, reply(request));
        }
    }

    public static void main(String[] args) {
        mode = args.length > 0 ? args[0] : "blocking";
        subAgent = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new BookingTools())
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
        streamingSubAgent = AiServices.builder(StreamingAssistant.class).streamingChatModel(new SameThreadStreamingModel())
                .tools(new BookingTools()).chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
        outer = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new DelegatingTools())
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
        try {
            Console.line("ANSWER: " + outer.chat("trip", "I cannot travel, sort out my trip"));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
