package demoquarkus;

import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;
import io.quarkiverse.langchain4j.RegisterAiService;

@jakarta.enterprise.context.ApplicationScoped
@RegisterAiService(tools = ShopTools.class, chatLanguageModelSupplier = ScriptedModel.Supplier.class)
public interface Assistant {
    String chat(@MemoryId String user, @UserMessage String message);
}
