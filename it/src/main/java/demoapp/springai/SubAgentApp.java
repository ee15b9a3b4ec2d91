package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.tool.annotation.Tool;
import reactor.core.publisher.Flux;

import java.util.ArrayList;
import java.util.List;

/**
 * An "agent as a tool": conversation {@code trip} asks for {@code delegateCancellations}, whose body makes a
 * {@code ChatClient} request of its own (conversation {@code trip-sub}, blocking) that asks for {@code cancelBooking} of
 * bookings B1, B2 and B3 in one round, then answers; then the outer request answers. Each executed tool prints
 * {@code TOOL name ran ...}. Usage: {@code SubAgentApp [--stream] [--model-loop] [--tool-advisor] [--sub-stream] [--summarize]}:
 * {@code --stream} streams the outer request (its tools run on a Reactor worker), {@code --model-loop} makes the
 * model's {@code call(Prompt)} run the tools of its rounds itself (as Spring AI 1.x provider models do: the sub-agent then
 * runs inside the outer model call), {@code --tool-advisor} adds {@code ToolCallAdvisor} (Spring AI 1.1.x),
 * {@code --sub-stream} streams the sub-agent's request, {@code --summarize} makes the outer request ask for
 * {@code summarizeTrip} instead, whose body calls the model's {@code call(Prompt)} itself (no {@code ChatClient}; the
 * answer carries a card number, "CARD-4242"), {@code --summarize-streaming} the same with the body streaming the model
 * ({@code stream(Prompt)}). Compiled against 2.0.1 using only API that 1.1.2 has too.
 */
public final class SubAgentApp {

    static boolean toolAdvisor;
    static boolean modelLoop;
    static boolean subStream;
    static boolean summarize;
    static boolean summarizeStreaming;

    /** The tools of both agents. */
    public static final class TravelTools {
        @Tool(description = "Ask the cancellations agent to cancel the bookings")
        public String delegateCancellations(String bookings) {
            Console.line("TOOL delegateCancellations ran bookings=" + bookings);
            ChatClient.ChatClientRequestSpec sub = request("trip-sub", "cancel " + bookings);
            String answer = subStream ? String.join("", sub.stream().content().collectList().block()) : sub.call().content();
            Console.line("SUB-AGENT ANSWER: " + answer);
            return "the cancellations agent said: " + answer;
        }

        @Tool(description = "Summarize the trip with the model")
        public String summarizeTrip(String trip) {
            Console.line("TOOL summarizeTrip ran on " + Thread.currentThread().getName());
            // the application's model called by the tool itself (a summarizer), no ChatClient, no conversation id of its own
            Prompt prompt = new Prompt(new UserMessage("summarize " + trip));
            String summary = summarizeStreaming
                    ? String.join("", new ScriptedModel().stream(prompt).map(r -> r.getResult().getOutput().getText()).collectList().block())
                    : new ScriptedModel().call(prompt).getResult().getOutput().getText();
            Console.line("SUMMARY: " + summary);
            return summary;
        }

        @Tool(description = "Cancel a booking")
        public String cancelBooking(String booking) {
            Console.line("TOOL cancelBooking ran booking=" + booking);
            return "cancelled " + booking;
        }
    }

    /** Replays both conversations: a request for tools for the user message, then an answer quoting the results. */
    static final class ScriptedModel implements ChatModel {
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
            ChatResponse response = reply(prompt);
            while (modelLoop && response.hasToolCalls()) {
                // a provider model's own tool loop (internal tool execution)
                ToolExecutionResult result = ToolCallingManager.builder().build().executeToolCalls(prompt, response);
                prompt = new Prompt(result.conversationHistory(), prompt.getOptions());
                response = reply(prompt);
            }
            return response;
        }

        @Override
        public Flux<ChatResponse> stream(Prompt prompt) {
            return Flux.defer(() -> Flux.just(reply(prompt)));
        }

        private static ChatResponse reply(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            Message last = messages.get(messages.size() - 1);
            if (last instanceof ToolResponseMessage) {
                StringBuilder seen = new StringBuilder();
                for (ToolResponseMessage.ToolResponse response : ((ToolResponseMessage) last).getResponses()) {
                    seen.append(seen.length() == 0 ? "" : "; ").append(response.responseData());
                }
                return new ChatResponse(List.of(new Generation(new AssistantMessage("done: " + seen))));
            }
            String user = ((UserMessage) last).getText();
            if (user.startsWith("summarize ")) {
                return new ChatResponse(List.of(new Generation(new AssistantMessage("summary: 2 flights, paid with CARD-4242"))));
            }
            List<AssistantMessage.ToolCall> calls = new ArrayList<>();
            if (user.startsWith("cancel ")) {
                int n = 0;
                for (String booking : user.substring("cancel ".length()).split(",")) {
                    calls.add(new AssistantMessage.ToolCall("sub-" + (++n), "function", "cancelBooking", "{\"booking\":\"" + booking + "\"}"));
                }
            } else if (summarize) {
                calls.add(new AssistantMessage.ToolCall("outer-1", "function", "summarizeTrip", "{\"trip\":\"ZRH-LIS\"}"));
            } else {
                calls.add(new AssistantMessage.ToolCall("outer-1", "function", "delegateCancellations", "{\"bookings\":\"B1,B2,B3\"}"));
            }
            return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(calls).build())));
        }
    }

    static ChatClient.ChatClientRequestSpec request(String conversation, String message) {
        ChatClient.ChatClientRequestSpec request = ChatClient.builder(new ScriptedModel()).build().prompt().user(message)
                .tools(new TravelTools()).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversation));
        return toolAdvisor ? request.advisors(ToolCallAdvisor.builder().build()) : request;
    }

    public static void main(String[] args) {
        boolean stream = false;
        for (String arg : args) {
            switch (arg) {
                case "--stream" -> stream = true;
                case "--model-loop" -> modelLoop = true;
                case "--tool-advisor" -> toolAdvisor = true;
                case "--sub-stream" -> subStream = true;
                case "--summarize" -> summarize = true;
                case "--summarize-streaming" -> summarize = summarizeStreaming = true;
                default -> throw new IllegalArgumentException("unknown option " + arg);
            }
        }
        try {
            ChatClient.ChatClientRequestSpec request = request("trip", "please handle my trip");
            String answer = stream ? String.join("", request.stream().content().collectList().block()) : request.call().content();
            Console.line("ANSWER: " + answer);
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
