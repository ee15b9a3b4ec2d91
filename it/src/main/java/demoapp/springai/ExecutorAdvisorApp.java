package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
import org.springframework.ai.chat.client.advisor.api.CallAdvisor;
import org.springframework.ai.chat.client.advisor.api.CallAdvisorChain;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisor;
import org.springframework.ai.chat.client.advisor.api.StreamAdvisorChain;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.messages.AssistantMessage;
import org.springframework.ai.chat.messages.Message;
import org.springframework.ai.chat.messages.UserMessage;
import org.springframework.ai.chat.model.ChatModel;
import org.springframework.ai.chat.model.ChatResponse;
import org.springframework.ai.chat.model.Generation;
import org.springframework.ai.chat.prompt.ChatOptions;
import org.springframework.ai.chat.prompt.Prompt;
import org.springframework.ai.model.tool.ToolCallingChatOptions;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * An application's advisor that hands a model call of its own (a summary that names a card, "CARD-4242") to a thread
 * pool of its own during a {@code ChatClient} request, blocking and streamed. Each request has the conversation id of its
 * mode; the summarizer's prompt names the mode. Modes ({@code ExecutorAdvisorApp MODE...}; all six when none is given):
 * <ul>
 * <li>{@code call-future}, {@code stream-future}: {@code CompletableFuture.supplyAsync(() -> summarizer.call(prompt), pool)}
 * (joined in {@code adviseCall}; streamed: {@code Mono.fromFuture(...)} concatenated after the rest of the chain);</li>
 * <li>{@code call-scheduler}, {@code stream-scheduler}: {@code Mono.fromCallable(...).subscribeOn(Schedulers.fromExecutorService(pool))}
 * (blocked on in {@code adviseCall}; streamed: concatenated after the rest of the chain);</li>
 * <li>{@code call-prompt}, {@code stream-prompt}: as {@code -future}, the summarizer's {@code Prompt} naming the request's
 * conversation id in its {@code ToolContext}.</li>
 * </ul>
 * Prints the thread each summary ran on and each answer.
 */
public final class ExecutorAdvisorApp {

    /** Answers "summarize ..." with a summary that names a card, anything else with "fine". */
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
            List<Message> messages = prompt.getInstructions();
            String user = ((UserMessage) messages.get(messages.size() - 1)).getText();
            String answer = user.startsWith("summarize ") ? "summary: 2 flights, paid with CARD-4242" : "fine";
            return new ChatResponse(List.of(new Generation(new AssistantMessage(answer))));
        }

        @Override
        public Flux<ChatResponse> stream(Prompt prompt) {
            return Flux.defer(() -> Flux.just(call(prompt)));
        }
    }

    /** Hands the summary to the pool (or to a Reactor scheduler over it), as its mode says. */
    static final class PoolAdvisor implements CallAdvisor, StreamAdvisor {
        private final String mode;
        private final ExecutorService pool;
        private final Scheduler scheduler;
        private final ChatModel summarizer = new ScriptedModel();

        PoolAdvisor(String mode, ExecutorService pool) {
            this.mode = mode;
            this.pool = pool;
            this.scheduler = Schedulers.fromExecutorService(pool);
        }

        private String summarize(Object conversation) {
            UserMessage message = new UserMessage("summarize for " + mode);
            Prompt prompt = mode.endsWith("-prompt")
                    ? new Prompt(List.of(message), ToolCallingChatOptions.builder()
                            .toolContext(Map.of(ChatMemory.CONVERSATION_ID, conversation)).build())
                    : new Prompt(message);
            String text = summarizer.call(prompt).getResult().getOutput().getText();
            Console.line("SUMMARY " + mode + " on " + Thread.currentThread().getName() + ": " + text);
            return text;
        }

        private Mono<String> summary(Object conversation) {
            return mode.endsWith("-scheduler") ? Mono.fromCallable(() -> summarize(conversation)).subscribeOn(scheduler)
                    : Mono.fromFuture(() -> CompletableFuture.supplyAsync(() -> summarize(conversation), pool));
        }

        @Override
        public ChatClientResponse adviseCall(ChatClientRequest request, CallAdvisorChain chain) {
            Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
            if (mode.endsWith("-scheduler")) {
                summary(conversation).block();
            } else {
                CompletableFuture.supplyAsync(() -> summarize(conversation), pool).join();
            }
            return chain.nextCall(request);
        }

        @Override
        public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
            Object conversation = request.context().get(ChatMemory.CONVERSATION_ID);
            return chain.nextStream(request).concatWith(summary(conversation).thenMany(Flux.<ChatClientResponse>empty()));
        }

        @Override
        public String getName() {
            return "pool";
        }

        @Override
        public int getOrder() {
            return 0;
        }
    }

    public static void main(String[] args) {
        List<String> modes = args.length > 0 ? List.of(args)
                : List.of("call-future", "call-scheduler", "call-prompt", "stream-future", "stream-scheduler", "stream-prompt");
        ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "app-pool");
            t.setDaemon(true);
            return t;
        });
        for (String mode : modes) {
            try {
                ChatClient.ChatClientRequestSpec request = ChatClient.builder(new ScriptedModel()).build().prompt()
                        .user("plan my trip").advisors(new PoolAdvisor(mode, pool))
                        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, mode));
                String answer = mode.startsWith("stream-") ? String.join("", request.stream().content().collectList().block())
                        : request.call().content();
                Console.line("ANSWER " + mode + ": " + answer);
            } catch (RuntimeException e) {
                Console.exception(e);
            }
        }
        pool.shutdown();
        Console.line("DONE");
    }
}
