package demoapp.configured;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

/**
 * An in-house agent's asynchronous tools, called the way asynchronous code calls them: each call's future is composed
 * and its failure handled inside the pipeline ({@code exceptionally}, {@code handle}, {@code get()}). For each call it
 * prints {@code <tool> FUTURE <value>} when the call returned a future (its value, or {@code HANDLED <exception>} when
 * the future failed), or {@code <tool> SYNC <exception>} when the call itself threw. It knows nothing of any agent.
 */
public final class AsyncToolsApp {
    private AsyncToolsApp() {
    }

    public static final class Fetcher {
        /** Text in a future. */
        public CompletableFuture<String> fetch(String session, String url) {
            return CompletableFuture.supplyAsync(() -> "page of " + url);
        }

        /** A number in a future: no text can stand for it. */
        public CompletableFuture<Integer> count(String session, String query) {
            return CompletableFuture.supplyAsync(() -> query.length());
        }

        /** Text in a stage. */
        public CompletionStage<String> stage(String session, String url) {
            return CompletableFuture.supplyAsync(() -> "stage of " + url);
        }

        /** Text in a plain Future, read with get(). */
        public Future<String> plain(String session, String url) {
            return CompletableFuture.supplyAsync(() -> "plain of " + url);
        }

        /** Text in a future whose refusal must never be a value (a cache around it would store it). */
        public CompletableFuture<String> cached(String session, String url) {
            return CompletableFuture.supplyAsync(() -> "cached page of " + url);
        }
    }

    public static void main(String[] args) {
        Fetcher f = new Fetcher();
        print("fetch", () -> f.fetch("s1", "http://a.example").exceptionally(t -> "HANDLED " + name(t)).join());
        print("count", () -> String.valueOf(f.count("s1", "abc").handle((n, t) -> t != null ? "HANDLED " + name(t) : n).join()));
        print("stage", () -> f.stage("s1", "http://b.example").exceptionally(t -> "HANDLED " + name(t)).toCompletableFuture().join());
        print("plain", () -> {
            Future<String> future = f.plain("s1", "http://c.example");
            try {
                return future.get();
            } catch (java.util.concurrent.ExecutionException e) {
                return "HANDLED " + name(e);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        print("cached", () -> f.cached("s1", "http://d.example").exceptionally(t -> "HANDLED " + name(t)).join());
    }

    private static String name(Throwable t) {
        Throwable cause = t;
        while ((cause instanceof java.util.concurrent.CompletionException || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause.getClass().getSimpleName() + ": " + cause.getMessage();
    }

    private static void print(String tool, java.util.function.Supplier<String> call) {
        String out;
        try {
            out = "FUTURE " + call.get();
        } catch (RuntimeException e) {
            out = "SYNC " + e.getClass().getSimpleName() + ": " + e.getMessage();
        }
        System.out.println(tool + " " + out);
    }
}
