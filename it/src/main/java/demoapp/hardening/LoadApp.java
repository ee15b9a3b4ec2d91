package demoapp.hardening;

import demoapp.Console;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Calls a tool method from several threads as fast as it can until the JVM is asked to stop; its
 * shutdown hook stops the callers, waits for them, and prints {@code DECIDED <n>}: the calls that
 * returned (ran or were answered by a supervisor). Prints {@code STARTED} once calls flow and
 * {@code PROGRESS <n>} now and then. Usage: {@code LoadApp <threads> <sessions>}.
 */
public final class LoadApp {

    /** The tool: a configured method in the test's methods file. */
    public static final class Payments {
        public String charge(String session, int amount) {
            return "charged " + amount + " in " + session;
        }
    }

    public static void main(String[] args) throws Exception {
        int threads = Integer.parseInt(args[0]);
        int sessions = Integer.parseInt(args[1]);
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong decided = new AtomicLong();
        Payments payments = new Payments();
        List<Thread> callers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int id = t;
            Thread c = new Thread(() -> {
                for (long i = 0; !stop.get(); i++) {
                    String r = payments.charge("s" + ((i * threads + id) % sessions), (int) (i % 500));
                    if (r != null) decided.incrementAndGet();
                }
            }, "caller-" + t);
            callers.add(c);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.set(true);
            for (Thread c : callers) {
                try {
                    c.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            Console.line("DECIDED " + decided.get());
        }, "load-app-stop"));
        for (Thread c : callers) c.start();
        while (decided.get() == 0) Thread.sleep(1);
        Console.line("STARTED");
        while (true) {
            Thread.sleep(200);
            Console.line("PROGRESS " + decided.get());
        }
    }
}
