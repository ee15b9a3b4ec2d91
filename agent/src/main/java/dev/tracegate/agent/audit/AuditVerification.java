package dev.tracegate.agent.audit;

/** The outcome of checking an audit log's hash chain: intact, intact but cut short by a crash, or bad at a given line. */
public final class AuditVerification {

    /** The three outcomes. */
    public enum Status {
        /** Every line verifies. */
        OK,
        /** Every complete line verifies; the last line has no line end (the writer was killed mid-write): not tampering. */
        TRUNCATED,
        /** A line does not verify: the log was changed, or is not an audit log. */
        BAD
    }

    private final Status status;
    private final long lines;
    private final long records;
    private final long badLine;
    private final String reason;
    private final String head;
    private long unsupervised;
    private long dropped;
    private long firstDrop;
    private java.util.Map<String, Long> dropReasons = java.util.Map.of();

    AuditVerification(Status status, long lines, long records, long badLine, String reason, String head) {
        this.status = status;
        this.lines = lines;
        this.records = records;
        this.badLine = badLine;
        this.reason = reason;
        this.head = head;
    }

    AuditVerification unsupervised(long n) {
        this.unsupervised = n;
        return this;
    }

    AuditVerification dropped(long n, long firstLine, java.util.Map<String, Long> byReason) {
        this.dropped = n;
        this.firstDrop = firstLine;
        this.dropReasons = byReason;
        return this;
    }

    /**
     * Events the writer noted it did not write, in the verified lines: the counts of its {@code dropped} records, whatever
     * their reason (a full queue, an I/O outage, events refused during one).
     */
    public long dropped() { return dropped; }

    public Status status() { return status; }

    /** Whether the chain verified completely (status OK). */
    public boolean ok() { return status == Status.OK; }

    /** Complete lines that verified: records of every type (headers and dropped notes included), one per line. */
    public long lines() { return lines; }

    /** Records of type {@code event} among the lines that verified. */
    public long records() { return records; }

    /** The 1-based number of the first line that did not verify (BAD), or of the truncated line (TRUNCATED); 0 when OK. */
    public long badLine() { return badLine; }

    /** Why the line is bad or truncated; null when OK. */
    public String reason() { return reason; }

    /** Runs in the verified lines that the agent did not supervise ({@code unsupervised} records: it could not start). */
    public long unsupervised() { return unsupervised; }

    /** The hex SHA-256 of the last line that verified (compare it with a copy kept elsewhere); the genesis value if none. */
    public String head() { return head; }

    /** One line for a person: what was found and where. */
    public String describe() {
        switch (status) {
            case OK:
                return "ok: " + counted(lines) + ", chain intact; head " + head + unsupervisedRuns() + droppedEvents();
            case TRUNCATED:
                return "clean prefix of " + counted(lines) + ", last line truncated (line " + badLine + ": " + reason
                        + "); the writer stopped mid-line, which a crash or kill does, and so does a disk that filled up mid-write and"
                        + " was still full at the exit (the agent's stderr then has 'ERROR the audit log ... could not be written at"
                        + " exit'); this is not tampering" + unsupervisedRuns() + droppedEvents();
            default:
                return "line " + badLine + ": " + reason + " (the " + counted(lines) + " before it verify)";
        }
    }

    /**
     * For a TRUNCATED file read with {@code --live}: one line saying that the complete lines verify and that the last
     * one, which has no line end yet, is being written and was not checked.
     */
    public String describeLive() {
        return "ok: " + counted(lines) + ", chain intact up to the last complete line; head " + head + "; line " + badLine
                + " has no line end yet: it is being written, not checked (--live)" + unsupervisedRuns() + droppedEvents();
    }

    private String droppedEvents() {
        if (dropped == 0) return "";
        StringBuilder why = new StringBuilder();
        for (java.util.Map.Entry<String, Long> r : dropReasons.entrySet()) {
            if (r.getValue() <= 0) continue;
            if (why.length() > 0) why.append("; ");
            why.append(dropReasons.size() > 1 ? r.getValue() + " " : "").append(explain(r.getKey()));
        }
        return "; but " + dropped + (dropped == 1 ? " event was" : " events were") + " not written (dropped records from line " + firstDrop
                + ": " + why + "), so the log does not hold every event of its runs";
    }

    /** What a {@code dropped} record's reason means, in the words of agent/CONFIG.md ("The audit log", {@code dropped}). */
    public static String explain(String reason) {
        switch (reason) {
            case "queue-full":
                // the events went on unrecorded; logs written before QUEUE_FULL_REFUSED_REASON count fail: closed's refusals here too
                return "queue-full: the audit queue was full, with audit.on-full: drop or a wait longer than audit.max-block";
            case AuditWriter.QUEUE_FULL_REFUSED_REASON:
                return AuditWriter.QUEUE_FULL_REFUSED_REASON + ": records of tool calls refused under fail: closed, as the audit queue"
                        + " stayed full for longer than audit.max-block (or its writer was stuck): these calls did not run";
            case AuditWriter.TRUNCATED_REASON:
                return AuditWriter.TRUNCATED_REASON + ": the file was truncated under the running writer (logrotate copytruncate),"
                        + " which started a new segment at its beginning; these records were not yet written then and chained from"
                        + " lines the truncation removed (the events went on); records written between the copy and the truncation"
                        + " are in neither file and counted nowhere";
            case "io-error":
                return "io-error: lost while the log could not be written, the events went on unrecorded (records held when a write"
                        + " failed; under fail: closed the results, messages, answers and session ends of the outage; under fail: open"
                        + " every event of it)";
            case AuditWriter.IO_ERROR_REFUSED_REASON:
                return AuditWriter.IO_ERROR_REFUSED_REASON + ": records of tool calls that did not run, as the log could not be written"
                        + " and fail: closed refused them (or a contract had)";
            case "queue-full (events refused)":   // agents before trial20: calls and the events that went on alike
                return "queue-full (events refused): the audit queue stayed full for longer than audit.max-block under fail: closed;"
                        + " written by an older agent, this count holds the refused tool calls together with the results, messages,"
                        + " answers and session ends that went on unrecorded";
            case "io-error (events refused)":   // agents before trial20
                return "io-error (events refused): the log could not be written under fail: closed; written by an older agent, this"
                        + " count holds the refused tool calls together with the results, messages, answers and session ends that went on"
                        + " unrecorded, and records held when a write failed";
            default:
                return reason.isEmpty() ? "no reason given" : "reason " + reason;
        }
    }

    private String unsupervisedRuns() {
        if (unsupervised == 0) return "";
        return "; " + unsupervised + (unsupervised == 1 ? " run was" : " runs were") + " not supervised (the agent could not start:"
                + " see the unsupervised " + (unsupervised == 1 ? "record" : "records") + " for why)";
    }

    /** "30 records (29 events)": every line is a record (header, event, dropped); events are counted apart. */
    private String counted(long n) {
        return n + (n == 1 ? " record (" : " records (") + records + (records == 1 ? " event)" : " events)");
    }

    @Override public String toString() { return describe(); }
}
