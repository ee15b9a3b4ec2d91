package dev.tracegate.agent.supervision;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.EndReport;
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
    final String[] atomKeys;
    /** The contract ids and atom keys as the audit log's compact records index them. */
    final dev.tracegate.agent.audit.LibraryTable auditTable;
    /** What each contract tells the agent when it acts: its message, else its description, else its formula in English. */
    final String[] reasons;
    /** Consent tool (trimmed, lower case) -> its purposes and grant fields, written in clear in a hashed audit log. */
    final Map<String, String[]> clearArgs;
    /** Whether any consent tool is configured: most libraries have none, and every CALL's record asks. */
    private final boolean anyClearArgs;
    private final ThreadLocal<Worker> workers;

    Runtime(Library library, int version, int maxSessions, Consumer<EndReport> onEvict) {
        this.library = library;
        this.version = version;
        this.monitor = library.newMonitor(new SessionMonitor.Options(maxSessions, true), onEvict);
        this.workers = ThreadLocal.withInitial(monitor::newWorker);
        this.contractIds = library.info().stream().map(Library.ContractInfo::id).toArray(String[]::new);
        this.atomKeys = library.contracts().atoms().stream().map(a -> a.key()).toArray(String[]::new);
        this.auditTable = new dev.tracegate.agent.audit.LibraryTable(contractIds, atomKeys);
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
            // value: [subject field, purposes field, granted field or absent]; the subject is personal data
            spec.gdpr().consentTools().forEach((tool, fields) -> {
                if (fields.size() > 1) clear.put(ToolName.fold(tool), fields.subList(1, fields.size()).stream()
                        .filter(java.util.Objects::nonNull).toArray(String[]::new));
            });
        }
        this.clearArgs = Map.copyOf(clear);
        this.anyClearArgs = !clear.isEmpty();
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

    /** This thread's worker for this runtime. */
    Worker worker() { return workers.get(); }
}
