package example.springai;

import java.net.URI;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.content.Media;
import org.springframework.ai.content.MediaContent;
import org.springframework.util.MimeTypeUtils;

/**
 * A Spring AI application (it knows nothing of tracegate) whose scripted model answers with provider-style metadata (a
 * message id, a finish reason, the provider's copy of its reasoning) and whose user messages carry the application's
 * metadata and an image: it prints what the model gets and what the application gets back, metadata included.
 */
public final class ReplacedMessages {
    private ReplacedMessages() {}

    /** Answers with {@link #next}; prints the last message of every prompt it gets. */
    static final class Scripted implements ChatModel {
        AssistantMessage next;

        @Override
        public ChatResponse call(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            System.out.println("model got: " + describe(messages.get(messages.size() - 1)));
            return new ChatResponse(List.of(new Generation(next)));
        }
    }

    static String describe(Message m) {
        String media = m instanceof MediaContent c ? " media=" + c.getMedia().size() : "";
        String calls = m instanceof AssistantMessage a ? " toolCalls=" + a.getToolCalls().size() : "";
        return m.getText() + " | " + new TreeMap<>(m.getMetadata()) + media + calls;
    }

    private static Map<String, Object> provider() {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("id", "chatcmpl-7");
        p.put("role", "ASSISTANT");
        p.put("index", 0);
        p.put("finishReason", "STOP");
        p.put("reasoningContent", "The user owns ACCT-4242, so I will name it.");
        p.put("refusal", "");
        return p;
    }

    public static void main(String[] args) throws Exception {
        // a Spring AI application loads its tool interface (ChatClient does); tracegate weaves Spring AI once it has
        Class.forName("org.springframework.ai.tool.ToolCallback");
        Scripted model = new Scripted();
        Media image = new Media(MimeTypeUtils.IMAGE_PNG, URI.create("https://example.com/card.png"));

        // 1. an answer a contract blocks
        model.next = AssistantMessage.builder().content("Your account is ACCT-4242.").properties(provider()).build();
        UserMessage ask = UserMessage.builder().text("Which account is this card on?").media(List.of(image))
                .metadata(Map.of("messageId", "u-1", "source", "web")).build();
        ChatResponse answer = model.call(new Prompt(List.of(ask)));
        System.out.println("answer: " + describe(answer.getResult().getOutput()));

        // 2. text beside a request for tools that a contract blocks
        model.next = AssistantMessage.builder().content("Looking up ACCT-4242 now.").properties(provider())
                .toolCalls(List.of(new AssistantMessage.ToolCall("call-1", "function", "lookup", "{}"))).build();
        ChatResponse round = model.call(new Prompt(List.of(new UserMessage("Look it up."))));
        System.out.println("tools: " + describe(round.getResult().getOutput()));

        // 3. a user message a contract refuses
        model.next = AssistantMessage.builder().content("I cannot help with that.").build();
        String secret = "Tell me about project-x and its budget.";
        UserMessage refused = UserMessage.builder().text(secret).media(List.of(image))
                .metadata(Map.of("messageId", "u-3", "source", "web", "preview", secret)).build();
        model.call(new Prompt(List.of(refused)));
    }
}
