package dev.tracegate.it.agentdojo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.imports.AgentDojoImporter;
import dev.tracegate.matchers.imports.RunInfo;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The offline side: a run imported with the matchers' {@link AgentDojoImporter} and replayed with the
 * engine's {@link Replay} under the same libraries the agent loads ({@code injection} and the suite's
 * generated {@code builtin:agentdojo/<suite>}), in the order a LangChain4j tool loop produces events.
 *
 * <p>That order differs from the imported trace in exactly two ways, both forced by the framework:
 * <ol>
 *   <li>LangChain4j runs a turn's tool calls one after another, each through its own
 *       {@code executeWithErrorHandling}, so each CALL is followed by its RETURN before the next CALL
 *       (the import lists a turn's CALLs first, then their RETURNs, as the message log does);</li>
 *   <li>a refused CALL never runs, so it has no RETURN: the agent hands the model the block notice in
 *       place of a result, and no tool result is intercepted.</li>
 * </ol>
 * Everything else (which events, their content, the library, the decisions) is the imported trace as
 * it is. {@link #importedOrder} replays the import in its own order, with or without the refused calls'
 * results, to report which of the two differences changes a decision.
 */
final class OfflineDecisions {

    /** One run replayed offline in framework order. */
    record Run(RunInfo info, Path file, List<Observed> events, int droppedReturns) {}

    private final Path dataset;
    private final AgentDojoImporter importer;
    private final Map<String, Library> libraries = new HashMap<>();

    OfflineDecisions(Path dataset) {
        this.dataset = dataset;
        this.importer = new AgentDojoImporter(dataset);
    }

    /** The library sources the agent is configured with for a suite, in the evaluation's order. */
    static List<String> librariesOf(String suite) {
        return List.of("injection", "builtin:agentdojo/" + suite);
    }

    Library library(String suite) {
        return libraries.computeIfAbsent(suite, s -> Library.load(librariesOf(s), dataset));
    }

    /** The run's imported events; its labels go to {@code info[0]}. */
    List<Event> imported(Path file, RunInfo[] info) throws IOException {
        List<Event> events = new ArrayList<>();
        info[0] = importer.importRun(file, events::add);
        return events;
    }

    /** The run replayed in the order the framework produces its events, with the END verdicts last. */
    Run frameworkOrder(Path file) throws IOException {
        RunInfo[] info = new RunInfo[1];
        List<Event> events = imported(file, info);
        Library lib = library(info[0].suite());
        Replay<Event> replay = lib.replay(info[0].session());
        List<Observed> out = new ArrayList<>();
        boolean[] taken = new boolean[events.size()];
        int ordinal = 0;
        int dropped = 0;
        for (int i = 0; i < events.size(); i++) {
            if (taken[i]) continue;
            Event e = events.get(i);
            int call = e.kind() == EventKind.CALL ? ordinal++ : -1;
            Observed o = step(lib, replay, e, call);
            out.add(o);
            if (e.kind() != EventKind.CALL) continue;
            int r = returnOf(events, i, taken);
            if (r < 0) continue; // a call the log never answered: no RETURN on either side
            taken[r] = true;
            if (o.decision().equals("block")) {
                dropped++;
                continue;
            }
            out.add(step(lib, replay, events.get(r), call));
        }
        out.add(end(lib, replay));
        return new Run(info[0], file, out, dropped);
    }

    /**
     * The decisions of the run's CALLs (by ordinal) when the import is replayed in its own order, as the
     * offline evaluation does; with {@code dropRefusedResults} a refused call's RETURN is left out (as
     * online, replay --mode enforce and, since ec9cf93, the evaluation), without it the recorded result is
     * applied (as the evaluation did before).
     */
    List<String> importedOrder(Path file, boolean dropRefusedResults) throws IOException {
        RunInfo[] info = new RunInfo[1];
        List<Event> events = imported(file, info);
        Library lib = library(info[0].suite());
        Replay<Event> replay = lib.replay(info[0].session());
        List<String> calls = new ArrayList<>();
        boolean[] skip = new boolean[events.size()];
        for (int i = 0; i < events.size(); i++) {
            if (skip[i]) continue;
            Event e = events.get(i);
            Observed o = step(lib, replay, e, -1);
            if (e.kind() != EventKind.CALL) continue;
            calls.add(o.decision() + o.fired());
            int r = returnOf(events, i, skip);
            if (dropRefusedResults && r >= 0 && o.decision().equals("block")) skip[r] = true;
        }
        return calls;
    }

    /** The first RETURN after {@code call} that answers it (same call id and tool) and is not yet taken. */
    private static int returnOf(List<Event> events, int call, boolean[] taken) {
        Event c = events.get(call);
        for (int j = call + 1; j < events.size(); j++) {
            Event r = events.get(j);
            if (!taken[j] && r.kind() == EventKind.RETURN && java.util.Objects.equals(r.callId(), c.callId()) && r.tool().equals(c.tool())) {
                return j;
            }
        }
        return -1;
    }

    private static Observed step(Library lib, Replay<Event> replay, Event e, int ordinal) {
        Replay.Step s = replay.next(e, e.controlledByAgent(), true);
        List<String> fired = new ArrayList<>();
        for (int c : s.contracts()) fired.add(lib.info().get(c).id());
        List<String> atoms = new ArrayList<>();
        var table = lib.contracts().atoms();
        for (int a = 0; a < table.size(); a++) {
            if ((s.valuation()[a >>> 6] >>> a & 1) != 0) atoms.add(table.get(a).key());
        }
        atoms.sort(null);
        JsonNode args = e.kind() == EventKind.CALL ? e.args().root() : null;
        return new Observed(e.kind().name().toLowerCase(), e.seq(), ordinal, e.tool(), args,
                e.kind() == EventKind.USER || e.kind() == EventKind.ASSISTANT ? e.text() : null,
                e.kind() == EventKind.RETURN ? e.result() : null, e.error(), wire(e, s.decision()), fired, atoms, verdicts(lib, s.verdicts()));
    }

    /** The audit log's word for an offline decision: what the agent does with the event. */
    private static String wire(Event e, Decision.Kind kind) {
        return switch (kind) {
            case BLOCK, UNEVALUABLE -> "block";
            case SUPPRESS -> "suppress";
            case PASS, VIOLATION -> "pass"; // an environment event that breaks a guarantee is let through and named
            case CLOSED -> throw new IllegalStateException("offline replay never closes a session early, yet " + e + " was refused as closed");
        };
    }

    private static Observed end(Library lib, Replay<Event> replay) {
        EndReport r = replay.end();
        return new Observed("end", r.events() + 1, -1, null, null, null, null, false, "end", List.of(), List.of(),
                verdicts(lib, r.verdicts().toArray(new Verdict[0])));
    }

    private static Map<String, String> verdicts(Library lib, Verdict[] v) {
        Map<String, String> out = new LinkedHashMap<>();
        for (int c = 0; c < v.length; c++) out.put(lib.info().get(c).id(), v[c].name());
        return out;
    }
}
