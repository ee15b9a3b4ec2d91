package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.internal.InternalStreamingChatResponseHandlerUtils;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.Result;
import dev.langchain4j.service.TokenStream;

import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A LangChain4j 1.19.0 AI service whose model answers with a text and its thinking ({@code AiMessage#thinking}, as a
 * reasoning model's provider fills it), and a provider attribute beside them ({@code thinking_signature}, as
 * LangChain4j's Anthropic and Gemini providers keep one) and an application attribute. Prints the answer message the
 * application gets and the one its chat memory keeps: {@code FINAL text=... thinking=... attributes=...},
 * {@code MEMORY ...}. Usage: {@code ThinkingAnswerApp <blocking|stream> <answer text> <thinking>}.
 */
public final class ThinkingAnswerApp {

    interface Assistant {
        Result<String> chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    interface StreamingAssistant {
        TokenStream chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    static AiMessage answer(String text, String thinking) {
        return AiMessage.builder().text(text).thinking(thinking)
                .attributes(Map.of("thinking_signature", "sig-0042", "requestId", "r-9")).build();
    }

    static String describe(AiMessage m) {
        return "text=" + m.text() + " thinking=" + m.thinking() + " attributes=" + new TreeMap<>(m.attributes());
    }

    public static void main(String[] args) throws Exception {
        String text = args[1];
        String thinking = args[2];
        ChatMemory memory = MessageWindowChatMemory.withMaxMessages(20);
        if (args[0].equals("blocking")) {
            ChatModel model = new ChatModel() {
                @Override
                public ChatResponse doChat(ChatRequest request) {
                    return ChatResponse.builder().aiMessage(answer(text, thinking)).build();
                }
            };
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model).chatMemoryProvider(id -> memory).build();
            Result<String> result = assistant.chat("ada", "what is the code?");
            Console.line("FINAL " + describe(result.finalResponse().aiMessage()));
        } else {
            StreamingChatModel model = new StreamingChatModel() {
                @Override
                public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
                    new Thread(() -> {
                        InternalStreamingChatResponseHandlerUtils.onPartialResponse(handler, text);
                        InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler,
                                ChatResponse.builder().aiMessage(answer(text, thinking)).build());
                    }, "provider-stream").start();
                }
            };
            StreamingAssistant assistant = AiServices.builder(StreamingAssistant.class).streamingChatModel(model)
                    .chatMemoryProvider(id -> memory).build();
            CountDownLatch done = new CountDownLatch(1);
            assistant.chat("ada", "what is the code?")
                    .onPartialResponse(partial -> { })
                    .onCompleteResponse(response -> {
                        Console.line("FINAL " + describe(response.aiMessage()));
                        done.countDown();
                    })
                    .onError(error -> {
                        Console.exception(error);
                        done.countDown();
                    })
                    .start();
            if (!done.await(30, TimeUnit.SECONDS)) {
                Console.line("TIMEOUT");
            }
        }
        for (ChatMessage m : memory.messages()) {
            if (m instanceof AiMessage) {
                Console.line("MEMORY " + describe((AiMessage) m));
            }
        }
        Console.line("DONE");
    }
}
