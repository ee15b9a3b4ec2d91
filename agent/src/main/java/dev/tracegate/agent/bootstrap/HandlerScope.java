package dev.tracegate.agent.bootstrap;

import java.util.concurrent.Callable;
import java.util.function.Function;

/**
 * Carries the conversation of an MCP server tool call into the work its handler's {@code Mono} does when it is
 * subscribed (trial26 01, an async server's handler), with JDK types only: the agent's bootstrap classes cannot see
 * Reactor, so the MCP advice, inlined into the SDK where Reactor is, builds the operators and this class supplies
 * their functions.
 *
 * <p>The advice turns the handler's {@code Mono} {@code m} into
 * {@code Mono.zipDelayError(RESULT, Mono.fromCallable(enter(session)), m, Mono.fromCallable(EXIT))}: a zip subscribes
 * its sources in order on the subscribing thread, so the session is set on that thread while {@code m} is subscribed
 * (what {@code Mono.fromCallable}, {@code Mono.defer} and the like run then) and put back right after, whatever
 * {@code m} does (ends, fails, is empty, is cancelled). Work that {@code m} moves to a Reactor {@code Scheduler}
 * ({@code subscribeOn}, {@code publishOn}, {@code Mono.delay}, {@code timeout}...) is scheduled while the session is set,
 * and {@link #DECORATOR}, installed once per Reactor as a {@code Schedulers.onScheduleHook}, runs such a task with the
 * session of the thread that scheduled it. Threads Reactor does not schedule (a {@code CompletableFuture}'s pool, an
 * HTTP client's event loop) are not covered.
 *
 * <p>The thread's value ({@code Dispatcher}'s handler slot) is a {@link Frame} while a subscription is running, so that
 * nested subscriptions on one thread put back exactly what they found.
 *
 * <p>The same scope carries the conversation of a streamed Spring AI {@code ChatClient} request (trial28 02 case B): an
 * instance made by {@link Dispatcher#conversationEnter} puts its frame in the thread's conversation slot (the one every
 * framework's advice reads, {@code Dispatcher.session}) instead, {@link #CONVERSATION_EXIT} takes it out, and the one
 * schedule hook carries either frame (a conversation only when it is such a frame, not a conversation an advice set on
 * its own thread), and the note of a user message a framework augmented ({@link Dispatcher#augmented}), which a model
 * call takes once wherever it was carried.
 */
public final class HandlerScope implements Callable<Object>, Runnable {

    /** The key of the schedule hook, one per Reactor ({@code Schedulers.onScheduleHook} replaces a hook of the same key). */
    public static final String HOOK_KEY = "dev.tracegate.mcp-handler-session";

    /** The zip's combinator: the handler's own result (the middle source). */
    public static final Function<Object[], Object> RESULT = values -> values[1];

    /** The zip's last source: puts back what {@link #call} of the first found. */
    public static final Callable<Object> EXIT = () -> {
        Object current = Dispatcher.swapHandlerSession(null);
        Dispatcher.restoreHandlerSession(current instanceof Frame ? ((Frame) current).previous : current);
        return Boolean.TRUE;
    };

    /**
     * Puts back what {@link #call} or {@link #run} of an instance of {@link Dispatcher#conversationEnter} found in the
     * thread's conversation slot (a zip's or merge's last source, or the runnable after a signal was delivered).
     */
    public static final Exit CONVERSATION_EXIT = new Exit();

    /**
     * The schedule hook: a task scheduled while a handler's session, a carried conversation or a note of an augmented user
     * message ({@link Dispatcher#augmented}: a streamed Spring AI chain's next {@code BaseAdvisor} calls the model on its
     * scheduler's thread) is set runs with it.
     */
    public static final Function<Runnable, Runnable> DECORATOR = task -> {
        Object[] scope = Dispatcher.scope();
        Object session = scope[Dispatcher.HANDLER_SLOT];
        Object conversation = scope[Dispatcher.CONVERSATION_SLOT];
        Object augmented = scope[Dispatcher.AUGMENTED_SLOT];
        if (augmented instanceof String[] && ((String[]) augmented)[0] == null) {
            // taken by the model call it was carried to: nothing to carry, and nothing to keep here (the scheduling worker
            // may never make a model call of its own to clear it)
            scope[Dispatcher.AUGMENTED_SLOT] = null;
            augmented = null;
        }
        if (!(conversation instanceof Frame)) {
            conversation = null;
        }
        return session == null && conversation == null && augmented == null || task == null ? task
                : new Task(session, conversation, augmented, task);
    };

    private static volatile java.lang.ref.WeakReference<Object> hooked = new java.lang.ref.WeakReference<Object>(null);

    private final Object session;
    private final int slot;

    HandlerScope(String session) {
        this(session, Dispatcher.HANDLER_SLOT);
    }

    HandlerScope(Object session, int slot) {
        this.session = session;
        this.slot = slot;
    }

    /** The zip's first source: sets the session on the subscribing thread. */
    @Override
    public Object call() {
        Object[] scope = Dispatcher.scope();
        scope[slot] = new Frame(session, scope[slot]);
        return Boolean.TRUE;
    }

    /** As {@link #call}, for an operator that takes a runnable (before a signal is delivered). */
    @Override
    public void run() {
        call();
    }

    /** Takes a conversation frame out of the thread's conversation slot: what it found is put back. */
    public static final class Exit implements Callable<Object>, Runnable {
        private Exit() {
        }

        @Override
        public Object call() {
            Object[] scope = Dispatcher.scope();
            Object current = scope[Dispatcher.CONVERSATION_SLOT];
            if (current instanceof Frame) {
                scope[Dispatcher.CONVERSATION_SLOT] = ((Frame) current).previous;
            }
            return Boolean.TRUE;
        }

        @Override
        public void run() {
            call();
        }
    }

    /**
     * Whether the schedule hook still has to be installed in the Reactor whose {@code Schedulers} class this is (true
     * once per class; a JVM with two Reactors gets it in each). One volatile read when it is the one seen last.
     */
    public static boolean needsHook(Object schedulers) {
        if (schedulers == hooked.get()) {
            return false;
        }
        synchronized (HandlerScope.class) {
            hooked = new java.lang.ref.WeakReference<Object>(schedulers);
            return SEEN.add(schedulers);
        }
    }

    private static final java.util.Set<Object> SEEN = java.util.Collections.newSetFromMap(new java.util.WeakHashMap<Object, Boolean>());

    /** The session a subscription set, over what it found there. */
    static final class Frame {
        /** A handler's session, or a streamed request's conversation id (read when the advice made the frame). */
        final Object session;
        final Object previous;

        Frame(Object session, Object previous) {
            this.session = session;
            this.previous = previous;
        }

        @Override
        public String toString() {
            return session.toString();
        }
    }

    /**
     * A scheduled task of a handler's work or of a carried conversation's: runs with the handler session and the
     * conversation frame of the thread that scheduled it (each only when that thread had one), put back after.
     */
    static final class Task implements Runnable {
        private final Object session;
        private final Object conversation;
        private final Object augmented;
        private final Runnable task;

        Task(Object session, Object conversation, Object augmented, Runnable task) {
            this.session = session;
            this.conversation = conversation;
            this.augmented = augmented;
            this.task = task;
        }

        @Override
        public void run() {
            Object[] scope = Dispatcher.scope();
            Object previousSession = scope[Dispatcher.HANDLER_SLOT];
            Object previousConversation = scope[Dispatcher.CONVERSATION_SLOT];
            Object previousAugmented = scope[Dispatcher.AUGMENTED_SLOT];
            if (session != null) {
                scope[Dispatcher.HANDLER_SLOT] = session;
            }
            if (conversation != null) {
                scope[Dispatcher.CONVERSATION_SLOT] = conversation;
            }
            if (augmented != null) {
                scope[Dispatcher.AUGMENTED_SLOT] = augmented;
            }
            try {
                task.run();
            } finally {
                if (session != null) {
                    scope[Dispatcher.HANDLER_SLOT] = previousSession;
                }
                if (conversation != null) {
                    scope[Dispatcher.CONVERSATION_SLOT] = previousConversation;
                }
                if (augmented != null) {
                    scope[Dispatcher.AUGMENTED_SLOT] = previousAugmented;
                }
            }
        }
    }
}
