package dev.tracegate.agent.supervision;

import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.metrics.SupervisorMetrics;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The escalation approver named by {@code escalate.approver}: any class on the application's class
 * path with a public no-argument constructor and a public method
 * {@code boolean approve(java.util.Map<String, String> request)} (keys: contract, session, tool,
 * arguments, reason). JDK types only, so the host needs nothing of tracegate to write one. Without
 * an approver, or when it throws or does not answer within {@code escalate.timeout}, the call is refused; so is every
 * escalation still waiting, or asked, once the JVM shuts down ({@link #stop}).
 */
final class Approval {
    /** The approver's answer and a note for the audit log. */
    record Answer(boolean approved, String note) {}

    /** The class named by escalate.approver, or null when none is configured. */
    private final String name;
    /** The approver and its approve method once its constructor has returned (null before, and for good if it failed). */
    private volatile Object approver;
    private volatile Method approve;
    /** Why the approver cannot be asked after a constructor that did not return at start and then threw, else null. */
    private volatile String failed;
    /** When its construction began (System.nanoTime), for the note of a call refused while it has not returned. */
    private final long constructing = System.nanoTime();
    private final Duration timeout;
    private final ExecutorService executor;
    private final SupervisorMetrics metrics;
    /** The approvers' answers being waited for now (escalations are rare: a set entry each is no hot-path cost). */
    private final Set<Ask> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;
    /** Approver threads whose escalation stopped waiting for them (timeout, shutdown) and that have not returned yet. */
    private final AtomicInteger stuck = new AtomicInteger();
    /** escalate.max-stuck: at this many stuck threads escalations are refused at once, without a thread. */
    private final int maxStuck;
    private final ContractSupervisor.Throttle stuckWarnings = new ContractSupervisor.Throttle();
    /** The approver's exceptions, said the first time and then at most once a minute (escalations may come often). */
    private final ContractSupervisor.Throttle failures = new ContractSupervisor.Throttle();

    /** The note of an escalation refused because the JVM is shutting down. */
    static final String SHUTTING_DOWN = "the JVM is shutting down, so the approver's answer can no longer be waited for"
            + " (refused as at escalate.timeout)";

    /** The longest the start waits for the approver's class and constructor (less if escalate.timeout is less). */
    static final Duration START_WAIT = Duration.ofSeconds(10);

    private Approval(String name, Duration timeout, int maxStuck, SupervisorMetrics metrics) {
        this.name = name;
        this.timeout = timeout;
        this.maxStuck = maxStuck;
        this.metrics = metrics;
        if (metrics != null) metrics.approverThreadsStuck(stuck::get);
        this.executor = name == null ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "tracegate-approver");
            t.setDaemon(true);
            return t;
        });
        // its own hook, which the JVM runs beside the agent's tracegate-shutdown: that one ends every session and would
        // otherwise wait for the monitor an escalated call holds while it waits here
        if (name != null) {
            try {
                java.lang.Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "tracegate-shutdown-escalations"));
            } catch (IllegalStateException shuttingDown) {
                // built while the JVM shuts down (hot-reload recovery whose library files load during the application's
                // shutdown hooks, 07f0639): the JVM takes no hook now, and this one's work is due at once, so it is done
                // here. What that leaves: every escalation of this supervisor is refused without asking the approver, as
                // after the hook at a normal exit (SHUTTING_DOWN); nothing waits that the hook would have released.
                stopped = true;
            }
        }
    }

    static Approval load(String className, Duration timeout) {
        return load(className, timeout, DEFAULT_MAX_STUCK, null);
    }

    /** escalate.max-stuck's default. */
    static final int DEFAULT_MAX_STUCK = 8;

    /**
     * The approver named {@code className}, loaded and constructed on a {@code tracegate-approver} thread: the start
     * waits for it at most {@code escalate.timeout}, and at most {@link #START_WAIT}. One that fails within that wait
     * stops the start as any bad configuration does (an IllegalArgumentException); one that has not returned by then
     * (a constructor that connects to an approval service that does not answer) does not hold the start (trial20 06:
     * the JVM hung for ever before main, silently): an ERROR names it, and every escalation is refused at once, without
     * asking it, until its constructor returns (counted in the MBean's Approvals as not-ready).
     */
    static Approval load(String className, Duration timeout, int maxStuck, SupervisorMetrics metrics) {
        return load(className, null, timeout, maxStuck, metrics);
    }

    /** As above; {@code where} says where escalate.approver was set (file:line:col, a property), for the paragraph. */
    static Approval load(String className, String where, Duration timeout, int maxStuck, SupervisorMetrics metrics) {
        if (className == null || className.isBlank()) return new Approval(null, timeout, maxStuck, metrics);
        String name = className.trim();
        Approval a = new Approval(name, timeout, maxStuck, metrics);
        CompletableFuture<Object[]> made = new CompletableFuture<>();
        a.executor.execute(() -> {
            // the approver's constructor runs unsupervised, as its approve does
            dev.tracegate.agent.bootstrap.Dispatcher.ownThread(true);
            try {
                Class<?> type = Class.forName(name, true, ClassLoader.getSystemClassLoader());
                Method m = type.getMethod("approve", Map.class);
                if (m.getReturnType() != boolean.class) throw new NoSuchMethodException("approve(Map) must return boolean");
                made.complete(new Object[] {type.getConstructor().newInstance(), m});
            } catch (Throwable e) {
                made.completeExceptionally(e);
            } finally {
                dev.tracegate.agent.bootstrap.Dispatcher.ownThread(false);
            }
        });
        Duration wait = timeout.compareTo(START_WAIT) < 0 ? timeout : START_WAIT;
        try {
            a.ready(made.get(wait.toMillis(), TimeUnit.MILLISECONDS));
            return a;
        } catch (java.util.concurrent.ExecutionException e) {
            a.executor.shutdownNow();
            throw new IllegalArgumentException(cannotBeUsed(name, where, e.getCause()), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            a.executor.shutdownNow();
            throw new IllegalArgumentException("escalate.approver " + name + ": the start was interrupted while its constructor ran", e);
        } catch (TimeoutException e) {
            AgentLog.error("escalate.approver " + name + ": its class or constructor has not returned after " + millis(wait)
                    + " (the longest the start waits for it: escalate.timeout, at most " + START_WAIT.toSeconds() + " s), so the"
                    + " application starts supervised without it: every escalation is refused at once, without asking it, until"
                    + " its constructor returns (the MBean's Approvals count them as not-ready). A constructor that connects to"
                    + " a service should connect at its first approve call, where escalate.timeout applies", null);
            made.whenComplete((done, error) -> {
                if (error == null) {
                    a.ready(done);
                    AgentLog.warn("escalate.approver " + name + " is ready now: its constructor returned after "
                            + millis(Duration.ofNanos(System.nanoTime() - a.constructing)) + "; escalations ask it from now on");
                } else {
                    a.failed = "its constructor failed after the start (" + describe(error) + ")";
                    AgentLog.error("escalate.approver " + name + " cannot be used: " + a.failed + "; every escalation is refused"
                            + " without asking it until the JVM is restarted with a working approver", null);
                }
            });
            return a;
        }
    }

    private void ready(Object[] made) {
        approve = (Method) made[1];
        approver = made[0];   // last: ask reads the approver first
    }

    /**
     * The paragraph of an approver that cannot be used: what its constructor or static initializer threw, when one of
     * them threw (trial20 07: before, a bare InvocationTargetException and a hint about signatures that were fine),
     * and the signature it needs only when the class lacks it.
     */
    static String cannotBeUsed(String name, String where, Throwable e) {
        String head = "escalate.approver " + name + (where == null || where.isBlank() ? "" : " (" + where + ")") + " cannot be used: ";
        String fix = ". Fix what it needs (its exception says what), or remove escalate.approver (escalate contracts then refuse"
                + " their calls)";
        if (e instanceof java.lang.reflect.InvocationTargetException && e.getCause() != null) {
            return head + "its constructor threw " + e.getCause() + fix;
        }
        if (e instanceof ExceptionInInitializerError && e.getCause() != null) {
            return head + "its static initializer threw " + e.getCause() + fix;
        }
        if (e instanceof ClassNotFoundException) {
            return head + "no such class on the application's class path (" + e.getMessage() + "); check the name and the class path";
        }
        if (e instanceof ReflectiveOperationException) {   // no public no-argument constructor or approve method, an abstract class
            return head + e + "; it needs a public no-argument constructor and 'public boolean approve(java.util.Map<String,String>)'";
        }
        return head + e;
    }

    private static String describe(Throwable e) {
        Throwable cause = (e instanceof java.lang.reflect.InvocationTargetException || e instanceof ExceptionInInitializerError)
                && e.getCause() != null ? e.getCause() : e;
        return cause.toString();
    }

    private static String millis(Duration d) {
        return d.toMillis() % 1000 == 0 ? d.toSeconds() + " s" : d.toMillis() + " ms";
    }

    private void count(String outcome) {
        if (metrics != null) metrics.onApproval(outcome);
    }

    /**
     * The JVM is shutting down: every escalation waiting for the approver is refused now, as its timeout would refuse
     * it, and every later one at once, so that the escalated calls release their sessions and the shutdown ends them
     * within its own bounds instead of waiting up to {@code escalate.timeout} (trial16: a SIGTERM waited 25 s, past an
     * orchestrator's grace period). Says on standard error how many were refused, if any. Returns that number.
     */
    int stop() {
        stopped = true;
        int refused = 0;
        for (Ask a : waiting) if (a.answer.cancel(false)) refused++;
        if (refused > 0) {
            AgentLog.warn("the JVM is shutting down: " + refused + (refused == 1 ? " escalated call was" : " escalated calls were")
                    + " still waiting for the approver " + name + " and " + (refused == 1 ? "is" : "are")
                    + " refused now, as escalate.timeout (" + millis(timeout) + ") would refuse " + (refused == 1 ? "it" : "them")
                    + ", so that " + (refused == 1 ? "its session ends" : "their sessions end") + " and the audit log is written before the exit");
        }
        return refused;
    }

    Answer ask(String contract, String session, String tool, String arguments, String reason) {
        if (name == null) {
            count("none");
            return new Answer(false, "no approver is configured (escalate.approver), so the call is refused");
        }
        if (stopped) {
            count("shutting-down");
            return new Answer(false, SHUTTING_DOWN);
        }
        Object approver = this.approver;
        if (approver == null) {
            count("not-ready");
            String f = failed;
            return new Answer(false, "the approver " + name + " is not ready: " + (f != null ? f
                    : "its constructor has not returned (for " + Duration.ofNanos(System.nanoTime() - constructing).toSeconds()
                            + " s since the start)") + ", so the call is refused without asking it");
        }
        int stuckNow = stuck.get();
        if (stuckNow >= maxStuck) {
            count("not-answering");
            warnStuck(stuckNow);
            return new Answer(false, "the approver " + name + " is not answering: " + stuckNow + " of its threads are still"
                    + " running past escalate.timeout, the most escalate.max-stuck (" + maxStuck + ") allows, so the call is"
                    + " refused without asking it");
        }
        Map<String, String> request = new LinkedHashMap<>();
        request.put("contract", contract);
        request.put("session", session);
        request.put("tool", tool);
        request.put("arguments", arguments);
        request.put("reason", reason);
        Ask ask = new Ask(approver, this.approve, Map.copyOf(request));
        waiting.add(ask);
        executor.execute(ask);
        if (stopped) ask.answer.cancel(false);   // stop() ran between the check above and the add: it did not see this one
        boolean timedOut = false;
        try {
            boolean yes = ask.answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            count(yes ? "approved" : "refused");
            return new Answer(yes, yes ? "approved by " + name : "refused by " + name);
        } catch (TimeoutException e) {
            timedOut = true;
            count("timed-out");
            return new Answer(false, "the approver did not answer within " + timeout.toMillis() + " ms");
        } catch (CancellationException e) {
            count("shutting-down");
            return new Answer(false, SHUTTING_DOWN);   // only stop() cancels a wait that is still going on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            count("failed");
            return new Answer(false, "interrupted while waiting for the approver");
        } catch (Exception e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof java.lang.reflect.InvocationTargetException && cause.getCause() != null) cause = cause.getCause();
            long n = failures.count(System.nanoTime());
            if (n == 0) {
                AgentLog.error("escalation approver failed (" + name + "); the escalated call is refused, and so is every"
                        + " escalation it fails (each BLOCK line and audit record says why); said at most once a minute", cause);
            } else if (n > 0) {
                AgentLog.error("escalation approver failed " + n + " more times (" + name + ") in the last minute or more;"
                        + " those escalated calls were refused; the last", cause);
            }
            count("failed");
            return new Answer(false, "the approver failed: " + cause);
        } finally {
            waiting.remove(ask);
            // an approver still running is interrupted, and counts as stuck until it returns
            if (ask.giveUp() && timedOut && !ask.returnsWithin(stuckGrace)) warnStuck(stuck.get());
        }
    }

    /**
     * How long an escalation that timed out gives its interrupted approver to return before it says that the approver's
     * thread is stuck: one that honours the interrupt (a sleep, an interruptible wait) returns in far less, so it is not
     * reported. Only a stuck approver's escalation waits it all, and only escalate.max-stuck of them do before
     * escalations are refused at once.
     */
    static final Duration STUCK_GRACE = Duration.ofMillis(250);

    /** {@link #STUCK_GRACE}; a test that asserts an interruptible approver is not reported widens it, so a loaded host cannot make it late. */
    volatile Duration stuckGrace = STUCK_GRACE;

    /**
     * Approver threads stuck past their escalation's timeout (an approver blocked in a call that ignores interrupts, such
     * as a socket read without a timeout) keep their thread until they return (trial20 02: one thread per escalation,
     * 40 after 40 escalations, without bound and unsaid): said when an escalation's timeout leaves its approver running
     * (before, only when a later escalation found it, so an approver that hung once was never said), and when an
     * escalation is refused because escalate.max-stuck are; the first time and then at most once a minute.
     */
    private void warnStuck(int stuckNow) {
        long n = stuckWarnings.count(System.nanoTime());
        if (n < 0) return;
        AgentLog.warn("escalate.approver " + name + ": " + stuckNow + (stuckNow == 1 ? " approver thread has" : " approver threads have")
                + " not returned after escalate.timeout (" + millis(timeout) + ") refused " + (stuckNow == 1 ? "its call" : "their calls")
                + " and interrupted " + (stuckNow == 1 ? "it" : "them") + " (an approver blocked in a call that ignores interrupts,"
                + " such as a socket read without a timeout); each keeps a tracegate-approver thread until it returns. While "
                + maxStuck + " (escalate.max-stuck) are stuck, escalations are refused at once without asking the approver."
                + " The MBean's ApproverThreadsStuck shows how many now; said at most once a minute"
                + (n > 0 ? " (since the last time: " + n + (n == 1 ? " more escalation" : " more escalations")
                        + " timed out leaving its approver running or found " + maxStuck + " stuck)" : ""));
    }

    /** One request to the approver, run on a tracegate-approver thread while its escalation waits for the answer. */
    private final class Ask implements Runnable {
        final CompletableFuture<Boolean> answer = new CompletableFuture<>();
        private final Object approver;
        private final Method approve;
        private final Map<String, String> request;
        /** 0 not returned yet, 1 returned, 2 given up by its escalation before it returned (then counted in stuck). */
        private final AtomicInteger state = new AtomicInteger();
        /** Counted down when the approver has returned (or was never called), after {@link #state} is settled. */
        private final java.util.concurrent.CountDownLatch returned = new java.util.concurrent.CountDownLatch(1);
        /** The thread running it, while it runs; guarded by this object's monitor. */
        private Thread runner;

        Ask(Object approver, Method approve, Map<String, String> request) {
            this.approver = approver;
            this.approve = approve;
            this.request = request;
        }

        @Override public void run() {
            synchronized (this) {
                runner = Thread.currentThread();
            }
            // the escalated call holds its session: a tool the approver calls to decide must not wait for it (trial7 finding 18)
            dev.tracegate.agent.bootstrap.Dispatcher.ownThread(true);
            Object yes = null;
            Throwable error = null;
            try {
                if (state.get() == 0) yes = approve.invoke(approver, request);
            } catch (Throwable e) {
                error = e;
            } finally {
                dev.tracegate.agent.bootstrap.Dispatcher.ownThread(false);
                synchronized (this) {
                    runner = null;
                }
                Thread.interrupted();   // an interrupt meant for this request does not reach the pool's next one
                if (!state.compareAndSet(0, 1)) stuck.decrementAndGet();
                returned.countDown();
            }
            // answered only now, so that its escalation's giveUp() never counts an approver that returned as stuck
            if (error != null) answer.completeExceptionally(error);
            else if (yes != null) answer.complete((Boolean) yes);
        }

        /**
         * Its escalation no longer waits: an approver that has not returned is interrupted and counts as stuck until it
         * does. Whether it had not returned (it counts in ApproverThreadsStuck from now on).
         */
        boolean giveUp() {
            boolean running = state.compareAndSet(0, 2);
            if (running) stuck.incrementAndGet();
            synchronized (this) {
                if (runner != null && state.get() == 2) runner.interrupt();
            }
            return running;
        }

        /** Whether the approver returns within {@code grace} (after its interrupt); false if the waiting thread is interrupted. */
        boolean returnsWithin(Duration grace) {
            try {
                return returned.await(grace.toNanos(), TimeUnit.NANOSECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
    }
}
