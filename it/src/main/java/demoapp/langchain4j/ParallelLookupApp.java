package demoapp.langchain4j;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

/**
 * A LangChain4j AI service that runs a model message's tool calls concurrently, with a scripted model whose tool requests
 * carry no id (as some providers give none): first {@code lookupOrder} of each order named on the command line, in one
 * message, then {@code refund} of each, then an answer. The executor starts the second look-up once the first is running,
 * and each look-up waits until the other has started, so both calls are under way before either ends. An order whose id
 * starts with {@code BAD} does not exist (the tool throws: LangChain4j hands the model an error result).
 * Usage: {@code ParallelLookupApp <conversation> <order> <order>}.
 */
public final class ParallelLookupApp {

    interface Assistant {
        String chat(@MemoryId String conversation, @dev.langchain4j.service.UserMessage String message);
    }

    /** The tools. */
    public static final class OrderTools {
        private final CountDownLatch bothStarted = new CountDownLatch(2);
        /** Counted down by the first look-up that starts: the executor starts the second only then. */
        final CountDownLatch oneStarted = new CountDownLatch(1);

        @Tool("Look up an order")
        public String lookupOrder(String orderId) {
            Console.line("TOOL lookupOrder started orderId=" + orderId);
            oneStarted.countDown();
            bothStarted.countDown();
            try {
                if (!bothStarted.await(60, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("the other look-up never started");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (orderId.startsWith("BAD")) {
                Console.line("LOOKUP " + orderId + " FAILED: no order " + orderId);
                throw new IllegalArgumentException("no order " + orderId);
            }
            return "order " + orderId + ": 1 kettle, 40 EUR";
        }

        @Tool("Refund an order")
        public String refund(String orderId) {
            Console.line("TOOL refund ran orderId=" + orderId);
            return "refunded " + orderId;
        }
    }

    /** One thread per task; the second task of the run only once a look-up has started (so the look-ups start in order). */
    static final class InOrder implements Executor {
        private final CountDownLatch started;
        private int submitted;

        InOrder(CountDownLatch started) {
            this.started = started;
        }

        @Override
        public synchronized void execute(Runnable task) {
            if (++submitted == 2) {
                try {
                    if (!started.await(60, TimeUnit.SECONDS)) {
                        throw new IllegalStateException("the first look-up never started");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Thread t = new Thread(task, "tool-" + submitted);
            t.setDaemon(true);
            t.start();
        }
    }

    /** Asks for the look-ups, then the refunds, then answers with the results it saw; no request carries an id. */
    static final class ScriptedModel implements ChatModel {
        private final String[] orders;

        ScriptedModel(String[] orders) {
            this.orders = orders;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            String tool = "lookupOrder";
            if (last instanceof ToolExecutionResultMessage) {
                StringBuilder seen = new StringBuilder();
                for (int i = messages.size() - 1; i >= 0 && messages.get(i) instanceof ToolExecutionResultMessage; i--) {
                    ToolExecutionResultMessage result = (ToolExecutionResultMessage) messages.get(i);
                    Console.line("MODEL SAW " + result.toolName() + ": " + result.text());
                    seen.append(result.text()).append(' ');
                }
                if (((ToolExecutionResultMessage) last).toolName().equals("refund")) {
                    return ChatResponse.builder().aiMessage(AiMessage.from("done: " + seen)).build();
                }
                tool = "refund";
            }
            List<ToolExecutionRequest> calls = new ArrayList<>();
            for (String order : orders) {
                calls.add(ToolExecutionRequest.builder().name(tool).arguments("{\"orderId\":\"" + order + "\"}").build());
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(calls)).build();
        }
    }

    public static void main(String[] args) {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: ParallelLookupApp <conversation> <order> <order>");
        }
        OrderTools tools = new OrderTools();
        Assistant assistant = AiServices.builder(Assistant.class)
                .chatModel(new ScriptedModel(new String[] {args[1], args[2]}))
                .tools(tools)
                .executeToolsConcurrently(new InOrder(tools.oneStarted))
                .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20))
                .build();
        try {
            Console.line("ANSWER: " + assistant.chat(args[0], "refund my orders " + args[1] + " and " + args[2]));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
