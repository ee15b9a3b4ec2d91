package dev.tracegate.agent.bootstrap;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The stream check wired into a real Reactor Flux exactly as the Spring AI advice wires it; chunks are strings here
 * ("TOOLS" asks for tools), and the delegate records the ASSISTANT events it is asked about.
 */
class StreamCheckTest {

    /** What the delegate was asked: "session|text". */
    private final List<String> checked = new ArrayList<>();
    /** What the delegate answers: null (keep), a replacement, or "THROW" for a violation. */
    private String answer;

    private static final AnswerChunks STRINGS = new AnswerChunks() {
        @Override
        public String text(Object chunk) {
            if (chunk.equals("BROKEN")) {
                throw new IllegalStateException("unreadable chunk");
            }
            return chunk.equals("TOOLS") ? null : (String) chunk;   // a request for tools carries no text, as a provider's
        }

        @Override
        public boolean asksForTools(Object chunk) {
            return chunk.equals("TOOLS");
        }

        @Override
        public Object notice(Object last, String text) {
            return "notice:" + text;
        }
    };

    @BeforeEach
    void install() {
        Dispatcher.installChunks("test-stream", STRINGS);
        Dispatcher.install(new DispatcherTest.Failing(null) {
            @Override
            public String onAssistantMessage(String framework, String session, String text) {
                assertThat(framework).isEqualTo("test-stream");
                checked.add(session + "|" + text);
                if ("THROW".equals(answer)) {
                    throw new TracegateViolation("blocked: " + text);
                }
                return answer;
            }
        });
    }

    @AfterEach
    void uninstall() {
        Dispatcher.install(null);
    }

    /** The advice's wiring. */
    private static Flux<Object> checked(Flux<Object> chunks, String session) {
        StreamCheck check = Dispatcher.streamCheck("test-stream", session);
        assertThat(check).isNotNull();
        return chunks.concatWith(Mono.just(StreamCheck.END)).scanWith(check, StreamCheck.STEP).mapNotNull(StreamCheck.EMIT);
    }

    @Test
    void everyChunkPassesUnchangedAndTheCompleteAnswerIsCheckedOnceAtTheEnd() {
        List<String> seenWhenChecked = new ArrayList<>();
        Flux<Object> stream = checked(Flux.just("the ", "secret ", "code"), "conv-1")
                .doOnNext(chunk -> seenWhenChecked.add(chunk + "@" + checked.size()));
        assertThat(stream.collectList().block()).containsExactly("the ", "secret ", "code");
        assertThat(checked).containsExactly("conv-1|the secret code");
        // each chunk went downstream before the check: the check waits for the end, the chunks do not wait for it
        assertThat(seenWhenChecked).containsExactly("the @0", "secret @0", "code@0");
    }

    @Test
    void aReplacementFollowsAsOneMoreChunk() {
        answer = "[withheld]";
        assertThat(checked(Flux.just("a ", "b"), "s").collectList().block()).containsExactly("a ", "b", "notice:[withheld]");
    }

    @Test
    void aViolationEndsTheStreamAfterTheChunksAlreadySent() {
        answer = "THROW";
        List<Object> received = new ArrayList<>();
        assertThatThrownBy(() -> checked(Flux.just("a ", "b"), "s").doOnNext(received::add).blockLast())
                .isInstanceOf(TracegateViolation.class).hasMessage("blocked: a b");
        assertThat(received).containsExactly("a ", "b");
    }

    @Test
    void eachSubscriptionIsItsOwnAnswer() {
        Flux<Object> stream = checked(Flux.just("x", "y"), "s");
        stream.blockLast();
        stream.blockLast();
        assertThat(checked).containsExactly("s|xy", "s|xy");
    }

    @Test
    void textBeforeAChunkThatAsksForToolsIsAnAnswerOfItsOwnCheckedWhenThatChunkArrives() {
        // trial15 stream-tool-round-text-unchecked: that text reached the application, and was neither checked nor logged
        List<String> checkedWhenPassed = new ArrayList<>();
        assertThat(checked(Flux.just("let me look ", "TOOLS", "found ", "it"), "s")
                .doOnNext(chunk -> checkedWhenPassed.add(chunk + "@" + checked.size())).collectList().block())
                .containsExactly("let me look ", "TOOLS", "found ", "it");
        assertThat(checked).containsExactly("s|let me look ", "s|found it");
        // checked before the request for tools passes on (the tools have not run), not before the text itself
        assertThat(checkedWhenPassed).containsExactly("let me look @0", "TOOLS@1", "found @1", "it@1");
        checked.clear();
        checked(Flux.just("TOOLS"), "s").blockLast();
        checked(Flux.empty(), "s").blockLast();
        assertThat(checked).as("no answer text: no ASSISTANT event").isEmpty();
    }

    @Test
    void aReplacementOfTextBeforeARequestForToolsFollowsAtTheEndAndTheRequestStillPasses() {
        answer = "[withheld]";
        assertThat(checked(Flux.just("the secret ", "TOOLS"), "s").collectList().block())
                .containsExactly("the secret ", "TOOLS", "notice:[withheld]");
        checked.clear();
        // and with an answer after the tools, both notices in one chunk
        assertThat(checked(Flux.just("a ", "TOOLS", "b"), "s").collectList().block())
                .containsExactly("a ", "TOOLS", "b", "notice:[withheld]\n[withheld]");
        assertThat(checked).containsExactly("s|a ", "s|b");
    }

    @Test
    void aViolationOfTextBeforeARequestForToolsEndsTheStreamInPlaceOfThatRequest() {
        answer = "THROW";
        List<Object> received = new ArrayList<>();
        assertThatThrownBy(() -> checked(Flux.just("the secret ", "TOOLS", "never"), "s").doOnNext(received::add).blockLast())
                .isInstanceOf(TracegateViolation.class).hasMessage("blocked: the secret ");
        assertThat(received).containsExactly("the secret ");
    }

    @Test
    void anAnswerThatNeverCompletesIsNotChecked() {
        Flux<Object> failing = Flux.concat(Flux.just("a"), Flux.error(new IllegalStateException("model down")));
        assertThatThrownBy(() -> checked(failing, "s").blockLast()).hasMessage("model down");
        checked(Flux.just("a", "b", "c"), "s").take(1).blockLast();
        assertThat(checked).isEmpty();
    }

    @Test
    void anUnreadableChunkIsAnInternalErrorUnderTheFailurePolicy() {
        long before = Dispatcher.internalErrors();
        Dispatcher.install(new DispatcherTest.Failing(Ruling.substitute("refused: internal error")));
        assertThatThrownBy(() -> checked(Flux.just("a", "BROKEN", "c"), "s").blockLast())
                .isInstanceOf(TracegateViolation.class).hasMessage("refused: internal error");
        Dispatcher.install(new DispatcherTest.Failing(null));
        assertThat(checked(Flux.just("a", "BROKEN", "c"), "s").collectList().block()).containsExactly("a", "BROKEN", "c");
        assertThat(Dispatcher.internalErrors() - before).isEqualTo(2);
    }

    /** The advice's wiring for a stream made for {@code request}. */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private static Flux<Object> checkedFor(Object request, Flux<Object> chunks) {
        StreamCheck check = Dispatcher.streamCheck("test-stream", "conv-1", request);
        return chunks.concatWith(Mono.just(StreamCheck.END)).scanWith(check, StreamCheck.STEP).mapNotNull(StreamCheck.EMIT)
                .doFinally((java.util.function.Consumer) check);
    }

    @Test
    void aModelCallForTheRequestOfASubscribedStreamIsNestedInItOnAnyThreadUntilTheSubscriptionEnds() {
        Object prompt = new Object(), other = new Object();
        List<String> seen = new ArrayList<>();
        // the model's stream runs its own call when subscribed, on a worker thread (no nesting depth of the caller there)
        Flux<Object> deferred = Flux.defer(() -> {
            StreamCheck same = StreamCheck.answering(prompt);
            seen.add("same " + (same == null ? null : same.session()) + ", other " + StreamCheck.answering(other));
            return Flux.<Object>just("the ", "answer");
        }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        Flux<Object> stream = checkedFor(prompt, deferred);
        assertThat(StreamCheck.answering(prompt)).as("assembled, not subscribed").isNull();
        assertThat(stream.collectList().block()).containsExactly("the ", "answer");
        assertThat(seen).containsExactly("same conv-1, other null");
        assertThat(checked).containsExactly("conv-1|the answer");
        // doFinally runs on the worker after the completion reached block(): wait for it rather than race it
        assertThat(closedEventually(prompt)).as("completed").isTrue();
        // a subscription that fails or is cancelled closes as well
        assertThatThrownBy(() -> checkedFor(prompt, Flux.error(new IllegalStateException("model down"))).blockLast())
                .hasMessageContaining("model down");
        assertThat(StreamCheck.answering(prompt)).as("failed").isNull();
        reactor.core.Disposable running = checkedFor(prompt, Flux.never()).subscribe();
        assertThat(StreamCheck.answering(prompt)).as("subscribed").isNotNull();
        running.dispose();
        assertThat(StreamCheck.answering(prompt)).as("cancelled").isNull();
        // two subscriptions of one stream: open until both end
        reactor.core.Disposable first = checkedFor(prompt, Flux.never()).subscribe();
        Flux<Object> twice = checkedFor(other, Flux.never());
        reactor.core.Disposable a = twice.subscribe(), b = twice.subscribe();
        a.dispose();
        assertThat(StreamCheck.answering(other)).isNotNull();
        b.dispose();
        assertThat(StreamCheck.answering(other)).isNull();
        assertThat(StreamCheck.answering(prompt)).isNotNull();
        first.dispose();
        assertThat(StreamCheck.answering(prompt)).isNull();
    }

    /** Whether the stream for {@code request} closes within a generous bound (its doFinally may run just after block() returns). */
    private static boolean closedEventually(Object request) {
        for (int i = 0; i < 1000; i++) {
            if (StreamCheck.answering(request) == null) {
                return true;
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return false;
    }

    @Test
    void anAnswerANestedCallCheckedIsNotCheckedAgainAtTheEndOfTheStream() {
        Object prompt = new Object();
        Flux<Object> deferred = Flux.defer(() -> {
            StreamCheck.answering(prompt).coveredByCall();   // what the model call's advice does once it checked the answer
            return Flux.<Object>just("checked ", "already");
        }).subscribeOn(reactor.core.scheduler.Schedulers.boundedElastic());
        assertThat(checkedFor(prompt, deferred).collectList().block()).containsExactly("checked ", "already");
        assertThat(checked).isEmpty();
        // the next subscription's answer, which no nested call checked, is checked
        assertThat(checkedFor(prompt, Flux.just("fresh")).collectList().block()).containsExactly("fresh");
        assertThat(checked).containsExactly("conv-1|fresh");
    }

    @Test
    void withoutAnAgentCoreOrAChunkReaderThereIsNoCheck() {
        assertThat(Dispatcher.streamCheck("no-such-stream", "s")).isNull();
        Dispatcher.install(null);
        assertThat(Dispatcher.streamCheck("test-stream", "s")).isNull();
    }
}
