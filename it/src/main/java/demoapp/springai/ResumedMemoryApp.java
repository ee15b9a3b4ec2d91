package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

import java.util.List;

/**
 * One conversation ({@code conv-1}) with a Spring AI chat memory ({@code MessageChatMemoryAdvisor}, which stores the
 * request's messages) over two turns, {@code ResumedMemoryApp PAUSE_MS}: the first turn's user message, then a pause of
 * PAUSE_MS (longer than the agent's sessions.idle-timeout: the conversation is resumed in a new session), then a second
 * turn. The scripted model prints every user message it gets ({@code MODEL GOT USER: text}), the memory's history
 * included; the application prints what its memory holds at the end ({@code MEMORY: TYPE text}).
 */
public final class ResumedMemoryApp {

    /** Prints the user messages of each request and answers "noted". */
    static final class PrintingModel implements ChatModel {
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
            for (Message m : prompt.getInstructions()) {
                if (m instanceof UserMessage) {
                    Console.line("MODEL GOT USER: " + m.getText());
                }
            }
            return new ChatResponse(List.of(new Generation(new AssistantMessage("noted"))));
        }
    }

    private ResumedMemoryApp() {
    }

    public static void main(String[] args) throws Exception {
        long pause = Long.parseLong(args[0]);
        ChatMemory memory = MessageWindowChatMemory.builder().build();
        ChatClient client = ChatClient.builder(new PrintingModel())
                .defaultAdvisors(MessageChatMemoryAdvisor.builder(memory).build()).build();
        turn(client, "my password is hunter2, please remember it");
        Thread.sleep(pause);
        turn(client, "what is the status of order 42?");
        for (Message m : memory.get("conv-1")) {
            Console.line("MEMORY: " + m.getMessageType() + " " + m.getText());
        }
    }

    private static void turn(ChatClient client, String text) {
        Console.line("TURN " + text);
        String answer = client.prompt().user(text).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "conv-1")).call().content();
        Console.line("ANSWER " + answer);
    }
}
