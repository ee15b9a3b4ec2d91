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
 */
public final class HandlerScope implements Callable<Object> {

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

    /** The schedule hook: a task scheduled while a handler's session is set runs with it. */
    public static final Function<Runnable, Runnable> DECORATOR = task -> {
        Object session = Dispatcher.peekHandlerSession();
        return session == null || task == null ? task : new Task(session, task);
    };

    private static volatile java.lang.ref.WeakReference<Object> hooked = new java.lang.ref.WeakReference<Object>(null);

    private final String session;

    HandlerScope(String session) {
        this.session = session;
    }

    /** The zip's first source: sets the session on the subscribing thread. */
    @Override
    public Object call() {
        Object previous = Dispatcher.swapHandlerSession(null);
        Dispatcher.restoreHandlerSession(new Frame(session, previous));
        return Boolean.TRUE;
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
        final String session;
        final Object previous;

        Frame(String session, Object previous) {
            this.session = session;
            this.previous = previous;
        }

        @Override
        public String toString() {
            return session;
        }
    }

    /** A scheduled task of a handler's work: runs with the session of the thread that scheduled it. */
    static final class Task implements Runnable {
        private final Object session;
        private final Runnable task;

        Task(Object session, Runnable task) {
            this.session = session;
            this.task = task;
        }

        @Override
        public void run() {
            Object previous = Dispatcher.swapHandlerSession(session);
            try {
                task.run();
            } finally {
                Dispatcher.restoreHandlerSession(previous);
            }
        }
    }
}
