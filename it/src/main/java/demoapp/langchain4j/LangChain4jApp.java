package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.agent.tool.ToolSpecification;
import dev.langchain4j.service.tool.ToolExecutor;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.data.message.UserMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.List;
import java.util.Map;

/**
 * A LangChain4j AI service with real {@code @Tool} methods and a scripted model that replays a
 * conversation: the model asks for one tool, then answers with what the tool returned.
 * Usage: {@code LangChain4jApp [--memory-id=ID] <email|lookup|ticket|lambda|parallel|chat|archive|archive-rethrow> [user message]}
 * ({@code archive}: a tool that throws; {@code archive-rethrow}: the same with an error handler that rethrows to the application;
 * {@code --memory-id}: the chat memory id, "alice" without it, so that runs in one JVM are conversations of their own).
 */
public final class LangChain4jApp {

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** The tools the model may call. */
    public static final class ShopTools {
        @Tool("Send an email")
        public String sendEmail(String to, String body) {
            Console.line("TOOL sendEmail ran to=" + to);
            return "email sent to " + to;
        }

        @Tool("Save an email as a draft")
        public String draftEmail(String to, String body) {
            Console.line("TOOL draftEmail ran to=" + to);
            return "draft saved for " + to;
        }

        @Tool("Look up a customer")
        public String lookupCustomer(String name) {
            Console.line("TOOL lookupCustomer ran name=" + name + " thread=" + Thread.currentThread().getName());
            return "{\"name\":\"" + name + "\",\"iban\":\"DE89370400440532013000\"}";
        }

        @Tool("Archive an email (the archive service is down: it always fails)")
        public String archiveEmail(String to) {
            Console.line("TOOL archiveEmail ran to=" + to);
            throw new IllegalStateException("the archive service is offline");
        }

        @Tool("Open a support ticket")
        public String createTicket(String title, String email) {
            Console.line("TOOL createTicket ran title=" + title + " email=" + email);
            return "ticket opened: " + title;
        }
    }

    /** Replays a fixed conversation: first a tool request, then an answer that quotes the tool result. */
    static final class ScriptedModel implements ChatModel {
        private final String scenario;

        ScriptedModel(String scenario) {
            this.scenario = scenario;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage) {
                StringBuilder seen = new StringBuilder();
                for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage; i--) {
                    ToolExecutionResultMessage result = (ToolExecutionResultMessage) messages.get(i);
                    Console.line("MODEL SAW TOOL RESULT " + result.toolName() + ": " + result.text());
                    seen.append(result.text());
                }
                return ChatResponse.builder().aiMessage(AiMessage.from("done: " + seen)).build();
            }
            Console.line("MODEL SAW USER: " + ((UserMessage) last).singleText());
            ToolExecutionRequest call;
            switch (scenario) {
                case "email":
                    call = request("sendEmail", "{\"to\":\"bob@example.com\",\"body\":\"the quarterly numbers\"}");
                    break;
                case "lookup":
                    call = request("lookupCustomer", "{\"name\":\"Alice\"}");
                    break;
                case "ticket":
                    call = request("createTicket", "{\"title\":\"printer broken\",\"email\":\"alice@example.com\"}");
                    break;
                case "lambda":
                    call = request("weather", "{\"city\":\"Oslo\"}");
                    break;
                case "archive":
                case "archive-rethrow":
                    call = request("archiveEmail", "{\"to\":\"bob@example.com\"}");
                    break;
                case "parallel":
                    return ChatResponse.builder().aiMessage(AiMessage.from(List.of(
                            request("sendEmail", "{\"to\":\"bob@example.com\",\"body\":\"hi\"}"),
                            request("lookupCustomer", "{\"name\":\"Alice\"}")))).build();
                case "chat":
                    return ChatResponse.builder().aiMessage(AiMessage.from("the secret code is 1234")).build();
                default:
                    throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(List.of(call))).build();
        }

        private static ToolExecutionRequest request(String name, String arguments) {
            return ToolExecutionRequest.builder().id("call-" + name).name(name).arguments(arguments).build();
        }
    }

    public static void main(String[] argv) {
        String user = "alice";
        String[] args = argv;
        if (args.length > 0 && args[0].startsWith("--memory-id=")) {
            user = args[0].substring("--memory-id=".length());
            args = java.util.Arrays.copyOfRange(args, 1, args.length);
        }
        String scenario = args.length > 0 ? args[0] : "email";
        String message = args.length > 1 ? args[1] : "please handle my request";
        // a tool given as a lambda executor (a hidden class: only the framework's dispatch can be woven)
        ToolExecutor weather = (request, memoryId) -> {
            Console.line("TOOL weather ran " + request.arguments());
            return "sunny in Oslo";
        };
        AiServices<Assistant> builder = AiServices.builder(Assistant.class)
                .chatModel(new ScriptedModel(scenario))
                .tools(new ShopTools())
                .tools(Map.of(ToolSpecification.builder().name("weather").description("the weather in a city").build(), weather))
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20));
        if (scenario.equals("parallel")) {
            builder.executeToolsConcurrently();
        }
        if (scenario.equals("archive-rethrow")) {
            // the application's own error handler: a failing tool ends the AI service call with the tool's exception
            builder.toolExecutionErrorHandler((error, context) -> {
                throw error instanceof RuntimeException ? (RuntimeException) error : new IllegalStateException(error);
            });
        }
        Assistant assistant = builder.build();
        try {
            Console.line("ANSWER: " + assistant.chat(user, message));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
        Console.line("JAVA " + Runtime.version().feature());
    }
}
