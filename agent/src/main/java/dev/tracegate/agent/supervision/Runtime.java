package dev.tracegate.agent.supervision;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.agent.audit.AuditRecord;
import dev.tracegate.engine.monitor.ContractSet;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.ToolName;

import dev.tracegate.contracts.analysis.English;
import dev.tracegate.contracts.library.LibrarySpec;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * One loaded version of the libraries with its live sessions. A hot reload creates a new runtime
 * for new sessions; sessions already running stay on the version they started with until they end,
 * so no session ever has its history judged by two different sets of automata.
 */
final class Runtime {
    final Library library;
    final SessionMonitor<Event> monitor;
    final int version;
    final String[] contractIds;
    /** {@code contractIds.length}, read by every record's {@link #verdicts} from the runtime itself, not from the array. */
    private final int contractCount;
    final String[] atomKeys;
    /** The contract ids and atom keys as the audit log's compact records index them. */
    final dev.tracegate.agent.audit.LibraryTable auditTable;
    /** What each contract tells the agent when it acts: its message, else its description, else its formula in English. */
    final String[] reasons;
    /** Consent tool (trimmed, lower case) -> its purposes and grant fields, written in clear in a hashed audit log. */
    final Map<String, String[]> clearArgs;
    /** The top-level argument fields that name a call's data subject, for the audit log's digests (see AuditRecord#subjectFields); null: none. */
    final String[] subjectArgs;
    /** Tools whose refused call had no data subject (gdpr.subject-fields named none of its arguments): warned about once each. */
    final java.util.Set<String> noSubjectWarned = java.util.concurrent.ConcurrentHashMap.newKeySet();
    /** Whether any consent tool is configured: most libraries have none, and every CALL's record asks. */
    private final boolean anyClearArgs;
    private final dev.tracegate.engine.monitor.Scratch<Worker> workers;
    /** 1 for each contract an environment event has made FAIL in some session of this runtime (warned about once). */
    private final java.util.concurrent.atomic.AtomicIntegerArray violatedByEnvironment;

    /**
     * One step of a session the caller holds the monitor of and has seen open ({@code applied() >= 0}). Ending a
     * session takes the same monitor, so the monitor cannot answer CLOSED here; if it ever does, that is a bug,
     * and it is raised as one, so that the caller's failure policy decides about the event and counts it instead
     * of the event passing unchecked (a CLOSED decision is not refused).
     */
    Decision step(Session s, Event e, boolean agent, boolean enforce, Worker w) {
        Decision d = monitor.step(s, e, agent, enforce, w);
        if (d != Decision.PASS && d.kind() == Decision.Kind.CLOSED) throw closedUnderItsMonitor(s);   // PASS by reference: see Worker#packedAfter
        return d;
    }

    /** {@link #step} for an event an approver excused for the contracts {@code excused}. */
    Decision stepExcusing(Session s, Event e, boolean agent, int[] excused, boolean enforce, Worker w) {
        Decision d = monitor.stepExcusing(s, e, agent, excused, enforce, w);
        if (d.kind() == Decision.Kind.CLOSED) throw closedUnderItsMonitor(s);
        return d;
    }

    /** True the first time contract {@code c} is made FAIL by an environment event in any session of this runtime. */
    boolean firstViolationByEnvironment(int c) {
        return violatedByEnvironment.get(c) == 0 && violatedByEnvironment.compareAndSet(c, 0, 1);
    }

    private static IllegalStateException closedUnderItsMonitor(Session s) {
        return new IllegalStateException("session " + s.id() + " was closed while its event was being decided under the session's lock");
    }

    Runtime(Library library, int version, int maxSessions, Consumer<EndReport> onEvict) {
        this.library = library;
        this.version = version;
        this.monitor = library.newMonitor(new SessionMonitor.Options(maxSessions, true), onEvict);
        this.workers = new dev.tracegate.engine.monitor.Scratch<>(monitor::newWorker);
        this.contractIds = library.info().stream().map(Library.ContractInfo::id).toArray(String[]::new);
        this.contractCount = contractIds.length;
        this.violatedByEnvironment = new java.util.concurrent.atomic.AtomicIntegerArray(contractIds.length);
        this.atomKeys = library.contracts().atoms().stream().map(a -> a.key()).toArray(String[]::new);
        this.auditTable = new dev.tracegate.agent.audit.LibraryTable(contractIds, atomKeys, library.digest());
        this.reasons = new String[contractIds.length];
        for (int i = 0; i < reasons.length; i++) {
            Library.ContractInfo c = library.info().get(i);
            reasons[i] = c.message() != null && !c.message().isBlank() ? c.message().trim()
                    : c.description() != null && !c.description().isBlank() ? c.description().trim()
                    : English.of(library.contracts().contracts().get(i).guarantee());
        }
        Map<String, String[]> clear = new HashMap<>();
        for (LibrarySpec spec : library.specs()) {
            if (spec.gdpr() == null || spec.gdpr().consentTools() == null) continue;
            // value: [subject field, purposes field, granted field, listed purposes, fixed granted]; the subject is personal data
            spec.gdpr().consentTools().forEach((tool, fields) -> {
                if (fields.size() > 1) clear.put(ToolName.fold(tool), fields.subList(1, Math.min(3, fields.size())).stream()
                        .filter(java.util.Objects::nonNull).toArray(String[]::new));
            });
        }
        this.clearArgs = Map.copyOf(clear);
        this.anyClearArgs = !clear.isEmpty();
        java.util.Set<String> subjects = new java.util.LinkedHashSet<>();
        for (LibrarySpec spec : library.specs()) {
            if (spec.gdpr() == null) continue;
            if (spec.gdpr().subjectFields() != null) subjects.addAll(spec.gdpr().subjectFields());
            if (spec.gdpr().consentTools() != null) spec.gdpr().consentTools().values().forEach(f -> { if (!f.isEmpty() && f.get(0) != null) subjects.add(f.get(0)); });
            if (spec.gdpr().erasureTools() != null) subjects.addAll(spec.gdpr().erasureTools().values());
        }
        subjects.removeIf(f -> f == null || f.indexOf('.') >= 0);   // top-level fields only: a path's value is inside an object
        this.subjectArgs = subjects.isEmpty() ? null : subjects.toArray(new String[0]);
        // a call without a data subject let through by the session's consent: said once per tool (the grounding's flag)
        library.grounding().onSubjectNote(cause -> {
            java.util.List<String> files = library.subjectFieldsDeclaredIn();
            dev.tracegate.agent.core.AgentLog.warn("a call of " + cause + (files.isEmpty() ? "" : "; gdpr.subject-fields is declared in "
                    + String.join(", ", files)) + ". If its calls concern a data subject, add the argument that holds the subject's id"
                    + " (e.g. the e-mail address; a path such as customer.email for a field of an object argument) to"
                    + " gdpr.subject-fields (docs/LIBRARY.md, \"The data subject of a call\"). Said once per tool");
        });
    }

    /** What contract {@code c} of this runtime tells the agent (see {@link #reasons}). */
    String says(Library.ContractInfo c) {
        int i = library.info().indexOf(c);
        return i < 0 ? c.message() : reasons[i];
    }

    /**
     * The fields of a call of {@code e}'s tool to write in clear, or null; the event's folded name, else its bare
     * MCP name ({@code mcp__server__t}), as contracts match tool names.
     */
    String[] clearArgsOf(Event e) {
        if (!anyClearArgs || e.toolKey() == null) return null;
        String[] f = clearArgs.get(e.toolKey());
        return f != null ? f : clearArgs.get(e.toolBare());
    }

    /** This thread's worker for this runtime (lent on a virtual thread): {@link #giveBack} it when the event is decided. */
    Worker worker() { return workers.take(); }

    /** Gives back a worker {@link #worker} lent (nothing to do on a platform thread). */
    void giveBack(Worker w) { workers.give(w); }

    /** A state vector that fits one packed word and its contracts' verdict codes as {@link #verdicts} packs them. */
    private record Verdicts(long state, long codes) {}

    /**
     * Verdict codes of recently seen one-word state vectors, by a hash of the state: a call that passes mostly leaves
     * the states as they were, so a record's verdicts are one lookup instead of an unpack and a reading per contract.
     * Entries are immutable and replaced whole; racing threads at worst compute the same entry twice.
     */
    private final Verdicts[] verdictMemo = new Verdicts[64];

    /** Each contract's verdict after worker {@code w}'s last step ({@code d}) into the record: packed in one long (no allocation) up to 32 contracts. */
    void verdicts(AuditRecord r, Worker w, Decision d) {
        int n = contractCount;
        if (n > 32) {
            int[] states = w.statesAfter(d);
            byte[] out = new byte[n];
            for (int c = 0; c < n; c++) out[c] = code(library.contracts().verdict(c, states));
            r.verdicts(auditTable, out);
            return;
        }
        long[] packed = w.packedAfter(d);
        if (packed.length != 1) {
            r.verdicts(auditTable, codes(w.statesAfter(d)));
            return;
        }
        long state = packed[0];
        int slot = (int) ((state * 0x9E3779B97F4A7C15L) >>> 58);   // 64 slots
        Verdicts v = verdictMemo[slot];
        if (v == null || v.state != state) {
            v = new Verdicts(state, codes(w.statesAfter(d)));
            verdictMemo[slot] = v;
        }
        r.verdicts(auditTable, v.codes);
    }

    /** The verdict codes of up to 32 contracts in the state vector {@code states}, two bits each. */
    private long codes(int[] states) {
        ContractSet set = library.contracts();
        long packed = 0;
        for (int c = 0; c < contractIds.length; c++) packed |= (long) code(set.verdict(c, states)) << (2 * c);
        return packed;
    }

    /** The audit log's code of a verdict. */
    static byte code(Verdict v) {
        return switch (v) {
            case IDLE -> AuditRecord.IDLE;
            case ACTIVE -> AuditRecord.ACTIVE;
            case FAIL -> AuditRecord.FAIL;
        };
    }
}
