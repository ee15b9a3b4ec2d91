package dev.tracegate.agent.bootstrap;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiFunction;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Checks a streamed model answer whole, once it is complete, as one ASSISTANT event.
 *
 * <p>Advice inlined into the host arranges a Reactor stream of answer chunks as
 * {@code chunks.concatWith(Mono.just(END)).scanWith(check, STEP).mapNotNull(EMIT)}: the host's Reactor calls only these
 * {@code java.util.function} values, so the bootstrap class path needs no Reactor type. {@code scanWith} asks this
 * supplier for a fresh answer per subscription (a stream subscribed twice is two answers); every chunk passes on
 * unchanged as it arrives (it cannot be recalled later); text streamed before a chunk that asks for tools is checked when
 * that chunk arrives, as an ASSISTANT event of its own (it was shown; the tools have not run yet): its replacement waits
 * for the end, a violation ends the stream instead of that chunk; at {@code END} the text collected since is checked: a replacement
 * follows as one more chunk (built by the framework's {@link AnswerChunks}), a violation ends the stream as its error
 * ({@code mapNotNull} turns what {@code EMIT} throws into the error signal). An upstream error or a cancellation ends
 * the stream before {@code END}: an answer that never completed is not checked.
 *
 * <p>Reactor delivers one subscription's signals one at a time (Reactive Streams rule 1.3), so an answer needs no lock.
 *
 * <p>While a subscription runs (from {@code scanWith}'s seed to {@code doFinally(check)}), the check is open for the
 * model request its stream was made for ({@link #answering}): a model call or stream for that same request made then, on
 * any thread (a wrapper model whose {@code stream} runs its {@code call} inside {@code Flux.defer} on a worker, where no
 * conversation of the caller is set), produces the chunks this check reads, so it belongs to this stream's conversation
 * ({@link #session()}): its USER was checked when the stream was made; a blocking call's answer is checked there, before
 * any chunk of it is shown, and then {@link #coveredByCall()} spares the stream a second check of the same answer. The open
 * checks are slots scanned only while one is open; with every slot taken a nested call is checked as an outer one.
 */
public final class StreamCheck implements Supplier<Object>, Consumer<Object> {

    /** Appended after the model's chunks; never reaches the host. */
    public static final Object END = new Object() {
        @Override
        public String toString() {
            return "tracegate end of streamed answer";
        }
    };

    /** The accumulator for {@code scanWith}: folds one chunk (or {@code END}) into the subscription's answer. */
    public static final BiFunction<Object, Object, Object> STEP = new Step();

    /** The mapper for {@code mapNotNull}: the chunk itself, at {@code END} nothing, a notice chunk, or the violation thrown. */
    public static final Function<Object, Object> EMIT = new Emit();

    /** The checks whose streams are subscribed now, one entry per subscription (null: a free slot). */
    private static final AtomicReferenceArray<StreamCheck> OPEN = new AtomicReferenceArray<StreamCheck>(256);
    /** Number of entries of {@link #OPEN}: zero, the common case, answers {@link #answering} at once. */
    private static final AtomicInteger OPEN_COUNT = new AtomicInteger();

    private final String framework;
    private final String session;
    private final AnswerChunks chunks;
    /** The model request (Spring AI's {@code Prompt}) the stream answers, compared by identity; null for none. */
    private final Object request;
    /** Answers of nested blocking calls checked for this stream and not yet met at a subscription's end. */
    private final AtomicInteger covered = new AtomicInteger();

    StreamCheck(String framework, String session, AnswerChunks chunks, Object request) {
        this.framework = framework;
        this.session = session;
        this.chunks = chunks;
        this.request = request;
    }

    /** A new answer for one subscription (the seed of {@code scanWith}; {@code EMIT} drops it): the check is open meanwhile. */
    @Override
    public Object get() {
        if (request != null) {
            for (int i = 0; i < OPEN.length(); i++) {
                if (OPEN.get(i) == null && OPEN.compareAndSet(i, null, this)) {
                    OPEN_COUNT.incrementAndGet();
                    break;
                }
            }
        }
        return new Answer(this);
    }

    /** The subscription ended (completed, failed or cancelled: {@code doFinally}): one entry of this check is closed. */
    @Override
    public void accept(Object signal) {
        if (request == null) {
            return;
        }
        for (int i = 0; i < OPEN.length(); i++) {
            if (OPEN.get(i) == this && OPEN.compareAndSet(i, this, null)) {
                OPEN_COUNT.decrementAndGet();
                return;
            }
        }
    }

    /**
     * The check of a subscribed stream made for {@code request} (the same object), or null: a model call for it now is
     * nested in that stream.
     */
    public static StreamCheck answering(Object request) {
        int open = OPEN_COUNT.get();
        if (open == 0 || request == null) {
            return null;
        }
        for (int i = 0, seen = 0; i < OPEN.length() && seen < open; i++) {
            StreamCheck c = OPEN.get(i);
            if (c != null) {
                if (c.request == request) {
                    return c;
                }
                seen++;
            }
        }
        return null;
    }

    /** The session the stream's answer is checked in. */
    public String session() {
        return session;
    }

    /** A nested blocking call checked the answer this stream passes on: the subscription's end does not check it again. */
    public void coveredByCall() {
        covered.incrementAndGet();
    }

    /** Takes one answer a nested call checked, if any. */
    private boolean takeCovered() {
        for (int c = covered.get(); c > 0; c = covered.get()) {
            if (covered.compareAndSet(c, c - 1)) {
                return true;
            }
        }
        return false;
    }

    /** One subscription's answer so far. */
    private static final class Answer {
        private final StreamCheck check;
        private final StringBuilder text = new StringBuilder();
        private Object last;
        private Throwable failure;
        /** What checks of text streamed before a request for tools replaced it by (notices joined), shown at the end. */
        private String earlier;
        /** A block (block.style: exception) of text streamed before a request for tools: ends the stream at that chunk. */
        private TracegateViolation refused;

        Answer(StreamCheck check) {
            this.check = check;
        }

        void add(Object chunk) {
            last = chunk;
            if (failure != null) {
                return;
            }
            boolean asksForTools;
            try {
                asksForTools = check.chunks.asksForTools(chunk);
                String added = asksForTools ? check.chunks.text(chunk) : null;
                if (added != null) {
                    text.append(added);   // text beside the request in the same chunk was shown too
                }
            } catch (Throwable e) {
                failure = e;
                return;
            }
            if (asksForTools) {
                // text the round streamed before asking for tools has reached the application already: it is an ASSISTANT
                // event of its own, checked now (before the tools run); a notice follows at the end, a block ends the stream
                if (text.length() > 0) {
                    String said = text.toString();
                    text.setLength(0);
                    try {
                        String replacement = Dispatcher.onAssistantMessage(check.framework, check.session, said);
                        if (replacement != null) {
                            earlier = earlier == null ? replacement : earlier + "\n" + replacement;
                        }
                    } catch (TracegateViolation v) {
                        refused = v;
                    } catch (Throwable e) {
                        failure = e;
                    }
                }
                return;
            }
            try {
                String added = check.chunks.text(chunk);
                if (added != null) {
                    text.append(added);
                }
            } catch (Throwable e) {
                failure = e;
            }
        }

        /** The chunk to pass on: this one, unless a block of the text before it (a request for tools) ends the stream here. */
        Object pass(Object chunk) {
            TracegateViolation v = refused;
            if (v != null) {
                refused = null;
                throw v;
            }
            return chunk;
        }

        /** The chunk to append (null for none); throws the violation. */
        Object finish() {
            if (failure != null) {
                Ruling ruling = Dispatcher.internalError("streamed answer", failure);
                if (ruling != null) {
                    throw ruling.violation();
                }
                return null;
            }
            String replacement = null;
            if (text.length() > 0 && !check.takeCovered()) {   // covered: a nested blocking call's answer, checked before it was streamed
                replacement = Dispatcher.onAssistantMessage(check.framework, check.session, text.toString());
            }
            if (earlier != null) {
                replacement = replacement == null ? earlier : earlier + "\n" + replacement;
            }
            if (replacement == null) {
                return null;
            }
            try {
                return check.chunks.notice(last, replacement);
            } catch (Throwable e) {
                // the answer was refused but no notice chunk can be built: ending the stream is the only refusal left
                Dispatcher.internalError("streamed answer notice", e);
                throw new TracegateViolation(replacement);
            }
        }
    }

    /** What {@code STEP} emits for one chunk: the answer it belongs to, and the chunk ({@code END} at the end). */
    private static final class Passing {
        final Answer answer;
        final Object chunk;

        Passing(Answer answer, Object chunk) {
            this.answer = answer;
            this.chunk = chunk;
        }
    }

    private static final class Step implements BiFunction<Object, Object, Object> {
        @Override
        public Object apply(Object previous, Object chunk) {
            Answer answer = previous instanceof Answer ? (Answer) previous : ((Passing) previous).answer;
            if (chunk != END) {
                answer.add(chunk);
            }
            return new Passing(answer, chunk);
        }
    }

    private static final class Emit implements Function<Object, Object> {
        @Override
        public Object apply(Object step) {
            if (!(step instanceof Passing)) {
                return null;   // the seed
            }
            Passing passing = (Passing) step;
            return passing.chunk == END ? passing.answer.finish() : passing.answer.pass(passing.chunk);
        }
    }
}
