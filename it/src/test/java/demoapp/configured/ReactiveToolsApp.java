package demoapp.configured;

import io.reactivex.rxjava3.core.Maybe;
import io.reactivex.rxjava3.core.Single;
import reactor.core.publisher.Mono;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * An in-house agent's reactive tools, written the way such tools are: each call returns a lazy Reactor {@code Mono} or
 * RxJava 3 {@code Single}/{@code Maybe} whose work runs on a scheduler when the caller subscribes (ADK's
 * {@code BaseTool#runAsync} returns such a Single of a Map). For each call it prints {@code <tool> CALLED} when the method
 * returned, {@code RAN <tool>} when the work runs, then {@code <tool> VALUE <value>} or {@code <tool> ERROR <exception>}
 * from the subscriber, or {@code <tool> SYNC <exception>} when the call itself threw. It knows nothing of any agent.
 */
public final class ReactiveToolsApp {
    private ReactiveToolsApp() {
    }

    public static final class Tools {
        /** A customer's profile, which carries the customer's e-mail address. */
        public Mono<String> profile(String session, String customer) {
            return Mono.fromCallable(() -> {
                System.out.println("RAN profile");
                return "profile of " + customer + ", mail " + customer + "@example.com";
            }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        }

        /** Text without personal data. */
        public Mono<String> weather(String session, String city) {
            return Mono.fromCallable(() -> "sunny in " + city);
        }

        /** ADK's shape: a lazy Single of a Map, on RxJava's io scheduler; the receipt names the customer's e-mail. */
        public Single<Map<String, Object>> pay(String session, String to, int amount) {
            return Single.fromCallable(() -> {
                System.out.println("RAN pay");
                Map<String, Object> receipt = new LinkedHashMap<>();
                receipt.put("status", "paid " + amount + " to " + to + ", receipt to ada@example.com");
                return receipt;
            }).subscribeOn(io.reactivex.rxjava3.schedulers.Schedulers.io());
        }

        /** A Maybe of a number. */
        public Maybe<Integer> count(String session, String query) {
            return Maybe.fromCallable(query::length);
        }

        /** A Mono that fails. */
        public Mono<String> broken(String session) {
            return Mono.error(new IllegalStateException("backend down"));
        }

        /** Refused by the contracts: a Map value. */
        public Single<Map<String, Object>> refund(String session, String to) {
            return Single.fromCallable(() -> Map.of("status", "refunded " + to));
        }

        /** Refused by the contracts: a text value. */
        public Mono<String> delete(String session, String id) {
            return Mono.fromCallable(() -> "deleted " + id);
        }

        /** Refused by the contracts: a value no text or map can stand for. */
        public Maybe<Integer> score(String session, String who) {
            return Maybe.just(42);
        }
    }

    public static void main(String[] args) {
        Tools t = new Tools();
        run("profile", () -> t.profile("s1", "ada"), p -> ((Mono<?>) p).block());
        run("weather", () -> t.weather("s1", "Oslo"), p -> ((Mono<?>) p).block() + " / again " + ((Mono<?>) p).block());
        run("pay", () -> t.pay("s1", "DE89", 5), p -> ((Single<?>) p).blockingGet());
        run("count", () -> t.count("s1", "abcd"), p -> ((Maybe<?>) p).blockingGet());
        run("broken", () -> t.broken("s1"), p -> ((Mono<?>) p).block());
        run("refund", () -> t.refund("s1", "bob"), p -> ((Single<?>) p).blockingGet());
        run("delete", () -> t.delete("s1", "a-7"), p -> ((Mono<?>) p).block());
        run("score", () -> t.score("s1", "bob"), p -> ((Maybe<?>) p).blockingGet());
    }

    private static void run(String tool, Supplier<Object> call, java.util.function.Function<Object, Object> subscribe) {
        Object pipeline;
        try {
            pipeline = call.get();
        } catch (RuntimeException e) {
            System.out.println(tool + " SYNC " + e.getClass().getName() + ": " + e.getMessage());
            return;
        }
        System.out.println(tool + " CALLED");
        try {
            System.out.println(tool + " VALUE " + subscribe.apply(pipeline));
        } catch (RuntimeException e) {
            Throwable cause = e.getClass() == RuntimeException.class && e.getCause() != null ? e.getCause() : e;   // Reactor's block() wraps checked ones
            System.out.println(tool + " ERROR " + cause.getClass().getName() + ": " + cause.getMessage());
        }
    }
}
