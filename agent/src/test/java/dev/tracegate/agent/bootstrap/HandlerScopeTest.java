package dev.tracegate.agent.bootstrap;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The schedule hook ({@link HandlerScope#DECORATOR}) and the note of an augmented user message it carries. */
class HandlerScopeTest {

    @AfterEach
    void clear() {
        Dispatcher.scope()[Dispatcher.AUGMENTED_SLOT] = null;
    }

    /**
     * review18 (of 5951efb): once the model call the note was carried to has taken it, the scheduling thread (a pooled
     * worker that ran the RAG advisor's before and may never make a model call itself) no longer wraps every Reactor task
     * it schedules in a Task carrying the spent note (one allocation per task, and the user's text kept, for good).
     */
    @Test
    void aNoteTakenWhereItWasCarriedIsNoLongerCarried() throws Exception {
        Dispatcher.augmented("the question\n\ncontext: a retrieved article", "the question");
        Runnable plain = () -> {};
        AtomicReference<String> seen = new AtomicReference<>();
        Runnable carried = HandlerScope.DECORATOR.apply(() -> seen.set(Dispatcher.ownUserText("the question\n\ncontext: a retrieved article")));
        assertThat(carried).as("a pending note goes with the task").isNotSameAs(plain).isInstanceOf(HandlerScope.Task.class);

        Thread worker = new Thread(carried, "scheduler-worker");
        worker.start();
        worker.join(10_000);
        assertThat(seen.get()).as("the model call on the worker took the note").isEqualTo("the question");

        assertThat(HandlerScope.DECORATOR.apply(plain)).as("a spent note is not carried again").isSameAs(plain);
        assertThat(Dispatcher.scope()[Dispatcher.AUGMENTED_SLOT]).as("and is not kept on the scheduling thread").isNull();
        assertThat(Dispatcher.ownUserText("other text")).isEqualTo("other text");
    }

    /** A note not yet taken is carried by every task scheduled meanwhile, as before. */
    @Test
    void aPendingNoteIsCarried() {
        Dispatcher.augmented("aug", "own");
        Runnable plain = () -> {};
        assertThat(HandlerScope.DECORATOR.apply(plain)).isInstanceOf(HandlerScope.Task.class);
        assertThat(HandlerScope.DECORATOR.apply(plain)).isInstanceOf(HandlerScope.Task.class);
        assertThat(Dispatcher.ownUserText("x aug y")).isEqualTo("x own y");
        assertThat(HandlerScope.DECORATOR.apply(plain)).isSameAs(plain);
    }
}
