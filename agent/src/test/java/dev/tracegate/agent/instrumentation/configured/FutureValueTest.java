package dev.tracegate.agent.instrumentation.configured;

import net.bytebuddy.description.type.TypeDescription;
import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Future;

import static net.bytebuddy.matcher.ElementMatchers.named;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Which futures a blocked call under {@code block.style: substitute} completes with the refusal text (agent/CONFIG.md,
 * "Configured methods", trial30 03): those whose value a String can be, read from the method's generic signature; the
 * others fail with TracegateViolation, so that no caller finds a String where its type says otherwise.
 */
class FutureValueTest {

    @SuppressWarnings({"rawtypes", "unused"})
    abstract static class Shapes {
        abstract CompletableFuture<String> text();
        abstract CompletionStage<CharSequence> chars();
        abstract Future<Object> object();
        abstract CompletableFuture<?> any();
        abstract CompletableFuture<? super String> superString();
        abstract CompletableFuture<? extends Serializable> serializable();
        abstract CompletableFuture<Integer> number();
        abstract CompletableFuture<List<String>> list();
        abstract <T> CompletableFuture<T> variable();
        abstract <T extends CharSequence> CompletableFuture<? extends T> boundedVariable();
        abstract CompletableFuture raw();
        abstract String plain();
        abstract reactor.core.publisher.Mono<String> monoText();
        abstract reactor.core.publisher.Mono<Integer> monoNumber();
        abstract reactor.core.publisher.Flux<String> fluxText();
        abstract java.util.Map<String, Object> map();
        abstract java.util.LinkedHashMap<String, Object> linkedMap();
        abstract java.util.TreeMap<String, Object> treeMap();
        abstract CompletableFuture<java.util.Map<String, Object>> futureMap();
        abstract reactor.core.publisher.Mono<? extends java.util.Map<String, ?>> monoMap();
        abstract reactor.core.publisher.Mono<Object> monoObject();
    }

    private static boolean text(String method) {
        return ConfiguredMethods.futureOfText(TypeDescription.ForLoadedType.of(Shapes.class).getDeclaredMethods()
                .filter(named(method)).getOnly().getReturnType());
    }

    private static boolean map(String method) {
        return ConfiguredMethods.mapValued(TypeDescription.ForLoadedType.of(Shapes.class).getDeclaredMethods()
                .filter(named(method)).getOnly().getReturnType());
    }

    /**
     * A Mono (Single, Maybe) is followed as a future is, so its refusal is text on the same rule; a Flux is not followed.
     * A Map result, or a future or Mono of one, takes {"error": refusal} (trial46 02), where a LinkedHashMap can stand for
     * the declared type (not a TreeMap).
     */
    @Test
    void aMonoTakesTheRefusalTextAsAFutureDoesAndAMapResultTakesTheRefusalMap() {
        assertThat(text("monoText")).isTrue();
        assertThat(text("monoObject")).isTrue();
        assertThat(text("monoNumber")).isFalse();
        assertThat(text("fluxText")).as("a Flux is not followed").isFalse();
        for (String yes : new String[] {"map", "linkedMap", "futureMap", "monoMap"}) {
            assertThat(map(yes)).as(yes).isTrue();
        }
        for (String no : new String[] {"treeMap", "monoObject", "monoText", "text", "plain", "raw"}) {
            assertThat(map(no)).as(no).isFalse();
        }
    }

    @Test
    void aFutureTakesTheRefusalTextOnlyWhenItsValueCanBeAString() {
        for (String yes : new String[] {"text", "chars", "object", "any", "superString", "serializable"}) {
            assertThat(text(yes)).as(yes).isTrue();
        }
        for (String no : new String[] {"number", "list", "variable", "boundedVariable", "raw", "plain"}) {
            assertThat(text(no)).as(no).isFalse();
        }
    }
}
