package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * User messages a supervisor may replace, sent to a model that prints every user message it is given: its name, each
 * content (text, or the kind and URL of an image) and its attributes. {@code direct}: the application calls the model with
 * a named user message that carries attributes, once with text alone and once with text and an image. {@code memory}: an
 * AI service with a chat memory, two turns of one memory id (the model sees the whole memory each turn).
 */
public final class ReplacedUserMessageApp {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** Prints what it is given and answers "ok". */
    static final class PrintingModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
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
            return ChatResponse.builder().aiMessage(AiMessage.from("ok")).build();
        }
    }

    public static void main(String[] args) {
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
