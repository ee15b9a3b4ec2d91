package demoquarkus;

import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.quarkiverse.langchain4j.RegisterAiService;
import io.smallrye.mutiny.Multi;

@jakarta.enterprise.context.ApplicationScoped
@RegisterAiService(streamingChatLanguageModelSupplier = ScriptedStreamingModel.Supplier.class,
        chatLanguageModelSupplier = ScriptedModel.Supplier.class)
public interface StreamAssistant {
    Multi<String> chat(@MemoryId String user, @UserMessage String message);
}
