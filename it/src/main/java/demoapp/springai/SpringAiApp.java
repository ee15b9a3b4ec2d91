package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.ToolCallAdvisor;
import org.springframework.ai.chat.client.advisor.MessageChatMemoryAdvisor;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.memory.MessageWindowChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.ToolResponseMessage;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.metadata.ChatGenerationMetadata;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import org.springframework.ai.model.tool.ToolCallingManager;
import org.springframework.ai.model.tool.ToolExecutionResult;
import org.springframework.ai.model.tool.internal.ToolCallReactiveContextHolder;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.annotation.Tool;

import reactor.core.publisher.Flux;
import reactor.core.scheduler.Schedulers;

import java.util.ArrayList;
import java.util.List;

/**
 * A Spring AI ChatClient with real {@code @Tool} methods and a scripted model that replays a
 * conversation (a tool request, then an answer quoting the tool result); conversation id "conv-42".
 * Usage: {@code SpringAiApp [--stream] [--chunks] [--think-aloud] [--text-beside-tools] [--memory] [--own-loop] [--generations] [--parallel] [--direct] [--stream-in-advisor] [--tool-advisor] [--provider-loop] [--tool-context] [--conversation=ID] <email|lookup|ticket|archive|chat|show> [user message]}:
 * {@code --stream} uses {@code ChatClient...stream()} (Spring AI runs the tools on a Reactor worker thread) and prints each
 * chunk as it arrives, {@code --chunks} makes the model stream text replies word by word ({@code chat}: "the secret code is 1234"),
 * {@code --tool-advisor} adds {@code ToolCallAdvisor} (Spring AI 1.1.x; 2.0.x adds it by itself), {@code --provider-loop}
 * makes the model's stream() run the tool loop itself as 1.1.x provider models do (for streaming on 1.1.x),
 * {@code --parallel} streams two conversations at once (conv-A: email, conv-B: lookup), {@code --direct} calls the model's
 * {@code stream(Prompt)} itself, without a {@code ChatClient} (no conversation id, no tools: use it with {@code chat}),
 * {@code --stream-in-advisor} makes a blocking {@code ChatClient} call whose own advisor answers by streaming the model itself,
 * {@code --think-aloud} makes a streamed round that asks for a tool first stream text ("let me check the secret records "),
 * {@code --tool-context} names the conversation in the request's {@code ToolContext} instead of the advisor parameter;
 * {@code --text-beside-tools} makes the model's {@code call(Prompt)} answer a round that asks for a tool with text beside the
 * request in the same message ("let me check the secret records of" an IBAN, as providers do when the model thinks aloud),
 * {@code --memory} adds a {@code MessageChatMemoryAdvisor} (inside the tool loop, as its default order puts it) and prints
 * what the chat memory kept ({@code MEMORY: TYPE text [tools]}), {@code --own-loop} runs the tool loop in the application
 * (user-controlled tool execution: the model's {@code call(Prompt)} called directly, each round's text printed as
 * {@code SHOWN: text}, the requested tools run through {@code ToolCallingManager}; implies {@code --text-beside-tools};
 * prints each generation of the answer as {@code GENERATION: text [finish=REASON]}), {@code --generations} makes the
 * model's {@code call(Prompt)} answer a round that asks for no tools with two generations, a reasoning one first
 * ("thinking: the user wants the code", finish reason REASONING) and then the answer (finish reason STOP), as providers
 * that return their reasoning (or n > 1 choices) do;
 * {@code show} calls {@code showAccount}, a {@code returnDirect} tool whose result Spring AI hands back as the answer.
 * Compiled against 2.0.1 using only API that 1.1.2 has too, so the same classes run on either line.
 */
public final class SpringAiApp {

    /** The tools the model may call. */
    public static final class OfficeTools {
        /** Which thread ran the tool (the caller's for call(), a Reactor worker for stream()). */
        private static void thread(String tool) {
            Console.line("TOOL THREAD " + tool + " " + Thread.currentThread().getName());
        }

        @Tool(description = "Send an email")
        public String sendEmail(String to, String body) {
            thread("sendEmail");
            Console.line("TOOL sendEmail ran to=" + to);
            return "email sent to " + to;
        }

        @Tool(description = "Save an email as a draft")
        public String draftEmail(String to, String body) {
            thread("draftEmail");
            Console.line("TOOL draftEmail ran to=" + to);
            return "draft saved for " + to;
        }

        @Tool(description = "Archive an email (the archive service is down: it always fails)")
        public String archiveEmail(String to, String body) {
            thread("archiveEmail");
            Console.line("TOOL archiveEmail ran to=" + to);
            throw new IllegalStateException("the archive service is offline");
        }

        @Tool(description = "Look up a customer")
        public String lookupCustomer(String name) {
            thread("lookupCustomer");
            Console.line("TOOL lookupCustomer ran name=" + name);
            return "{\"name\":\"" + name + "\",\"iban\":\"DE89370400440532013000\"}";
        }

        @Tool(description = "Show an account to the user as it is", returnDirect = true)
        public String showAccount(String id) {
            thread("showAccount");
            Console.line("TOOL showAccount ran id=" + id);
            return "Account " + id + ": IBAN DE89370400440532013000, the secret is 42";
        }

        @Tool(description = "Open a support ticket")
        public String createTicket(String title, String email) {
            thread("createTicket");
            Console.line("TOOL createTicket ran title=" + title + " email=" + email);
            return "ticket opened: " + title;
        }
    }

    /** Replays a fixed conversation. */
    static final class ScriptedModel implements ChatModel {
        private final String scenario;
        /** Run the tool loop inside stream(), as Spring AI 1.1.x provider models do (1.1's ToolCallAdvisor does not stream). */
        private final boolean providerLoop;
        /** Stream a text reply word by word (else each reply is one chunk). */
        private final boolean chunks;
        /** stream() runs this model's own call() when subscribed, on a worker (an adapter streaming over a blocking model). */
        private final boolean deferredCall;
        /** A streamed round that asks for tools streams some text first, as providers do when the model thinks aloud. */
        boolean thinkAloud;
        /** call() answers a round that asks for tools with text beside the request, in the same message. */
        boolean textBesideTools;
        /** call() answers a round that asks for no tools with a reasoning generation before the answer's. */
        boolean generations;

        ScriptedModel(String scenario, boolean providerLoop, boolean chunks) {
            this(scenario, providerLoop, chunks, false);
        }

        ScriptedModel(String scenario, boolean providerLoop, boolean chunks, boolean deferredCall) {
            this.scenario = scenario;
            this.providerLoop = providerLoop;
            this.chunks = chunks;
            this.deferredCall = deferredCall;
        }

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
            if (textBesideTools && response.hasToolCalls()) {
                AssistantMessage request = response.getResult().getOutput();
                return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("let me check the secret records of DE89370400440532013000")
                        .toolCalls(request.getToolCalls()).build())));
            }
            if (generations && !response.hasToolCalls()) {
                return new ChatResponse(List.of(
                        new Generation(new AssistantMessage("thinking: the user wants the code"),
                                ChatGenerationMetadata.builder().finishReason("REASONING").build()),
                        new Generation(response.getResult().getOutput(), ChatGenerationMetadata.builder().finishReason("STOP").build())),
                        response.getMetadata());
            }
            return response;
        }

        /** Streams the same replies, each as one chunk (as a provider would, without going through call()). */
        @Override
        public Flux<ChatResponse> stream(Prompt prompt) {
            if (deferredCall) {
                return Flux.defer(() -> {
                    Console.line("MODEL CALL ON " + Thread.currentThread().getName());
                    return chunked(call(prompt));
                }).subscribeOn(Schedulers.boundedElastic());
            }
            return internalStream(prompt);
        }

        /** The stream of one round; the provider loop recurses here, not through stream(), as 1.1.x provider models do. */
        private Flux<ChatResponse> internalStream(Prompt prompt) {
            if (!providerLoop) {
                return Flux.defer(() -> chunked(reply(prompt)));
            }
            // what a 1.1.x provider model does: run the tools on a worker with the subscriber's Reactor context in the holder
            return Flux.defer(() -> {
                ChatResponse response = reply(prompt);
                if (!response.hasToolCalls()) {
                    return Flux.just(response);
                }
                return Flux.deferContextual(context -> {
                    ToolExecutionResult result;
                    ToolCallReactiveContextHolder.setContext(context);
                    try {
                        result = ToolCallingManager.builder().build().executeToolCalls(prompt, response);
                    } finally {
                        ToolCallReactiveContextHolder.clearContext();
                    }
                    return internalStream(new Prompt(result.conversationHistory(), prompt.getOptions()));
                }).subscribeOn(Schedulers.boundedElastic());
            });
        }

        /** A text reply as word chunks (with --chunks), as providers stream tokens; tool requests stay one chunk. */
        private Flux<ChatResponse> chunked(ChatResponse response) {
            String text = response.getResult().getOutput().getText();
            if (thinkAloud && response.hasToolCalls()) {
                return Flux.just(new ChatResponse(List.of(new Generation(new AssistantMessage("let me check ")))),
                        new ChatResponse(List.of(new Generation(new AssistantMessage("the secret records ")))), response);
            }
            if (!chunks || response.hasToolCalls() || text == null || text.isEmpty()) {
                return Flux.just(response);
            }
            List<ChatResponse> parts = new ArrayList<>();
            for (String word : text.split("(?<= )")) {
                parts.add(new ChatResponse(List.of(new Generation(new AssistantMessage(word)))));
            }
            return Flux.fromIterable(parts);
        }

        private ChatResponse reply(Prompt prompt) {
            List<Message> messages = prompt.getInstructions();
            Message last = messages.get(messages.size() - 1);
            if (last instanceof ToolResponseMessage) {
                Message before = messages.size() > 1 ? messages.get(messages.size() - 2) : null;
                if (before instanceof AssistantMessage && before.getText() != null && !before.getText().isEmpty()) {
                    Console.line("MODEL SAW ITS TEXT: " + before.getText());   // what the round that asked for the tools said
                }
                StringBuilder seen = new StringBuilder();
                for (ToolResponseMessage.ToolResponse response : ((ToolResponseMessage) last).getResponses()) {
                    Console.line("MODEL SAW TOOL RESULT " + response.name() + ": " + response.responseData());
                    seen.append(response.responseData());
                }
                return new ChatResponse(List.of(new Generation(new AssistantMessage("done: " + seen))));
            }
            Console.line("MODEL SAW USER: " + ((UserMessage) last).getText());
            if (scenario.equals("chat")) {
                return new ChatResponse(List.of(new Generation(new AssistantMessage("the secret code is 1234"))));
            }
            AssistantMessage.ToolCall call;
            switch (scenario) {
                case "email":
                    call = new AssistantMessage.ToolCall("call-1", "function", "sendEmail", "{\"to\":\"bob@example.com\",\"body\":\"the quarterly numbers\"}");
                    break;
                case "lookup":
                    call = new AssistantMessage.ToolCall("call-1", "function", "lookupCustomer", "{\"name\":\"Alice\"}");
                    break;
                case "ticket":
                    call = new AssistantMessage.ToolCall("call-1", "function", "createTicket", "{\"title\":\"printer broken\",\"email\":\"alice@example.com\"}");
                    break;
                case "show":
                    call = new AssistantMessage.ToolCall("call-1", "function", "showAccount", "{\"id\":\"A1\"}");
                    break;
                case "archive":
                    call = new AssistantMessage.ToolCall("call-1", "function", "archiveEmail", "{\"to\":\"bob@example.com\",\"body\":\"old mail\"}");
                    break;
                default:
                    throw new IllegalArgumentException("unknown scenario " + scenario);
            }
            return new ChatResponse(List.of(new Generation(AssistantMessage.builder().content("").toolCalls(List.of(call)).build())));
        }
    }

    /**
     * An application's advisor that answers by calling the model's {@code stream(Prompt)} itself (printing the chunks as
     * they come) and joining them, instead of passing the request on down the chain.
     */
    static final class StreamingAnswerAdvisor implements CallAdvisor {
        private final ChatModel model;

        StreamingAnswerAdvisor(ChatModel model) {
            this.model = model;
        }

        @Override
        public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
            List<String> received = model.stream(request.prompt()).map(SpringAiApp::text)
                    .doOnNext(chunk -> Console.line("CHUNK: " + chunk)).collectList().block();
            String answer = received == null ? "" : String.join("", received);
            return ChatClientResponse.builder()
                    .chatResponse(new ChatResponse(List.of(new Generation(new AssistantMessage(answer)))))
                    .context(request.context())
                    .build();
        }

        @Override
        public String getName() {
            return "streaming-answer";
        }

        @Override
        public int getOrder() {
            return 0;
        }
    }

    /** One conversation's request: the scripted model for this scenario, the tools, the conversation id. */
    private static ChatClient.ChatClientRequestSpec request(String scenario, boolean providerLoop, boolean toolAdvisor,
                                                            String conversation, String message) {
        return request(scenario, providerLoop, toolAdvisor, false, conversation, message);
    }

    private static ChatClient.ChatClientRequestSpec request(String scenario, boolean providerLoop, boolean toolAdvisor, boolean chunks,
                                                            String conversation, String message) {
        return request(scenario, providerLoop, toolAdvisor, chunks, false, conversation, message);
    }

    private static ChatClient.ChatClientRequestSpec request(String scenario, boolean providerLoop, boolean toolAdvisor, boolean chunks,
                                                            boolean deferredCall, String conversation, String message) {
        return request(scenario, providerLoop, toolAdvisor, chunks, deferredCall, false, false, conversation, message);
    }

    private static ChatClient.ChatClientRequestSpec request(String scenario, boolean providerLoop, boolean toolAdvisor, boolean chunks,
                                                            boolean deferredCall, boolean thinkAloud, boolean toolContext,
                                                            String conversation, String message) {
        return request(scenario, providerLoop, toolAdvisor, chunks, deferredCall, thinkAloud, false, null, toolContext, conversation, message);
    }

    private static ChatClient.ChatClientRequestSpec request(String scenario, boolean providerLoop, boolean toolAdvisor, boolean chunks,
                                                            boolean deferredCall, boolean thinkAloud, boolean textBesideTools,
                                                            ChatMemory memory, boolean toolContext, String conversation, String message) {
        ScriptedModel model = new ScriptedModel(scenario, providerLoop, chunks, deferredCall);
        model.thinkAloud = thinkAloud;
        model.textBesideTools = textBesideTools;
        ChatClient client = ChatClient.builder(model).build();
        ChatClient.ChatClientRequestSpec request = client.prompt().user(message).tools(new OfficeTools());
        if (memory != null) {
            request = request.advisors(MessageChatMemoryAdvisor.builder(memory).build());
        }
        // the conversation id the documented ways: the advisor parameter, or the ToolContext
        request = toolContext ? request.toolContext(java.util.Map.of(ChatMemory.CONVERSATION_ID, conversation))
                : request.advisors(a -> a.param(ChatMemory.CONVERSATION_ID, conversation));
        return toolAdvisor ? request.advisors(ToolCallAdvisor.builder().build()) : request;
    }

    /**
     * User-controlled tool execution: the application calls the model itself with internal tool execution off, shows
     * each round's text, runs the tools the round asks for and sends their results back, until an answer asks for none.
     */
    private static String ownLoop(String scenario, String message, boolean generations) {
        ScriptedModel model = new ScriptedModel(scenario, false, false);
        model.textBesideTools = true;
        model.generations = generations;
        // (the scripted model never runs tools itself: no internal tool execution to turn off, which 2.0.x no longer has)
        ToolCallingChatOptions options = ToolCallingChatOptions.builder().toolCallbacks(ToolCallbacks.from(new OfficeTools())).build();
        ToolCallingManager tools = ToolCallingManager.builder().build();
        Prompt prompt = new Prompt(List.<Message>of(new UserMessage(message)), options);
        ChatResponse response = model.call(prompt);
        while (response.hasToolCalls()) {
            for (Generation generation : response.getResults()) {
                AssistantMessage output = generation.getOutput();
                Console.line("SHOWN: " + output.getText() + " [tools=" + output.getToolCalls().size() + "]");
            }
            ToolExecutionResult result = tools.executeToolCalls(prompt, response);
            prompt = new Prompt(result.conversationHistory(), options);
            response = model.call(prompt);
        }
        // the answer as an application that reads every generation shows it
        for (Generation generation : response.getResults()) {
            Console.line("GENERATION: " + generation.getOutput().getText() + " [finish=" + generation.getMetadata().getFinishReason() + "]");
        }
        return text(response);
    }

    /** The text a streamed chunk carries ("" for none). */
    private static String text(ChatResponse chunk) {
        String text = chunk.getResult() == null || chunk.getResult().getOutput() == null ? null : chunk.getResult().getOutput().getText();
        return text == null ? "" : text;
    }

    public static void main(String[] args) {
        boolean stream = false;
        boolean toolAdvisor = false;
        boolean providerLoop = false;
        boolean parallel = false;
        boolean chunks = false;
        boolean direct = false;
        boolean streamInAdvisor = false;
        boolean deferredCall = false;
        boolean thinkAloud = false;
        boolean toolContext = false;
        boolean textBesideTools = false;
        boolean memory = false;
        boolean ownLoop = false;
        boolean generations = false;
        String conversation = "conv-42";
        List<String> positional = new ArrayList<>();
        for (String arg : args) {
            if (arg.equals("--stream")) {
                stream = true;
            } else if (arg.equals("--tool-advisor")) {
                toolAdvisor = true;
            } else if (arg.equals("--provider-loop")) {
                providerLoop = true;
            } else if (arg.equals("--parallel")) {
                parallel = true;
            } else if (arg.equals("--chunks")) {
                chunks = true;
            } else if (arg.equals("--direct")) {
                direct = true;
            } else if (arg.equals("--stream-in-advisor")) {
                streamInAdvisor = true;
            } else if (arg.equals("--deferred-call")) {
                deferredCall = true;
            } else if (arg.equals("--think-aloud")) {
                thinkAloud = true;
            } else if (arg.equals("--tool-context")) {
                toolContext = true;
            } else if (arg.equals("--text-beside-tools")) {
                textBesideTools = true;
            } else if (arg.equals("--memory")) {
                memory = true;
            } else if (arg.equals("--own-loop")) {
                ownLoop = true;
            } else if (arg.equals("--generations")) {
                generations = true;
            } else if (arg.startsWith("--conversation=")) {
                conversation = arg.substring("--conversation=".length());
            } else {
                positional.add(arg);
            }
        }
        String scenario = positional.size() > 0 ? positional.get(0) : "email";
        String message = positional.size() > 1 ? positional.get(1) : "please handle my request";
        Console.line("SPRING AI " + ChatClient.class.getProtectionDomain().getCodeSource().getLocation());
        try {
            if (parallel) {
                // two streamed conversations at once: conv-A sends an email, conv-B looks up a customer
                Flux<String> a = request("email", providerLoop, toolAdvisor, "conv-A", message).stream().content()
                        .map(chunk -> "conv-A " + chunk).subscribeOn(Schedulers.parallel());
                Flux<String> b = request("lookup", providerLoop, toolAdvisor, "conv-B", message).stream().content()
                        .map(chunk -> "conv-B " + chunk).subscribeOn(Schedulers.parallel());
                List<String> answers = Flux.merge(a, b).collectList().block();
                for (String answer : answers == null ? List.<String>of() : answers) {
                    Console.line("ANSWER: " + answer);
                }
                return;
            }
            if (direct) {
                // the model's own stream, as an application without a ChatClient uses it
                ChatModel model = new ScriptedModel(scenario, providerLoop, chunks);
                List<String> received = model.stream(new Prompt(List.<Message>of(new UserMessage(message))))
                        .map(SpringAiApp::text).doOnNext(chunk -> Console.line("CHUNK: " + chunk)).collectList().block();
                Console.line("ANSWER: " + (received == null ? null : String.join("", received)));
                return;
            }
            if (streamInAdvisor) {
                ChatModel model = new ScriptedModel(scenario, false, chunks);
                String id = conversation;
                String answer = ChatClient.builder(model).build().prompt().user(message)
                        .advisors(new StreamingAnswerAdvisor(model))
                        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, id))
                        .call().content();
                Console.line("ANSWER: " + answer);
                return;
            }
            if (ownLoop) {
                Console.line("ANSWER: " + ownLoop(scenario, message, generations));
                return;
            }
            ChatMemory chatMemory = memory ? MessageWindowChatMemory.builder().build() : null;
            ChatClient.ChatClientRequestSpec request = request(scenario, providerLoop, toolAdvisor, chunks, deferredCall, thinkAloud,
                    textBesideTools, chatMemory, toolContext, conversation, message);
            String answer;
            try {
                if (stream) {
                    List<String> received = request.stream().content().doOnNext(chunk -> Console.line("CHUNK: " + chunk)).collectList().block();
                    answer = received == null ? null : String.join("", received);
                } else {
                    answer = request.call().content();
                }
            } finally {
                if (chatMemory != null) {
                    for (Message kept : chatMemory.get(conversation)) {
                        String tools = kept instanceof AssistantMessage && ((AssistantMessage) kept).hasToolCalls()
                                ? " [tools=" + ((AssistantMessage) kept).getToolCalls().size() + "]" : "";
                        Console.line("MEMORY: " + kept.getMessageType() + " " + kept.getText() + tools);
                    }
                }
            }
            Console.line("ANSWER: " + answer);
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
