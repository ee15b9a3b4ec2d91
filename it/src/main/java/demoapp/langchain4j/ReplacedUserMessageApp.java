package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
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

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * User messages a supervisor may replace, sent to a model that prints every user message it is given: its name, each
 * content (text, or the kind and URL of an image) and its attributes. {@code direct}: the application calls the model with
 * a named user message that carries attributes, once with text alone and once with text and an image. {@code memory}: an
 * AI service with a chat memory, two turns of one memory id (the model sees the whole memory each turn);
 * {@code stream-memory}: the same with a streaming AI service ({@code TokenStream}) and a streaming model.
 */
public final class ReplacedUserMessageApp {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    interface StreamingAssistant {
        TokenStream chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** Prints what it is given and answers "ok". */
    static final class PrintingModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            print(request);
            return ChatResponse.builder().aiMessage(AiMessage.from("ok")).build();
        }
    }

    /** Prints what it is given and streams "ok" from a thread of its own. */
    static final class PrintingStreamingModel implements StreamingChatModel {
        @Override
        public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
            new Thread(() -> {
                print(request);
                InternalStreamingChatResponseHandlerUtils.onPartialResponse(handler, "ok");
                InternalStreamingChatResponseHandlerUtils.onCompleteResponse(handler, ChatResponse.builder().aiMessage(AiMessage.from("ok")).build());
            }, "provider-stream").start();
        }
    }

    /** Prints every user message of the request: its name, each content and its attributes. */
    private static void print(ChatRequest request) {
        for (ChatMessage m : request.messages()) {
            if (!(m instanceof UserMessage)) continue;
            UserMessage u = (UserMessage) m;
            StringBuilder b = new StringBuilder("MODEL SAW USER name=" + u.name() + " contents=[");
            for (Content c : u.contents()) {
                if (c instanceof TextContent) b.append("text:").append(((TextContent) c).text());
                else if (c instanceof ImageContent) b.append("image:").append(((ImageContent) c).image().url());
                else b.append(c.type());
                b.append("; ");
            }
            Console.line(b.append("] attributes=").append(new java.util.TreeMap<>(u.attributes())).toString());
        }
    }

    /** One turn of the streaming AI service, to its end. */
    private static void streamTurn(StreamingAssistant assistant, String message) throws InterruptedException {
        CountDownLatch done = new CountDownLatch(1);
        assistant.chat("ada", message)
                .onPartialResponse(chunk -> { })
                .onCompleteResponse(response -> done.countDown())
                .onError(error -> {
                    Console.exception(error);
                    done.countDown();
                })
                .start();
        if (!done.await(60, TimeUnit.SECONDS)) {
            Console.line("TIMEOUT: the stream neither completed nor failed");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        String mode = args.length > 0 ? args[0] : "direct";
        ChatModel model = new PrintingModel();
        if (mode.equals("direct")) {
            Map<String, Object> attributes = new LinkedHashMap<>();
            attributes.put("requestId", "r-7");
            attributes.put("preview", "my password is hunter2");   // the application's own copy of the text
            Console.line("TURN text");
            model.chat(ChatRequest.builder().messages(UserMessage.builder().name("ada")
                    .contents(List.of(TextContent.from("my password is hunter2"))).attributes(attributes).build()).build());
            Console.line("TURN text and image");
            model.chat(ChatRequest.builder().messages(UserMessage.builder().name("ada")
                    .contents(List.of(TextContent.from("my password is hunter2"), ImageContent.from("https://example.com/cat.png")))
                    .attributes(attributes).build()).build());
        } else if (mode.equals("stream-memory")) {
            StreamingAssistant assistant = AiServices.builder(StreamingAssistant.class).streamingChatModel(new PrintingStreamingModel())
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
            Console.line("TURN 1");
            streamTurn(assistant, "my password is hunter2");
            Console.line("TURN 2");
            streamTurn(assistant, "what is the weather?");
        } else {
            Assistant assistant = AiServices.builder(Assistant.class).chatModel(model)
                    .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
            Console.line("TURN 1");
            assistant.chat("ada", "my password is hunter2");
            Console.line("TURN 2");
            assistant.chat("ada", "what is the weather?");
        }
        Console.line("DONE");
    }
}
