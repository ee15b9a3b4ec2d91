package dev.tracegate.agent.hardening;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs one fuzz input on a worker thread with a generous deadline, so that a hang becomes a test
 * failure naming the input instead of a stuck build; the deadline is a bound, never a measurement.
 */
final class Bounded implements AutoCloseable {
    /** How long one input may take before it counts as a hang (far above any honest run). */
    static final long DEADLINE_SECONDS = 30;

    /** A task that may throw anything. */
    interface Task<T> { T run() throws Throwable; }

    private final ExecutorService worker = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(null, r, "fuzz-worker", 0);
        t.setDaemon(true);
        return t;
    });

    /** Returns what {@code task} returned or rethrows what it threw; fails if it does not finish in time. */
    <T> T run(String input, Task<T> task) throws Throwable {
        Future<T> f = worker.submit(() -> {
            try {
                return task.run();
            } catch (Throwable t) {
                throw new Thrown(t);
            }
        });
        try {
            return f.get(DEADLINE_SECONDS, TimeUnit.SECONDS);
        } catch (TimeoutException e) {
            f.cancel(true);
            throw new AssertionError("no answer within " + DEADLINE_SECONDS + " s (hang?) for input: " + abbreviate(input));
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            throw c instanceof Thrown th ? th.getCause() : c;
        }
    }

    static String abbreviate(String s) {
        return s.length() <= 300 ? s : s.substring(0, 300) + "... (" + s.length() + " chars)";
    }

    @Override public void close() { worker.shutdownNow(); }

    /** Carries the task's own throwable through the executor's wrapping. */
    private static final class Thrown extends Exception {
        Thrown(Throwable cause) { super(cause); }
    }
}
