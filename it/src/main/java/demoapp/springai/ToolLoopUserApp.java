package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.tool.annotation.Tool;
import reactor.core.publisher.Flux;

import java.util.List;

/**
 * A Spring AI 2.0.1 {@code ChatClient} whose own tool-calling advisor ({@code ToolCallingAdvisor}, added by its builder)
 * runs the tool loop: the model asks for a tool in the first round and answers in the second, which the advisor builds
 * from the request's own messages. The user's message names a password. Usage: {@code ToolLoopUserApp call|stream
 * [entity|many]} (conversation {@code c1}; {@code entity}: a structured output, whose format instructions each round appends
 * to the user message; {@code many}: while c1's tool runs, between its two rounds, 70 other conversations {@code o1..o70}
 * each run the same loop on another thread, so that more user messages than the 64 a JVM-wide memory kept until session 19
 * are replaced before c1's second round). The model prints every user message of every round it gets.
 */
public final class ToolLoopUserApp {
    static final String USER = "my password is hunter2, look up my account";

    public record Account(String status) {
    }

    static final java.util.concurrent.atomic.AtomicBoolean OTHERS = new java.util.concurrent.atomic.AtomicBoolean();

    public static final class Tools {
        @Tool(description = "Look up an account")
        public String lookup(String who) {
            if (OTHERS.getAndSet(false)) {
                Thread others = new Thread(() -> {
                    for (int i = 1; i <= 70; i++) {
                        String id = "o" + i;
                        ChatClient.builder(new ScriptedModel()).build().prompt().user(USER).tools(new Tools())
                                .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, id)).call().content();
                    }
                    Console.line("OTHERS DONE");
                });
                others.start();
                try {
                    others.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Console.line("RAN lookup");
            return "active";
        }
    }

    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatOptions getOptions() {
            return ToolCallingChatOptions.builder().build();
        }

        @Override
        public ChatOptions getDefaultOptions() {
            return getOptions();
        }

        @Override
        public ChatResponse call(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            boolean answered = messages.stream().anyMatch(m -> m instanceof ToolResponseMessage);
            for (Message m : messages) {
                if (m instanceof UserMessage) {
                    Console.line("ROUND " + (answered ? 2 : 1) + " USER " + m.getText().replace("\r", "").replace("\n", "\\n"));
                }
            }
            if (!answered) {
                return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("")
                        .toolCalls(List.of(new AssistantMessage.ToolCall("t1", "function", "lookup", "{\"who\":\"me\"}"))).build())));
            }
            return new ChatResponse(List.of(new Generation(new AssistantMessage("{\"status\":\"active\"}"))));
        }

        @Override
        public Flux<ChatResponse> stream(Prompt prompt) {
            return Flux.defer(() -> Flux.just(call(prompt)));
        }
    }

    public static void main(String[] args) {
        try {
            ChatClient.ChatClientRequestSpec request = ChatClient.builder(new ScriptedModel()).build().prompt().user(USER)
                    .tools(new Tools()).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "c1"));
            OTHERS.set(args.length > 1 && args[1].equals("many"));
            if (args.length > 1 && args[1].equals("entity")) {
                Console.line("ENTITY " + request.call().entity(Account.class));
            } else if (args[0].equals("stream")) {
                Console.line("ANSWER " + String.join("", request.stream().content().collectList().block()));
            } else {
                Console.line("ANSWER " + request.call().content());
            }
        } catch (RuntimeException e) {
            Console.exception(e);
        }
        Console.line("DONE");
    }
}
