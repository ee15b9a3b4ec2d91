package dev.tracegate.contracts.eval;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.engine.monitor.Decision;
import dev.tracegate.engine.monitor.Replay;
import dev.tracegate.engine.monitor.Session;
import dev.tracegate.engine.monitor.SessionMonitor;
import dev.tracegate.engine.monitor.Worker;
import dev.tracegate.matchers.event.Event;
import dev.tracegate.matchers.event.EventKind;
import dev.tracegate.matchers.imports.AgentDojoImporter;
import dev.tracegate.matchers.trace.TraceReader;
import dev.tracegate.matchers.trace.TraceWriter;
import org.junit.jupiter.api.Test;

import java.io.StringReader;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The library's {@code injection.provenance} grounding against the independent offline wrapper it
 * replaced ({@link OfflineProvenance}), event by event on all recorded AgentDojo runs; and the path
 * the agent and the {@code replay} command take (libraries loaded by name, JSONL traces, a
 * {@link SessionMonitor}, the session moved through its byte form after every event) against the decisions
 * the evaluation scores ({@link AgentDojoEvaluation#steps}: a refused call's recorded result left out, as replay does).
 */
class ProvenanceOracleTest {

    /** The wrapper's rules for a row, with link payloads and fetch tools read from side_effect_tools.json as the wrapper's callers did. */
    private static OfflineProvenance.Rules rules(java.nio.file.Path data, OfflineProvenance.Endorse endorse, boolean all) throws Exception {
        Map<String, List<String>> links = new HashMap<>();
        Set<String> fetch = new HashSet<>();
        new ObjectMapper().readTree(data.resolve("side_effect_tools.json").toFile()).properties().forEach(suite -> {
            if (suite.getKey().startsWith("_")) return;
            for (AgentDojoPolicies.Tool t : AgentDojoPolicies.tools(suite.getKey(), suite.getValue(), "side_effect_tools.json")) {
                if (t.kinds().contains("outbound_message") && !t.payloads().isEmpty()) links.put(t.name(), t.payloads());
                if (t.kinds().iterator().next().equals("outbound_request")) fetch.add(t.name());
            }
        });
        return all ? new OfflineProvenance.Rules(true, true, true, endorse, links, true, fetch)
                : new OfflineProvenance.Rules(false, false, false, endorse, Map.of(), false, Set.of());
    }

    private record Row(String name, OfflineProvenance.Rules wrapper, AgentDojoEvaluation.Defence defence) {}

    @Test
    void theLibraryGroundingDecidesEveryEventOfEveryRunLikeTheOfflineWrapper() throws Exception {
        java.nio.file.Path data = AgentDojoData.dir();
        Map<String, AgentDojoEvaluation.Defence> byName = new HashMap<>();
        for (AgentDojoEvaluation.Defence d : AgentDojoEvaluation.defences()) byName.put(d.name(), d);
        List<Row> rows = List.of(
                new Row("+ whole-word provenance", rules(data, OfflineProvenance.Endorse.NONE, false), byName.get("+ whole-word provenance")),
                new Row(AgentDojoEvaluation.RECOMMENDED, rules(data, OfflineProvenance.Endorse.NONE, true), byName.get(AgentDojoEvaluation.RECOMMENDED)),
                new Row("endorsed sources, transitively", rules(data, OfflineProvenance.Endorse.TRANSITIVE, true),
                        byName.get("endorsed sources, transitively")),
                new Row("endorsed records", rules(data, OfflineProvenance.Endorse.RECORD, true), byName.get("endorsed records")));
        Map<String, Library> plain = new HashMap<>(), ours = new HashMap<>();
        int[] events = {0}, blocks = {0}, runs = {0};
        List<String> differences = new ArrayList<>();
        new AgentDojoImporter(data, null).forEachRun((run, es) -> {
            runs[0]++;
            for (Row row : rows) {
                Library p = plain.computeIfAbsent(run.suite() + row.name(), s -> AgentDojoEvaluation.compile(
                        AgentDojoEvaluation.specs(run.suite()), id -> true, AgentDojoEvaluation.Defence.plain()));
                Library l = ours.computeIfAbsent(run.suite() + row.name(), s -> AgentDojoEvaluation.compile(
                        AgentDojoEvaluation.specs(run.suite()), id -> true, row.defence().provenance()));
                Replay<Event> oracle = new Replay<>(p.contracts(), new OfflineProvenance(p, row.wrapper()), true, run.session());
                Replay<Event> replay = l.replay(run.session());
                for (Event e : es) {
                    Replay.Step want = oracle.next(e, e.controlledByAgent(), true);
                    Replay.Step got = replay.next(e, e.controlledByAgent(), true);
                    events[0]++;
                    if (want.decision() == Decision.Kind.BLOCK) blocks[0]++;
                    if (want.decision() != got.decision() || !Arrays.equals(want.contracts(), got.contracts())) {
                        differences.add(row.name() + " " + run.session() + " seq " + e.seq() + ": wrapper " + want.decision()
                                + Arrays.toString(want.contracts()) + ", library " + got.decision() + Arrays.toString(got.contracts()));
                    }
                }
            }
        });
        assertThat(runs[0]).isEqualTo(753);
        assertThat(blocks[0]).as("the comparison covers blocked events").isGreaterThan(1000);
        assertThat(differences).as("events compared: %d", events[0]).isEmpty();
    }

    @Test
    void theAgentAndReplayPathGivesTheEvaluationsDecisions() throws Exception {
        java.nio.file.Path data = AgentDojoData.dir();
        Map<String, Library> evaluated = new HashMap<>();
        Map<String, SessionMonitor<Event>[]> monitors = new HashMap<>();
        int[] moved = {0}, notApplied = {0};
        List<String> differences = new ArrayList<>();
        new AgentDojoImporter(data, null).forEachRun((run, es) -> {
            Library lib = evaluated.computeIfAbsent(run.suite(), s -> AgentDojoEvaluation.compile(AgentDojoEvaluation.specs(s), id -> true,
                    AgentDojoEvaluation.Defence.asWritten()));
            // the CLI and the agent load the libraries by name and step a SessionMonitor over JSONL events
            @SuppressWarnings("unchecked")
            SessionMonitor<Event>[] pair = monitors.computeIfAbsent(run.suite(), s -> {
                Library loaded = Library.load(List.of("injection", "builtin:agentdojo/" + s), null);
                return new SessionMonitor[] {loaded.newMonitor(SessionMonitor.Options.DEFAULT, r -> {}),
                        loaded.newMonitor(SessionMonitor.Options.DEFAULT, r -> {})};
            });
            try {
                StringWriter jsonl = new StringWriter();
                try (TraceWriter w = new TraceWriter(jsonl)) {
                    for (Event e : es) w.write(e);
                }
                // the evaluation's decisions: a refused call's recorded result is not applied (as replay --mode enforce)
                List<Replay.Step> steps = AgentDojoEvaluation.steps(lib, run.session(), es);
                Worker[] workers = {pair[0].newWorker(), pair[1].newWorker()};
                int at = 0;
                Session s = pair[at].session(run.session());
                try (TraceReader in = new TraceReader(new StringReader(jsonl.toString()), run.session() + ".jsonl", TraceReader.Mode.STRICT)) {
                    int i = 0;
                    for (Event e = in.next(); e != null; e = in.next(), i++) {
                        Replay.Step want = steps.get(i);
                        if (e.kind() == EventKind.END) continue;
                        if (want == null) {   // left out by the evaluation: the monitor does not see it either
                            notApplied[0]++;
                            continue;
                        }
                        Decision got = pair[at].step(s, e, e.controlledByAgent(), true, workers[at]);
                        int[] cs = new int[got.contractCount()];
                        for (int k = 0; k < cs.length; k++) cs[k] = got.contract(k);
                        Arrays.sort(cs);
                        int[] wc = want.contracts().clone();
                        Arrays.sort(wc);
                        if (want.decision() != got.kind() || !Arrays.equals(wc, cs)) {
                            differences.add(run.session() + " seq " + e.seq() + ": evaluation " + want.decision() + Arrays.toString(wc)
                                    + ", monitor " + got.kind() + Arrays.toString(cs));
                        }
                        // move the session to the other monitor through its byte form (as replicas share sessions)
                        byte[] bytes = pair[at].toBytes(s);
                        pair[at].end(s);
                        at = 1 - at;
                        s = pair[at].fromBytes(run.session(), bytes);
                        moved[0]++;
                    }
                }
                pair[at].end(s);
            } catch (java.io.IOException ex) {
                throw new java.io.UncheckedIOException(ex);
            }
        });
        assertThat(moved[0]).isGreaterThan(5000);
        assertThat(notApplied[0]).as("results of refused calls left out").isPositive();
        assertThat(differences).isEmpty();
    }
}
