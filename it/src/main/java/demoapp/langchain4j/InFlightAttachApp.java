package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.P;
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
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * A LangChain4j AI service whose turn is in flight when an agent attaches: the turn in conversation {@code conv-long}
 * first calls {@code hold}, which prints {@code HOLDING pid=N} and waits for a line "go" on standard input (the agent
 * is attached meanwhile), then {@code get_balance}, then answers. A second turn in {@code conv-next} follows. Prints
 * each answer as {@code ANSWER <conversation>: <text>}, then {@code DONE}.
 */
public final class InFlightAttachApp {

    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    /** The tools: one that waits for the test, one that reads a balance. */
    public static final class Tools {
        private final BufferedReader in;

        Tools(BufferedReader in) {
            this.in = in;
        }

        @Tool(name = "hold")
        public String hold(@P("why") String why) {
            Console.line("HOLDING pid=" + ProcessHandle.current().pid());
            try {
                String line = in.readLine();
                return "held until " + line;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        @Tool(name = "get_balance")
        public String getBalance(@P("account") String account) {
            return "12 EUR";
        }
    }

    /** hold (first turn only), then get_balance, then an answer. */
    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            int results = 0;
            String user = "";
            for (int i = messages.size() - 1; i >= 0; i--) {
                if (messages.get(i) instanceof UserMessage) {
                    user = ((UserMessage) messages.get(i)).singleText();
                    break;
                }
                if (messages.get(i) instanceof ToolExecutionResultMessage) results++;
            }
            boolean holds = user.equals("hold first");
            if (holds && results == 0) return call("hold", "{\"why\":\"attach\"}", messages.size());
            if (results == (holds ? 1 : 0)) return call("get_balance", "{\"account\":\"A\"}", messages.size());
            return ChatResponse.builder().aiMessage(AiMessage.from("your balance is 12 EUR")).build();
        }

        private static ChatResponse call(String tool, String arguments, int n) {
            return ChatResponse.builder().aiMessage(AiMessage.from(List.of(ToolExecutionRequest.builder()
                    .id("call-" + tool + "-" + n).name(tool).arguments(arguments).build()))).build();
        }
    }

    public static void main(String[] args) {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Assistant assistant = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new Tools(in))
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
        Console.line("ANSWER conv-long: " + assistant.chat("conv-long", "hold first"));
        Console.line("ANSWER conv-next: " + assistant.chat("conv-next", "balance please"));
        Console.line("DONE");
    }
}
