package example.host;

import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

/** A LangChain4j AI service of the host application: one chat memory per conversation, the {@link AssistantTools}. */
public interface SupportAssistant {

    /** One turn of conversation {@code conversation}: the model may call tools before it answers. */
    String chat(@MemoryId String conversation, @UserMessage String message);

    /** The service over {@code model} and {@code tools}, keeping the last ten messages of each conversation. */
    static SupportAssistant create(dev.langchain4j.model.chat.ChatModel model, AssistantTools tools) {
        return AiServices.builder(SupportAssistant.class)
                .chatModel(model)
                .tools(tools)
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(10))
                .build();
    }
}
