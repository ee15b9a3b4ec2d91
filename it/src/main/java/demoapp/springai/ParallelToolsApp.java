package demoapp.springai;

import demoapp.Console;
import org.springframework.ai.chat.memory.ChatMemory;
import org.springframework.ai.chat.model.ToolContext;
import org.springframework.ai.support.ToolCallbacks;
import org.springframework.ai.tool.ToolCallback;
import org.springframework.ai.tool.annotation.Tool;

import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * An application that runs Spring AI tool callbacks itself, two look-ups of one conversation in parallel (as its own
 * tool loop would run a model message's tool calls concurrently): {@code lookupOrder} of each order named on the command
 * line, each on its own thread, the second once the first has started; each look-up waits until the other has
 * started, so both calls are under way before either ends. An order whose id starts with {@code BAD} does not exist (the tool throws). Then, one after another, a
 * refund of each order. The conversation id goes in each call's {@code ToolContext}.
 * Usage: {@code ParallelToolsApp <conversation> <order> <order>}. Compiled against 2.0.1 using only API 1.1.2 has too.
 */
public final class ParallelToolsApp {

    /** The tools. */
    public static final class OrderTools {
        private final CountDownLatch bothStarted = new CountDownLatch(2);
        /** Counted down by the first look-up that starts: the second starts only then (so the calls start in order). */
        final CountDownLatch oneStarted = new CountDownLatch(1);

        @Tool(description = "Look up an order")
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
                throw new IllegalArgumentException("no order " + orderId);
            }
            return "order " + orderId + ": 1 kettle, 40 EUR";
        }

        @Tool(description = "Refund an order")
        public String refund(String orderId) {
            Console.line("TOOL refund ran orderId=" + orderId);
            return "refunded " + orderId;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: ParallelToolsApp <conversation> <order> <order>");
        }
        ToolContext context = new ToolContext(Map.of(ChatMemory.CONVERSATION_ID, args[0]));
        ToolCallback lookup = null;
        ToolCallback refund = null;
        OrderTools tools = new OrderTools();
        for (ToolCallback callback : ToolCallbacks.from(tools)) {
            if (callback.getToolDefinition().name().equals("lookupOrder")) {
                lookup = callback;
            } else if (callback.getToolDefinition().name().equals("refund")) {
                refund = callback;
            }
        }
        ToolCallback lookupOrder = lookup;
        Thread[] lookups = new Thread[2];
        for (int i = 0; i < 2; i++) {
            String order = args[1 + i];
            lookups[i] = new Thread(() -> {
                try {
                    Console.line("LOOKUP " + order + ": " + lookupOrder.call("{\"orderId\":\"" + order + "\"}", context));
                } catch (RuntimeException e) {
                    Console.line("LOOKUP " + order + " FAILED: " + e.getMessage());
                }
            }, "lookup-" + order);
            lookups[i].start();
            if (i == 0 && !tools.oneStarted.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the first look-up never started");
            }
        }
        for (Thread t : lookups) {
            t.join();
        }
        for (int i = 1; i <= 2; i++) {
            try {
                Console.line("REFUND " + args[i] + ": " + refund.call("{\"orderId\":\"" + args[i] + "\"}", context));
            } catch (RuntimeException e) {
                Console.line("REFUND " + args[i] + " REFUSED: " + e.getMessage());
            }
        }
    }
}
