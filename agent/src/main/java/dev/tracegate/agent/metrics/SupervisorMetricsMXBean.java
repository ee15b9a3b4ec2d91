package dev.tracegate.agent.metrics;

import java.util.Map;

/** What the supervisor exposes over JMX as {@code dev.tracegate:type=Supervisor}; all counts since start. */
public interface SupervisorMetricsMXBean {
    /** Events seen (every kind, every session). */
    long getEvents();

    /** Decisions taken, by decision ({@code pass}, {@code block}, ...; all are listed, zero or not). */
    Map<String, Long> getDecisions();

    /** Times each contract's violation was acted on, by contract id. */
    Map<String, Long> getFires();

    /** Sessions currently open. */
    long getSessions();

    /** Records waiting in the audit queue. */
    int getAuditQueueDepth();

    int getAuditQueueCapacity();

    /** Event records written to the audit log. */
    long getAuditWritten();

    /**
     * Audit records not written because the queue was full (drop mode, a wait past {@code audit.max-block}, a stuck writer)
     * whose events went on; a tool call refused for want of room counts in {@link #getAuditRefused()}.
     */
    long getAuditDropped();

    /**
     * Audit records not written because the log could not be written whose events went on: under {@code fail: open} all; under
     * {@code fail: closed} the results, messages, answers, consents, erasures and session ends, and records accepted before a
     * write failed.
     */
    long getAuditLost();

    /**
     * Under {@code fail: closed}, records of tool calls that did not run and are not in the log: calls refused because the
     * log could not take their record (an outage, no room in time, a stuck writer, a closed log), and blocked calls whose
     * records a failed write lost. Every record not written counts once: here, in {@link #getAuditDropped()} or in
     * {@link #getAuditLost()}.
     */
    long getAuditRefused();

    /** I/O errors of the audit log. */
    long getAuditErrors();

    /**
     * Times the audit writer was found stuck in a write that does not return (a named pipe nobody reads, a hung NFS mount):
     * the queue full and no record taken for {@code audit.max-block}, at least 2 s. {@link #isAuditHealthy()} is false
     * while it lasts, and events meet the failure policy at once instead of waiting for room. Counts each stall: a slow
     * disk that stalls on every write counts each, though their lines are said at most once a minute.
     */
    long getAuditStalls();

    /**
     * Changes of the GDPR register (erasures, consents, withdrawals) that its file ({@code register.path}) could not take:
     * they count in this JVM but a restart forgets them; each is also an internal error under the failure policy.
     */
    long getRegisterFileErrors();

    /** Whether the audit log is being written. */
    boolean isAuditHealthy();

    /**
     * The hex SHA-256 of the last audit line handed to the operating system (the writer's own record of it, not read
     * from the file): the head {@code audit verify} prints for the log cut at that line. A sidecar that stores it now
     * and then can later show that a copy of the log was not rewritten up to there (agent/CONFIG.md, "Chain and
     * canonical form"). Null before the first line is written.
     */
    String getAuditHead();

    /** Internal errors of the supervisor, by the failure policy applied ({@code closed}: event refused, {@code open}: passed). */
    Map<String, Long> getInternalErrors();

    /** Hot reloads rejected (the changed library did not load or compile; the previous version stayed in force). */
    long getReloadsRejected();

    /**
     * The agent's standard-error lines (decision lines, warnings) dropped because its queue of lines was full: standard
     * error took them too slowly or not at all (a pipe nobody reads). Since the JVM started; the audit log has every decision.
     */
    long getStderrLinesDropped();

    /**
     * Sessions that ended with an obligation unmet: a contract FAIL at the end only because the trace ended (an
     * {@code F ...} never met; the end record's {@code unmet} is not empty), whether the session was ended explicitly,
     * idle, evicted or at the JVM's exit. Each such session counts once, however many contracts it left unmet.
     */
    long getSessionsEndedUnmet();

    /**
     * Per contract id: the sessions that ended with its obligation unmet (the contracts named in the end records'
     * {@code unmet}); listed like {@link #getFires()}, the contracts of the library in force with 0 included.
     */
    Map<String, Long> getUnmetAtEnd();

    /**
     * Sessions ended to make room because {@code sessions.max} were open (the least recently used one each time); their
     * {@code end} records are among {@link #getDecisions()}'s {@code end}, with those of idle and explicit ends.
     */
    long getEvictions();

    /**
     * Escalations by what became of them at the approver ({@code escalate.approver}): {@code approved}, {@code refused}
     * (its answer), {@code failed} (it threw), {@code timed-out} (no answer within {@code escalate.timeout}),
     * {@code not-answering} (refused at once, without asking it: {@code escalate.max-stuck} of its threads were stuck),
     * {@code not-ready} (refused at once: its constructor had not returned, or failed after the start),
     * {@code shutting-down}, {@code none} (no approver configured). All are listed, zero or not.
     */
    Map<String, Long> getApprovals();

    /**
     * Approver threads running now past their escalation's timeout (refused, interrupted, not returned): each holds a
     * {@code tracegate-approver} thread until it returns; at {@code escalate.max-stuck} escalations are refused at once.
     */
    int getApproverThreadsStuck();

    /**
     * Decisions in the last latency interval (intervals end when latencies are read, at most once a second). The latency
     * of an event is its cost to the calling thread in the supervisor: the decision, an approver's wait and the wait for
     * room in the audit queue (agent/CONFIG.md, Metrics).
     */
    long getLatencyCount();

    /** Median decision latency in the last interval, nanoseconds. */
    long getLatencyP50();

    long getLatencyP99();

    long getLatencyP999();

    long getLatencyMax();
}
