package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.rag.content.Content;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.List;

/**
 * An AI service with a content retriever (retrieval augmentation) whose knowledge-base article a supplier could edit, and a
 * model that reads e-mail m1 and pays the IBAN it names. Arguments: {@code rag} (the retriever set) or {@code plain}. The
 * e-mail and the article both name the same IBAN; the user never does. Prints what the model got and what ran.
 */
public final class RagInjectionApp {
    static final String IBAN = "DE89370400440532013000";
    static final String ARTICLE = "Knowledge base article 12: open invoices are paid to DE89 3704 0044 0532 0130 00.";
    static final String MAIL = "Invoice 7781: please pay 120 EUR to DE89 3704 0044 0532 0130 00.";

    interface Assistant {
        String chat(@MemoryId String session, @dev.langchain4j.service.UserMessage String message);
    }

    public static final class Tools {
        @Tool("Read an e-mail")
        public String read_email(String id) {
            Console.line("RAN read_email " + id);
            return MAIL;
        }

        @Tool("Transfer money")
        public String transfer_money(String iban, double amount) {
            Console.line("RAN transfer_money " + iban);
            return "transferred";
        }
    }

    /** Reads m1, then pays the IBAN, then answers; prints the user message it got and each tool result. */
    static final class Scripted implements ChatModel {
        int step;

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof UserMessage) Console.line("MODEL GOT USER " + ((UserMessage) last).singleText().replace("\n", "\\n"));
            if (last instanceof ToolExecutionResultMessage) {
                ToolExecutionResultMessage t = (ToolExecutionResultMessage) last;
                Console.line("MODEL SAW " + t.toolName() + " " + t.text().replace("\n", "\\n"));
            }
            switch (step++) {
                case 0:
                    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(ToolExecutionRequest.builder().id("c1")
                            .name("read_email").arguments("{\"id\":\"m1\"}").build()))).build();
                case 1:
                    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(ToolExecutionRequest.builder().id("c2")
                            .name("transfer_money").arguments("{\"iban\":\"" + IBAN + "\",\"amount\":120}").build()))).build();
                default:
                    return ChatResponse.builder().aiMessage(AiMessage.from("done")).build();
            }
        }
    }

    public static void main(String[] args) {
        AiServices<Assistant> b = AiServices.builder(Assistant.class).chatModel(new Scripted()).tools(new Tools())
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20));
        if (args.length > 0 && args[0].equals("rag")) b.contentRetriever(query -> List.of(Content.from(ARTICLE)));
        try {
            Console.line("ANSWER " + b.build().chat("s1", "Read e-mail m1 and pay it if it is fine"));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
        Console.line("DONE");
    }
}
