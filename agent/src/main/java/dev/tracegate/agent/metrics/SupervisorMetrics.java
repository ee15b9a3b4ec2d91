package dev.tracegate.agent.metrics;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.audit.Decision;
import dev.tracegate.agent.config.FailPolicy;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;
import org.HdrHistogram.Histogram;

/**
 * Counts what the supervisor does (events, decisions, contract fires, internal errors, decision
 * latency) and shows it, with the audit log's state, as the JMX MBean {@code dev.tracegate:type=Supervisor}.
 *
 * <p>Threads: the {@code on*} methods are called by any event thread at once and never allocate
 * (the decisions and the latency in one {@link LatencyCounts}, the rarer counts striped); {@link #contracts}, {@link #audit} and
 * {@link #sessions} may be called at any time (a library swap) and are published with volatile
 * writes; the getters run on JMX threads.
 */
public final class SupervisorMetrics implements SupervisorMetricsMXBean {
    /** The MBean's name. */
    public static final String OBJECT_NAME = "dev.tracegate:type=Supervisor";

    /** Latencies above this (one hour) are recorded as this. */
    static final long MAX_LATENCY_NS = TimeUnit.HOURS.toNanos(1);
    private static final Decision[] DECISIONS = Decision.values();

    /** Decisions by kind (counters by ordinal) and their latency: two atomic adds per event, see {@link LatencyCounts}. */
    private final LatencyCounts decided = new LatencyCounts(DECISIONS.length, MAX_LATENCY_NS);
    private final LongAdder closedErrors = new LongAdder();
    private final LongAdder openErrors = new LongAdder();
    private final LongAdder reloadsRejected = new LongAdder();
    private final LongAdder evictions = new LongAdder();
    private final LongAdder sessionsEndedUnmet = new LongAdder();
    /** Sessions ended with each contract's obligation unmet, by id; counted at session ends (no event path). */
    private final java.util.concurrent.ConcurrentHashMap<String, LongAdder> unmetById = new java.util.concurrent.ConcurrentHashMap<>();
    /** Escalations by the approver's outcome (getApprovals), in a fixed order. */
    private final Map<String, LongAdder> approvals = new LinkedHashMap<>();
    {
        for (String k : new String[] {"approved", "refused", "failed", "timed-out", "not-answering", "not-ready", "shutting-down", "none"}) {
            approvals.put(k, new LongAdder());
        }
    }
    private final Map<String, LongAdder> firesById = new HashMap<>();   // guarded by this
    private volatile String[] contractIds = new String[0];
    private volatile LongAdder[] fires = new LongAdder[0];
    private volatile AuditWriter audit;
    private volatile LongSupplier sessions = () -> 0;

    // latency snapshot, guarded by this
    private final long snapshotEveryNs;
    private final Histogram interval = new Histogram(MAX_LATENCY_NS, 3);
    private final long[] read = decided.nothingRead();
    private boolean anyInterval;
    private long snapshotAt;

    /** The {@code javax.management.ObjectName} registered under, else null: held as Object so that this class needs no java.management ({@link Jmx}). */
    private Object registeredAs;
    /** The instance of this class loader now registered under {@link #OBJECT_NAME}; guarded by the class. */
    private static SupervisorMetrics registered;

    /** Metrics whose latency interval ends when read at least a second after the last one. */
    public SupervisorMetrics() {
        this(TimeUnit.SECONDS.toNanos(1));
    }

    /** Metrics whose latency interval ends when read at least {@code snapshotEveryNs} after the last one. */
    public SupervisorMetrics(long snapshotEveryNs) {
        this.snapshotEveryNs = snapshotEveryNs;
    }

    // ------------------------------------------------------------------ recording (event threads)

    /** One event decided, and how long it took (clamped to [0, 1 h]): the events are the decisions other than {@code end}. */
    public void onDecision(Decision decision, long latencyNs) {
        // a pass (most events) by reference: its ordinal is a constant, so the call does not read the enum constant, an
        // object on a page of its own that a cold call would walk to (session 18)
        decided.record(decision == Decision.PASS ? PASS : decision.ordinal(), latencyNs);
    }

    private static final int PASS = Decision.PASS.ordinal();

    /** A session ended and its {@code end} record was written (counted under {@code Decisions{end}}; no latency: no event was decided). */
    public void onSessionEnd() { decided.count(Decision.END.ordinal()); }

    /** Contract {@code index} (into the ids last given to {@link #contracts}) was acted on. */
    public void onFire(int index) {
        final LongAdder[] f = fires;
        if (index >= 0 && index < f.length) f[index].increment();
    }

    /**
     * A session ended with the obligations of {@code contractIds} unmet (its end record's {@code unmet}, one id per
     * contract); nothing when there are none. Called where END records are made, never per event.
     */
    public void onSessionEndUnmet(java.util.Collection<String> contractIds) {
        if (contractIds.isEmpty()) return;
        sessionsEndedUnmet.increment();
        for (String id : contractIds) unmetById.computeIfAbsent(id, k -> new LongAdder()).increment();
    }

    /** An internal error of the supervisor, and the policy that decided the event. */
    public void onInternalError(FailPolicy applied) {
        (applied == FailPolicy.CLOSED ? closedErrors : openErrors).increment();
    }

    /** A hot reload was rejected (the library did not load or compile) and the previous version stays: no event was decided. */
    public void onReloadRejected() { reloadsRejected.increment(); }

    /** A session was ended to make room under {@code sessions.max} (not an idle end, not an explicit one). */
    public void onEviction() { evictions.increment(); }

    private volatile java.util.function.IntSupplier approverThreadsStuck = () -> 0;

    /** Where {@link #getApproverThreadsStuck()} reads from (the approver's stuck threads). */
    public void approverThreadsStuck(java.util.function.IntSupplier stuck) { this.approverThreadsStuck = stuck; }

    @Override public int getApproverThreadsStuck() { return approverThreadsStuck.getAsInt(); }

    /** One escalation's outcome at the approver (a key of {@link #getApprovals()}; escalations are rare). */
    public void onApproval(String outcome) {
        LongAdder a = approvals.get(outcome);
        if (a == null) throw new IllegalArgumentException("unknown approval outcome " + outcome);
        a.increment();
    }

    // ------------------------------------------------------------------ wiring

    /**
     * The contracts of the library in force, by index; counts of ids seen before are kept across a
     * reload. Returns the library's own counters: a runtime that may still decide events after a newer
     * library was swapped in should count through its handle, so its indices meet its own ids.
     */
    public synchronized FireCounts contracts(String[] ids) {
        LongAdder[] table = new LongAdder[ids.length];
        for (int i = 0; i < ids.length; i++) table[i] = firesById.computeIfAbsent(ids[i], k -> new LongAdder());
        for (String id : ids) unmetById.computeIfAbsent(id, k -> new LongAdder());
        contractIds = ids.clone();
        fires = table;   // volatile write publishes the table after its cells exist
        return new FireCounts(table);
    }

    /** Fire counters of one library's contracts, by index; any thread may call {@link #fire}, which never allocates. */
    public static final class FireCounts {
        private final LongAdder[] table;

        FireCounts(LongAdder[] table) { this.table = table; }

        /** Contract {@code index} of this library was acted on (ignored if out of range). */
        public void fire(int index) {
            if (index >= 0 && index < table.length) table[index].increment();
        }
    }

    /** The audit writer whose state to show (null: none). */
    public void audit(AuditWriter writer) { this.audit = writer; }

    private volatile dev.tracegate.agent.supervision.RegisterFile registerFile;

    /** The file of the GDPR register's changes whose write failures {@link #getRegisterFileErrors()} counts. */
    public void registerFile(dev.tracegate.agent.supervision.RegisterFile file) { this.registerFile = file; }

    /** Where the number of open sessions comes from. */
    public void sessions(LongSupplier openSessions) { this.sessions = openSessions; }

    /**
     * Whether the runtime has the java.management module: a jlink'd image may leave it out (trial40 03). Without it there
     * is no MBean server, and this class must not touch one: every use of javax.management is in {@link Jmx}, so that
     * loading this class (which the supervisor needs) does not fail on such an image.
     */
    public static boolean jmxAvailable() {
        return ModuleLayer.boot().findModule("java.management").isPresent();
    }

    /** The current thread's CPU time in ns (for debug lines), 0 where it cannot be read or the runtime has no java.management. */
    public static long threadCpuNanos() {
        return jmxAvailable() ? Jmx.threadCpuNanos() : 0;
    }

    /** The WARN for a runtime without java.management when the MBean is asked for (metrics.jmx: true, the default). */
    public static final String NO_JMX = "the runtime has no java.management module (a jlink'd image without it), so the JMX MBean "
            + OBJECT_NAME + " is not registered: supervision is unaffected. To have the MBean, build the image with"
            + " jlink --add-modules ...,java.management; to silence this, set metrics.jmx: false";

    /**
     * Registers the MBean with the platform MBean server, replacing one left by an earlier agent instance; returns false
     * (and registers nothing) on a runtime without java.management ({@link #jmxAvailable}).
     */
    public boolean register() {
        if (!jmxAvailable()) return false;
        synchronized (SupervisorMetrics.class) {
            if (registered != null && registered != this) registered.registeredAs = null; // replaced: must not unregister us
            registeredAs = Jmx.register(this, OBJECT_NAME);
            registered = this;
        }
        return true;
    }

    /** Removes the MBean if this instance is the one registered. */
    public void unregister() {
        synchronized (SupervisorMetrics.class) {
            if (registeredAs == null) return;
            if (registered == this) registered = null;
            Jmx.unregister(registeredAs);
            registeredAs = null;
        }
    }

    // ------------------------------------------------------------------ reading (JMX threads)

    @Override public long getEvents() {
        long n = 0;
        for (Decision d : DECISIONS) if (d != Decision.END) n += decided.counter(d.ordinal());
        return n;
    }

    @Override public Map<String, Long> getDecisions() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Decision d : DECISIONS) m.put(d.wire(), decided.counter(d.ordinal()));
        return Collections.unmodifiableMap(m);
    }

    @Override public synchronized Map<String, Long> getFires() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String id : contractIds) m.put(id, firesById.get(id).sum());
        for (Map.Entry<String, LongAdder> e : firesById.entrySet()) m.putIfAbsent(e.getKey(), e.getValue().sum());
        return Collections.unmodifiableMap(m);
    }

    @Override public long getSessions() { return sessions.getAsLong(); }

    @Override public int getAuditQueueDepth() { AuditWriter a = audit; return a == null ? 0 : a.queueDepth(); }

    @Override public int getAuditQueueCapacity() { AuditWriter a = audit; return a == null ? 0 : a.queueCapacity(); }

    @Override public long getAuditWritten() { AuditWriter a = audit; return a == null ? 0 : a.written(); }

    @Override public long getAuditDropped() { AuditWriter a = audit; return a == null ? 0 : a.dropped(); }

    @Override public long getAuditLost() { AuditWriter a = audit; return a == null ? 0 : a.lost(); }

    @Override public long getAuditRefused() { AuditWriter a = audit; return a == null ? 0 : a.refused(); }

    @Override public long getAuditErrors() { AuditWriter a = audit; return a == null ? 0 : a.ioErrors(); }

    @Override public long getAuditStalls() { AuditWriter a = audit; return a == null ? 0 : a.stalls(); }

    @Override public long getRegisterFileErrors() { dev.tracegate.agent.supervision.RegisterFile f = registerFile; return f == null ? 0 : f.errors(); }

    @Override public boolean isAuditHealthy() { AuditWriter a = audit; return a != null && a.isHealthy(); }

    @Override public String getAuditHead() { AuditWriter a = audit; return a == null ? null : a.head(); }

    @Override public Map<String, Long> getInternalErrors() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("closed", closedErrors.sum());
        m.put("open", openErrors.sum());
        return Collections.unmodifiableMap(m);
    }

    @Override public long getReloadsRejected() { return reloadsRejected.sum(); }

    @Override public long getStderrLinesDropped() { return dev.tracegate.agent.core.AgentLog.dropped(); }

    @Override public long getEvictions() { return evictions.sum(); }

    @Override public long getSessionsEndedUnmet() { return sessionsEndedUnmet.sum(); }

    @Override public Map<String, Long> getUnmetAtEnd() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (String id : contractIds) {
            LongAdder a = unmetById.get(id);
            m.put(id, a == null ? 0L : a.sum());
        }
        for (Map.Entry<String, LongAdder> e : unmetById.entrySet()) m.putIfAbsent(e.getKey(), e.getValue().sum());
        return Collections.unmodifiableMap(m);
    }

    @Override public Map<String, Long> getApprovals() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Map.Entry<String, LongAdder> e : approvals.entrySet()) m.put(e.getKey(), e.getValue().sum());
        return Collections.unmodifiableMap(m);
    }

    @Override public synchronized long getLatencyCount() { return snapshot().getTotalCount(); }

    @Override public synchronized long getLatencyP50() { return snapshot().getValueAtPercentile(50); }

    @Override public synchronized long getLatencyP99() { return snapshot().getValueAtPercentile(99); }

    @Override public synchronized long getLatencyP999() { return snapshot().getValueAtPercentile(99.9); }

    @Override public synchronized long getLatencyMax() { return snapshot().getMaxValue(); }

    /** The last interval's histogram (read it under this lock: it is recycled); a new interval starts when it is old enough. */
    synchronized Histogram snapshot() {
        long now = System.nanoTime();
        if (!anyInterval || now - snapshotAt >= snapshotEveryNs) {
            decided.interval(read, interval);
            anyInterval = true;
            snapshotAt = now;
        }
        return interval;
    }

    /** Ends the current latency interval now (tests; a monitoring tool uses the once-a-second rule). */
    synchronized Histogram endInterval() {
        decided.interval(read, interval);
        anyInterval = true;
        snapshotAt = System.nanoTime();
        return interval;
    }
}
