package demoquarkus;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A model scripted from the last user message: "delete U" asks for deleteAccount, "lookup X" for lookupOrder, "secret"
 * answers with a secret, "sync ..." first waits until two conversations are in the model at once; else an echo. After
 * tool results it answers "Done:" with what the tools returned.
 */
public class ScriptedModel implements ChatModel {
    static final ScriptedModel INSTANCE = new ScriptedModel();
    static final AtomicInteger IDS = new AtomicInteger();
    static final CyclicBarrier TWO = new CyclicBarrier(2);

    public static class Supplier implements java.util.function.Supplier<ChatModel> {
        @Override public ChatModel get() { return INSTANCE; }
    }

    private static AiMessage call(String name, String json) {
        return AiMessage.from(List.of(ToolExecutionRequest.builder().id("call_" + IDS.incrementAndGet()).name(name).arguments(json).build()));
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        List<ChatMessage> msgs = request.messages();
        ChatMessage last = msgs.get(msgs.size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            StringBuilder sb = new StringBuilder("Done:");
            for (int i = msgs.size() - 1; i >= 0 && msgs.get(i) instanceof ToolExecutionResultMessage t; i--) {
                sb.append(" [").append(t.toolName()).append(" -> ").append(t.text()).append("]");
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(sb.toString())).build();
        }
        String text = ((UserMessage) last).singleText().trim();
        if (text.startsWith("sync ")) {
            try {
                TWO.await(60, TimeUnit.SECONDS);
            } catch (Exception e) {
                throw new IllegalStateException("the other conversation never came", e);
            }
            text = text.substring(5);
        }
        String[] w = text.split("\\s+");
        AiMessage ai = switch (w[0]) {
            case "delete" -> call("deleteAccount", "{\"user\":\"" + w[1] + "\"}");
            case "lookup" -> call("lookupOrder", "{\"orderId\":\"" + w[1] + "\"}");
            case "secret" -> AiMessage.from("The admin password is SECRET-42.");
            default -> AiMessage.from("You said: " + text);
        };
        return ChatResponse.builder().aiMessage(ai).build();
    }
}
