package demoapp.plain;

import demoapp.Console;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * In-house code that runs two look-ups of one session in parallel, as an agent loop that runs a model message's tool
 * calls concurrently would: {@code Orders#lookupOrder} for each order named on the command line, each on its own
 * thread, the second once the first has started; each look-up waits until the other has started, so both calls are
 * under way before either ends (the first named starts first; the last call that started is the second's). An order
 * whose id starts with {@code BAD} does not exist (the look-up throws). Then, one after another, a refund of each order.
 * Usage: {@code OverlapApp <session> <order> <order>}.
 */
public final class OverlapApp {

    /** The methods the configuration names. */
    public static final class Orders {
        private final CountDownLatch bothStarted = new CountDownLatch(2);
        /** Counted down by the first look-up that starts: the second starts only then (so the calls start in order). */
        final CountDownLatch oneStarted = new CountDownLatch(1);

        public String lookupOrder(String session, String orderId) {
            Console.line("METHOD lookupOrder started orderId=" + orderId);
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

        public String refund(String session, String orderId) {
            Console.line("METHOD refund ran orderId=" + orderId);
            return "refunded " + orderId;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: OverlapApp <session> <order> <order>");
        }
        String session = args[0];
        Orders orders = new Orders();
        Thread[] lookups = new Thread[2];
        for (int i = 0; i < 2; i++) {
            String order = args[1 + i];
            lookups[i] = new Thread(() -> {
                try {
                    Console.line("LOOKUP " + order + ": " + orders.lookupOrder(session, order));
                } catch (RuntimeException e) {
                    Console.line("LOOKUP " + order + " FAILED: " + e.getMessage());
                }
            }, "lookup-" + order);
            lookups[i].start();
            if (i == 0 && !orders.oneStarted.await(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the first look-up never started");
            }
        }
        for (Thread t : lookups) {
            t.join();
        }
        for (int i = 1; i <= 2; i++) {
            try {
                Console.line("REFUND " + args[i] + ": " + orders.refund(session, args[i]));
            } catch (RuntimeException e) {
                Console.line("REFUND " + args[i] + " REFUSED: " + e.getMessage());
            }
        }
    }
}
