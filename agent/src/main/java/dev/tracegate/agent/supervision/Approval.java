package dev.tracegate.agent.supervision;

import dev.tracegate.agent.core.AgentLog;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

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

    private final Object approver;
    private final Method approve;
    private final Duration timeout;
    private final ExecutorService executor;
    /** The approvers' answers being waited for now (escalations are rare: a set entry each is no hot-path cost). */
    private final Set<Future<Object>> waiting = ConcurrentHashMap.newKeySet();
    private volatile boolean stopped;

    /** The note of an escalation refused because the JVM is shutting down. */
    static final String SHUTTING_DOWN = "the JVM is shutting down, so the approver's answer can no longer be waited for"
            + " (refused as at escalate.timeout)";

    private Approval(Object approver, Method approve, Duration timeout) {
        this.approver = approver;
        this.approve = approve;
        this.timeout = timeout;
        this.executor = approver == null ? null : Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "tracegate-approver");
            t.setDaemon(true);
            return t;
        });
        // its own hook, which the JVM runs beside the agent's tracegate-shutdown: that one ends every session and would
        // otherwise wait for the monitor an escalated call holds while it waits here
        if (approver != null) java.lang.Runtime.getRuntime().addShutdownHook(new Thread(this::stop, "tracegate-shutdown-escalations"));
    }

    static Approval load(String className, Duration timeout) {
        if (className == null || className.isBlank()) return new Approval(null, null, timeout);
        try {
            ClassLoader app = ClassLoader.getSystemClassLoader();
            Class<?> type = Class.forName(className.trim(), true, app);
            Method m = type.getMethod("approve", Map.class);
            if (m.getReturnType() != boolean.class) throw new NoSuchMethodException("approve(Map) must return boolean");
            return new Approval(type.getConstructor().newInstance(), m, timeout);
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new IllegalArgumentException("escalate.approver " + className + " cannot be used (" + e
                    + "); it needs a public no-argument constructor and 'public boolean approve(java.util.Map<String,String>)'", e);
        }
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
        for (Future<Object> f : waiting) if (f.cancel(true)) refused++;
        if (refused > 0) {
            AgentLog.warn("the JVM is shutting down: " + refused + (refused == 1 ? " escalated call was" : " escalated calls were")
                    + " still waiting for the approver " + approver.getClass().getName() + " and " + (refused == 1 ? "is" : "are")
                    + " refused now, as escalate.timeout (" + (timeout.toMillis() % 1000 == 0 ? timeout.toSeconds() + " s" : timeout.toMillis() + " ms") + ") would refuse " + (refused == 1 ? "it" : "them")
                    + ", so that " + (refused == 1 ? "its session ends" : "their sessions end") + " and the audit log is written before the exit");
        }
        return refused;
    }

    Answer ask(String contract, String session, String tool, String arguments, String reason) {
        if (approver == null) return new Answer(false, "no approver is configured (escalate.approver), so the call is refused");
        if (stopped) return new Answer(false, SHUTTING_DOWN);
        Map<String, String> request = new LinkedHashMap<>();
        request.put("contract", contract);
        request.put("session", session);
        request.put("tool", tool);
        request.put("arguments", arguments);
        request.put("reason", reason);
        Future<Object> f = executor.submit(() -> {
            // the escalated call holds its session: a tool the approver calls to decide must not wait for it (trial7 finding 18)
            dev.tracegate.agent.bootstrap.Dispatcher.ownThread(true);
            try {
                return approve.invoke(approver, Map.copyOf(request));
            } finally {
                dev.tracegate.agent.bootstrap.Dispatcher.ownThread(false);
            }
        });
        waiting.add(f);
        if (stopped) f.cancel(true);   // stop() ran between the check above and the add: it did not see this one
        try {
            boolean yes = (Boolean) f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return new Answer(yes, yes ? "approved by " + approver.getClass().getName() : "refused by " + approver.getClass().getName());
        } catch (TimeoutException e) {
            f.cancel(true);
            return new Answer(false, "the approver did not answer within " + timeout.toMillis() + " ms");
        } catch (CancellationException e) {
            return new Answer(false, SHUTTING_DOWN);   // only stop() cancels a wait that is still going on
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Answer(false, "interrupted while waiting for the approver");
        } catch (Exception e) {
            Throwable cause = e instanceof java.util.concurrent.ExecutionException && e.getCause() != null ? e.getCause() : e;
            if (cause instanceof java.lang.reflect.InvocationTargetException && cause.getCause() != null) cause = cause.getCause();
            AgentLog.error("escalation approver failed", cause);
            return new Answer(false, "the approver failed: " + cause);
        } finally {
            waiting.remove(f);
        }
    }
}
