package demoquarkus;

import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.StreamingChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.model.chat.response.StreamingChatResponseHandler;
import java.util.List;

/** Streams the scripted answer word by word from a thread of its own ("secret" -> an answer with a secret). */
public class ScriptedStreamingModel implements StreamingChatModel {
    static final ScriptedStreamingModel INSTANCE = new ScriptedStreamingModel();

    public static class Supplier implements java.util.function.Supplier<StreamingChatModel> {
        @Override public StreamingChatModel get() { return INSTANCE; }
    }

    @Override
    public void doChat(ChatRequest request, StreamingChatResponseHandler handler) {
        List<ChatMessage> msgs = request.messages();
        String text = ((UserMessage) msgs.get(msgs.size() - 1)).singleText().trim();
        String answer = text.startsWith("secret") ? "The admin password is SECRET-42." : "You said: " + text;
        Thread t = new Thread(() -> {
            for (String part : answer.split("(?<= )")) {
                handler.onPartialResponse(part);
            }
            handler.onCompleteResponse(ChatResponse.builder().aiMessage(AiMessage.from(answer)).build());
        }, "scripted-stream");
        t.start();
    }
}
