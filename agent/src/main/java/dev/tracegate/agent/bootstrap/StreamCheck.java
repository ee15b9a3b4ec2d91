package dev.tracegate.agent.bootstrap;

import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Checks a streamed model answer whole, once it is complete, as one ASSISTANT event.
 *
 * <p>Advice inlined into the host arranges a Reactor stream of answer chunks as
 * {@code chunks.concatWith(Mono.just(END)).scanWith(check, STEP).mapNotNull(EMIT)}: the host's Reactor calls only these
 * {@code java.util.function} values, so the bootstrap class path needs no Reactor type. {@code scanWith} asks this
 * supplier for a fresh answer per subscription (a stream subscribed twice is two answers); every chunk passes on
 * unchanged as it arrives (it cannot be recalled later); at {@code END} the collected text is checked: a replacement
 * follows as one more chunk (built by the framework's {@link AnswerChunks}), a violation ends the stream as its error
 * ({@code mapNotNull} turns what {@code EMIT} throws into the error signal). An upstream error or a cancellation ends
 * the stream before {@code END}: an answer that never completed is not checked.
 *
 * <p>Reactor delivers one subscription's signals one at a time (Reactive Streams rule 1.3), so an answer needs no lock.
 */
public final class StreamCheck implements Supplier<Object> {

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

    private final String framework;
    private final String session;
    private final AnswerChunks chunks;

    StreamCheck(String framework, String session, AnswerChunks chunks) {
        this.framework = framework;
        this.session = session;
        this.chunks = chunks;
    }

    /** A new answer for one subscription (the seed of {@code scanWith}; {@code EMIT} drops it). */
    @Override
    public Object get() {
        return new Answer(this);
    }

    /** One subscription's answer so far. */
    private static final class Answer {
        private final StreamCheck check;
        private final StringBuilder text = new StringBuilder();
        private Object last;
        private Throwable failure;

        Answer(StreamCheck check) {
            this.check = check;
        }

        void add(Object chunk) {
            last = chunk;
            if (failure != null) {
                return;
            }
            try {
                if (check.chunks.asksForTools(chunk)) {
                    text.setLength(0);   // that round asked for tools: its text is not the answer (as for a blocking call)
                } else {
                    String added = check.chunks.text(chunk);
                    if (added != null) {
                        text.append(added);
                    }
                }
            } catch (Throwable e) {
                failure = e;
            }
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
            if (text.length() == 0) {
                return null;
            }
            String replacement = Dispatcher.onAssistantMessage(check.framework, check.session, text.toString());
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
            return passing.chunk == END ? passing.answer.finish() : passing.chunk;
        }
    }
}
