package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.Content;
import dev.langchain4j.data.message.ImageContent;
import dev.langchain4j.data.message.TextContent;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.List;

/**
 * A LangChain4j 1.19.0 AI service whose tools return several contents ({@code List<Content>}: a text and an image, two
 * texts), a result whose {@code ToolExecutionResult#resultText()} throws. The model asks for the tool named by the
 * argument, then prints every content of the tool result it is given ({@code MODEL SAW name: text:...; image:<url>; })
 * and answers "ok". Usage: {@code ToolResultContentsApp <tool>...}, one turn per tool, each in a memory id of its own.
 */
public final class ToolResultContentsApp {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    public static final class Tools {
        @Tool("an order's status beside a picture of it")
        public List<Content> withImage(String id) {
            return List.of(TextContent.from("order " + id + ": fine"), ImageContent.from("https://images.example/p.png?d=SECRET-TOKEN-42"));
        }

        @Tool("an order's status and its note")
        public List<Content> twoTexts(String id) {
            return List.of(TextContent.from("order " + id + ": fine"), TextContent.from("note: SECRET-TOKEN-42"));
        }

        @Tool("an order's status beside the shop's logo")
        public List<Content> fineContents(String id) {
            return List.of(TextContent.from("order " + id + ": shipped"), ImageContent.from("https://shop.example/logo.png"));
        }
    }

    /** First round: asks for the tool named in the user message; then prints the tool results it is given and answers. */
    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage result = (ToolExecutionResultMessage) last;
                StringBuilder b = new StringBuilder("MODEL SAW " + result.toolName() + ": ");
                for (Content c : result.contents()) {
                    if (c instanceof TextContent) b.append("text:").append(((TextContent) c).text());
                    else if (c instanceof ImageContent) b.append("image:").append(((ImageContent) c).image().url());
                    else b.append(c.type());
                    b.append("; ");
                }
                Console.line(b.toString());
                return ChatResponse.builder().aiMessage(AiMessage.from("ok")).build();
            }
            String tool = ((dev.langchain4j.data.message.UserMessage) last).singleText();
            return ChatResponse.builder().aiMessage(AiMessage.from(List.of(ToolExecutionRequest.builder()
                    .id("c-" + tool).name(tool).arguments("{\"id\":\"7\"}").build()))).build();
        }
    }

    public static void main(String[] args) {
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new Tools())
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
        for (String tool : args) {
            try {
                Console.line("ANSWER " + tool + ": " + assistant.chat("u-" + tool, tool));
            } catch (RuntimeException e) {
                Console.exception(e);
            }
        }
        Console.line("DONE");
    }
}
