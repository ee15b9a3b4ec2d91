package bootbench;

import java.util.List;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;

/** A scripted model (no model can be reached from the bench): asks for search once, then answers with what it got. */
public class ScriptedModel implements ChatModel {

    @Override
    public ChatResponse call(Prompt prompt) {
        List<Message> messages = prompt.getInstructions();
        Message last = messages.get(messages.size() - 1);
        AssistantMessage out = last instanceof ToolResponseMessage results
                ? new AssistantMessage("found: " + results.getResponses().get(0).responseData())
                : AssistantMessage.builder().content("").toolCalls(List.of(
                        new AssistantMessage.ToolCall("call_1", "function", "search", "{\"query\":\"lamps\"}"))).build();
        return new ChatResponse(List.of(new Generation(out)));
    }

    /** Spring AI 2.0.1's ChatClient hands tool callbacks only to ToolCallingChatOptions (agent/README.md). */
    @Override
    public ChatOptions getOptions() {
        return ToolCallingChatOptions.builder().build();
    }
}
