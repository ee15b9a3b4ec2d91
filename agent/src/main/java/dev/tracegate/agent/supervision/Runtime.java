package dev.tracegate.agent.supervision;

import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;

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
    private final ThreadLocal<Worker> workers;

    Runtime(Library library, int version, int maxSessions, Consumer<EndReport> onEvict) {
        this.library = library;
        this.version = version;
        this.monitor = library.newMonitor(new SessionMonitor.Options(maxSessions, true), onEvict);
        this.workers = ThreadLocal.withInitial(monitor::newWorker);
        this.contractIds = library.info().stream().map(Library.ContractInfo::id).toArray(String[]::new);
        this.atomKeys = library.contracts().atoms().stream().map(a -> a.key()).toArray(String[]::new);
    }

    /** This thread's worker for this runtime. */
    Worker worker() { return workers.get(); }
}
