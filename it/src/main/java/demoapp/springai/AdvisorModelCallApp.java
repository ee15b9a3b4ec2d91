package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.client.ChatClient;
import org.springframework.ai.chat.client.ChatClientRequest;
import org.springframework.ai.chat.client.ChatClientResponse;
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
import reactor.core.scheduler.Schedulers;

import java.util.List;

/**
 * trial28 repro 02 case B: a streamed {@code ChatClient} request (conversation {@code trip}) whose advisor, application
 * code, returns a {@code Flux} that calls another model itself on a Reactor worker of its own:
 * {@code Mono.fromCallable(() -> summarizer.call(prompt)).subscribeOn(Schedulers.boundedElastic())}, concatenated into
 * the returned {@code Flux} after the rest of the chain ({@code after}) or before it ({@code before}). The summarizer's
 * answer carries a card number ("CARD-4242"). Usage: {@code AdvisorModelCallApp after|before [model-thread]}: with
 * {@code model-thread} the main model streams its answer from a thread of its own (as an HTTP client's event loop does),
 * not from a Reactor worker; with {@code fail-first} a request of conversation {@code failed} whose model's stream fails
 * at once comes first. Prints the summary the advisor got and the answer. Then, outside any request, it calls the
 * summarizer on the main thread ("summarize later on main") and on a Reactor worker ("summarize later on a worker").
 */
public final class AdvisorModelCallApp {

    /** Answers "summarize ..." with a summary that names a card, anything else with "fine". */
    static final class ScriptedModel implements ChatModel {
        private final boolean ownThread;
        /** Its stream fails at once (a request refused while its Flux is subscribed). */
        boolean failing;

        ScriptedModel(boolean ownThread) {
            this.ownThread = ownThread;
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
            List<Message> messages = prompt.getInstructions();
            String user = ((UserMessage) messages.get(messages.size() - 1)).getText();
            String answer = user.startsWith("summarize ") ? "summary: 2 flights, paid with CARD-4242" : "fine";
            return new ChatResponse(List.of(new Generation(new AssistantMessage(answer))));
        }

        @Override
        public Flux<ChatResponse> stream(Prompt prompt) {
            if (failing) {
                return Flux.error(new IllegalStateException("the model is down"));
            }
            if (!ownThread) {
                return Flux.defer(() -> Flux.just(call(prompt)));
            }
            // the chunks arrive on a thread Reactor did not schedule (an HTTP client's event loop)
            return Flux.create(sink -> {
                Thread t = new Thread(() -> {
                    sink.next(call(prompt));
                    sink.complete();
                }, "model-io");
                t.start();
            });
        }
    }

    /** The application's advisor: the request's stream, and a summary made by another model on a worker of its own. */
    static final class SummaryAdvisor implements StreamAdvisor {
        private final boolean before;
        private final ChatModel summarizer = new ScriptedModel(false);

        SummaryAdvisor(boolean before) {
            this.before = before;
        }

        @Override
        public Flux<ChatClientResponse> adviseStream(ChatClientRequest request, StreamAdvisorChain chain) {
            Flux<ChatClientResponse> summary = Mono.fromCallable(() -> {
                String text = summarizer.call(new Prompt(new UserMessage("summarize ZRH-LIS"))).getResult().getOutput().getText();
                Console.line("SUMMARY on " + Thread.currentThread().getName() + ": " + text);
                return text;
            }).subscribeOn(Schedulers.boundedElastic()).thenMany(Flux.<ChatClientResponse>empty());
            return before ? Flux.concat(summary, chain.nextStream(request)) : chain.nextStream(request).concatWith(summary);
        }

        @Override
        public String getName() {
            return "summary";
        }

        @Override
        public int getOrder() {
            return 0;
        }
    }

    public static void main(String[] args) {
        boolean before = args[0].equals("before");
        boolean modelThread = args.length > 1 && args[1].equals("model-thread");
        if (args.length > 1 && args[1].equals("fail-first")) {
            // a streamed request of conversation "failed" whose model fails while the request's Flux is subscribed
            ScriptedModel failing = new ScriptedModel(false);
            failing.failing = true;
            try {
                ChatClient.builder(failing).build().prompt().user("plan my trip").advisors(new SummaryAdvisor(before))
                        .advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "failed")).stream().content().collectList().block();
            } catch (RuntimeException e) {
                Console.line("FAILED: " + e.getMessage());
            }
        }
        try {
            String answer = String.join("", ChatClient.builder(new ScriptedModel(modelThread)).build().prompt().user("plan my trip")
                    .advisors(new SummaryAdvisor(before)).advisors(a -> a.param(ChatMemory.CONVERSATION_ID, "trip"))
                    .stream().content().collectList().block());
            Console.line("ANSWER: " + answer);
            ChatModel summarizer = new ScriptedModel(false);
            summarizer.call(new Prompt(new UserMessage("summarize later on main")));
            Mono.fromCallable(() -> summarizer.call(new Prompt(new UserMessage("summarize later on a worker"))))
                    .subscribeOn(Schedulers.boundedElastic()).block();
        } catch (RuntimeException e) {
            Console.exception(e);
        }
        Console.line("DONE");
    }
}
