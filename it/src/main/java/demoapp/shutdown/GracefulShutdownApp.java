package demoapp.shutdown;

import demoapp.Console;

/**
 * A service with a graceful shutdown (no tracegate import): a conversation makes three searches, then the service waits
 * for SIGTERM, and its own shutdown hook finishes the request in flight with a fourth search, as a web server's grace
 * period does. Prints {@code READY} once the three searches ran, and what the fourth returned.
 *
 * <p>Before the fourth search the hook joins a thread named {@code tracegate-shutdown} if one runs beside it (looked for
 * up to a second): an agent whose shutdown is an ordinary hook, started with this one, has then ended the session and
 * closed its log, which makes that interleaving certain; an agent whose shutdown runs after the application's hooks has
 * no such thread yet, and the search runs at once after the look.
 */
public final class GracefulShutdownApp {

    /** The tool, named in the agent's configuration. */
    public static final class Catalog {
        public String search(String conversation, String query) {
            return "results for " + query;
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Catalog catalog = new Catalog();
        for (String q : new String[] {"a", "b", "c"}) Console.line("search: " + catalog.search("conv-1", q));
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            Thread beside = besideUs("tracegate-shutdown", 1_000);
            if (beside != null) {
                try {
                    beside.join(30_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            String r;
            try {
                r = catalog.search("conv-1", "d");
            } catch (RuntimeException e) {
                r = e.toString();
            }
            Console.line("in the shutdown hook: " + r);
        }, "graceful-shutdown"));
        Console.line("READY");
        Thread.sleep(Long.MAX_VALUE);   // until SIGTERM
    }

    /** A running thread of that name, looked for up to {@code millis}; null if none appears. */
    private static Thread besideUs(String name, long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (true) {
            for (Thread t : Thread.getAllStackTraces().keySet()) {
                if (t.getName().equals(name)) return t;
            }
            if (System.nanoTime() > deadline) return null;
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }
    }
}
