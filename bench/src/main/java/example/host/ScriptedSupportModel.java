package example.host;

import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.List;

/**
 * A chat model that needs no network: for a user message that starts with {@link #SEARCH_FOR} it
 * requests one {@code searchKb} call for the rest of the message, for one that asks for a refund one
 * {@code refund} call, for any other one {@code searchKb} call of a fixed query; once it sees the
 * tool's result it answers {@code "done: <result>"}. So one AI service invocation is two model calls and one tool call,
 * and the answer shows what the tool call returned.
 */
public final class ScriptedSupportModel implements ChatModel {
    /** Prefix of every final answer. */
    public static final String DONE = "done: ";
    /** A user message that starts with this asks for a search of the rest of the message, a query that can vary. */
    public static final String SEARCH_FOR = "Search the knowledge base for: ";

    private final ChatResponse search = ask("searchKb", "{\"query\":\"refund policy for damaged items\",\"limit\":5,\"lang\":\"en\"}");
    private final ChatResponse refund = ask("refund", "{\"orderId\":\"A-1234\",\"amount\":20.0}");

    private static ChatResponse ask(String tool, String arguments) {
        ToolExecutionRequest call = ToolExecutionRequest.builder().id("call-" + tool).name(tool).arguments(arguments).build();
        return ChatResponse.builder().aiMessage(AiMessage.from(List.of(call))).build();
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        List<ChatMessage> messages = request.messages();
        ChatMessage last = messages.get(messages.size() - 1);
        if (last instanceof ToolExecutionResultMessage) {
            return ChatResponse.builder().aiMessage(AiMessage.from(DONE + ((ToolExecutionResultMessage) last).text())).build();
        }
        if (last instanceof UserMessage && ((UserMessage) last).singleText().startsWith(SEARCH_FOR)) {
            String query = ((UserMessage) last).singleText().substring(SEARCH_FOR.length()).replace("\\", "\\\\").replace("\"", "\\\"");
            return ask("searchKb", "{\"query\":\"" + query + "\",\"limit\":5,\"lang\":\"en\"}");
        }
        if (last instanceof UserMessage && ((UserMessage) last).singleText().contains("refund")) {
            return refund;
        }
        return search;
    }
}
