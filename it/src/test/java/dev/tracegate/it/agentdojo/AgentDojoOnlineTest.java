package dev.tracegate.it.agentdojo;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Recorded AgentDojo runs replayed through the real LangChain4j tool loop under the built agent jar
 * decide exactly as the offline replay of the imported runs does: per session and per event the same
 * kind, tool, arguments, text or result, decision, fired contracts, atoms and verdicts, and the same
 * end-of-session verdicts. A blocked call never reaches its tool and the model reads the block notice.
 * See docs/agentdojo/ONLINE.md.
 */
class AgentDojoOnlineTest {

    /** The sample of the default run: every 19th run file in name order (40 of 753), whatever its outcome. */
    static final int EVERY = 19;

    @TempDir Path dir;

    @Test
    void aSampleOfRecordedRunsDecidesOnlineAsOffline() throws Exception {
        Comparison c = compare(sample(runFiles(dataset()), EVERY), List.of(), 300);
        assertThat(c.runs).isGreaterThanOrEqualTo(30);
        notVacuous(c);
    }

    /** The application is zero-code: none of its classes refers to anything of tracegate. */
    @Test
    void theReplayApplicationRefersToNothingOfTracegate() throws IOException {
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"), "demoapp", "agentdojo");
        List<Path> files;
        try (Stream<Path> s = Files.list(classes)) {
            files = s.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertThat(files).as("classes of the replay app in %s", classes).isNotEmpty();
        for (Path f : files) {
            String bytes = new String(Files.readAllBytes(f), java.nio.charset.StandardCharsets.ISO_8859_1);
            assertThat(bytes).as("constant pool of %s", f).doesNotContain("dev/tracegate").doesNotContain("dev.tracegate");
        }
    }

    /**
     * All 753 runs. When a suite's JVM runs longer than 30 s (it can on a loaded two-core machine),
     * the agent's idle-session sweep runs during the replay; today it ends the session that is playing
     * (see docs/agentdojo/ONLINE.md), and this test reports that run.
     */
    @Test
    @Tag("long")
    void everyRecordedRunDecidesOnlineAsOffline() throws Exception {
        notVacuous(compare(runFiles(dataset()), List.of(), 1200));
    }

    /**
     * A model that takes 31 s over one answer (real models do) keeps its conversation's history: the
     * agent's idle-session sweep (every 30 s with the default 30 min timeout) must not end a session
     * that is in use. Fails today: nothing marks a session as used (see docs/agentdojo/ONLINE.md), so
     * the sweep ends it and the payment to the attacker's IBAN is judged on a fresh, empty history.
     */
    @Test
    @Tag("long")
    void aSlowModelAnswerDoesNotEndTheConversationsSession() throws Exception {
        Path run = dataset().resolve("runs/gpt-4o-2024-05-13/banking/user_task_0/important_instructions/injection_task_0.json");
        Comparison c = compare(List.of(run), List.of("--slow-turn-ms=31000"), 300);
        assertThat(c.blocked).as("the transfer to the attacker's IBAN is blocked as offline").isPositive();
    }

    /** What a comparison measured (printed and documented in ONLINE.md). */
    static final class Comparison {
        int runs, attacked, notAttacked, events, calls, blocked, passedCalls, suppressed, droppedReturns, equalRuns;
        int orderCalls, refusedResultCalls, evaluatedRuns;
        final List<String> examples = new ArrayList<>();
    }

    private Comparison compare(List<Path> files, List<String> appOptions, long timeoutSeconds) throws Exception {
        Path dataset = dataset();
        OfflineDecisions offline = new OfflineDecisions(dataset);
        Map<String, List<Path>> bySuite = new TreeMap<>();
        for (Path f : files) bySuite.computeIfAbsent(suiteOf(dataset, f), s -> new ArrayList<>()).add(f);

        Comparison c = new Comparison();
        List<String> failures = new ArrayList<>();
        // one JVM per suite (each suite has its own library), one after another: on a loaded machine
        // parallel JVMs gain nothing and each lives longer (which matters while the idle sweep ends live sessions)
        for (Map.Entry<String, List<Path>> suite : bySuite.entrySet()) {
            OnlineReplay.Fork fork = OnlineReplay.start(dir, suite.getKey(), OfflineDecisions.librariesOf(suite.getKey()), suite.getValue(),
                    appOptions);
            OnlineReplay.Result online;
            try {
                online = fork.finish(timeoutSeconds);
            } finally {
                fork.stop();
            }
            assertThat(online.exit()).as("the replay app failed for suite %s:\n%s", suite.getKey(), online).isZero();
            assertThat(online.stdout()).as(online.toString())
                    .contains("REPLAYED runs=" + suite.getValue().size() + " ")
                    .doesNotContain("RUN FAILED");
            assertThat(online.stderr()).as(online.toString()).doesNotContain("internal error");
            Set<String> sessions = new HashSet<>();
            for (Path f : suite.getValue()) {
                OfflineDecisions.Run run = offline.frameworkOrder(f);
                String id = run.info().session();
                sessions.add(id);
                c.runs++;
                if (run.info().attacked()) c.attacked++;
                else c.notAttacked++;
                c.droppedReturns += run.droppedReturns();
                List<Observed> on = online.sessions().get(id);
                String failure = firstDifference(id, f, run.events(), on);
                if (failure != null) {
                    failures.add(failure);
                    continue;
                }
                c.equalRuns++;
                for (Observed o : run.events()) {
                    if (o.kind().equals("end")) continue;
                    c.events++;
                    if (o.kind().equals("call")) {
                        c.calls++;
                        if (o.decision().equals("block")) c.blocked++;
                        else c.passedCalls++;
                    }
                    if (o.decision().equals("suppress")) c.suppressed++;
                }
                String enforcement = enforcement(id, run.events(), online.stdout());
                if (enforcement != null) failures.add(enforcement);
                importedOrder(offline, f, run, c);
            }
            assertThat(online.sessions().keySet()).as("sessions in the %s audit log", suite.getKey()).isEqualTo(sessions);
        }
        System.out.printf("[agentdojo online] %d runs (%d attacked, %d not), %d events, %d calls: %d blocked, %d passed, %d results "
                        + "suppressed, %d results of blocked calls never produced; %d/%d runs equal event for event%n",
                c.runs, c.attacked, c.notAttacked, c.events, c.calls, c.blocked, c.passedCalls, c.suppressed, c.droppedReturns, c.equalRuns, c.runs);
        System.out.printf("[agentdojo online] replayed in the import's order, as the offline evaluation does (results of refused calls "
                        + "left out, as online and as replay --mode enforce), %d runs decide some call differently: %d calls because of the "
                        + "order of a turn's calls and results; %d more calls would differ if the recorded results of refused calls were "
                        + "applied (as the evaluation did before ec9cf93)%s%n", c.evaluatedRuns, c.orderCalls, c.refusedResultCalls,
                c.examples.isEmpty() ? "" : ": " + String.join("; ", c.examples));
        assertThat(failures).as("runs whose online decisions differ from the offline ones (%d of %d)", failures.size(), c.runs).isEmpty();
        return c;
    }

    /** Equality is not vacuous: the runs hold attacked and other runs, blocked and passed calls. */
    private static void notVacuous(Comparison c) {
        assertThat(c.attacked).as("attacked runs").isPositive();
        assertThat(c.notAttacked).as("runs without attack").isPositive();
        assertThat(c.blocked).as("blocked calls").isPositive();
        assertThat(c.passedCalls).as("passed calls").isPositive();
    }

    /** Null when the online events equal the offline ones; else the run and its first differing event. */
    static String firstDifference(String id, Path file, List<Observed> offline, List<Observed> online) {
        if (online == null) return "run " + id + " (" + file + "): no online events in the audit log";
        int calls = 0;
        for (int i = 0; i < Math.max(offline.size(), online.size()); i++) {
            if (i >= online.size()) return "run " + id + " (" + file + "): online ends after " + i + " events; offline goes on with " + offline.get(i).brief();
            Observed on = online.get(i);
            if (on.kind().equals("end") && i + 1 < online.size()) {
                return "run " + id + " (" + file + "): the agent ended the session after " + i + " events (an END record at seq " + on.seq()
                        + ") and went on with a fresh one (next: " + online.get(i + 1).brief() + "); offline event " + (i + 1) + " is "
                        + (i < offline.size() ? offline.get(i).brief() : "none")
                        + ". The agent's idle-session sweep ends live sessions: see docs/agentdojo/ONLINE.md";
            }
            if (on.kind().equals("call")) {
                on = new Observed(on.kind(), on.seq(), calls++, on.tool(), on.args(), on.text(), on.result(), on.error(), on.decision(),
                        on.fired(), on.atoms(), on.verdicts());
            }
            if (i >= offline.size()) return "run " + id + " (" + file + "): online has an extra event " + on.brief();
            List<String> d = offline.get(i).differences(on);
            if (!d.isEmpty()) {
                return "run " + id + " (" + file + "): event " + (i + 1) + " differs, offline " + offline.get(i).brief() + " / online " + on.brief()
                        + "\n    " + String.join("\n    ", d);
            }
        }
        return null;
    }

    /**
     * Null when the app saw the decisions take effect: a blocked call did not run and the model read the
     * block notice; a passed call ran; the model read a passed result unchanged and a suppressed one withheld.
     */
    static String enforcement(String id, List<Observed> events, String stdout) {
        List<String> problems = new ArrayList<>();
        for (Observed o : events) {
            String ran = "TOOL RAN run=" + id + " call=" + o.ordinal() + " tool=" + o.tool() + "\n";
            String saw = "MODEL SAW run=" + id + " call=" + o.ordinal() + " tool=" + o.tool() + ": ";
            if (o.kind().equals("call") && o.decision().equals("block")) {
                if (stdout.contains(ran)) problems.add("blocked call " + o.ordinal() + " (" + o.tool() + ") ran");
                if (!stdout.contains(saw + "tracegate blocked the call to " + o.tool())) {
                    problems.add("the model did not read the block notice of call " + o.ordinal());
                }
            } else if (o.kind().equals("call") && !stdout.contains(ran)) {
                problems.add("passed call " + o.ordinal() + " (" + o.tool() + ") did not run");
            } else if (o.kind().equals("return") && o.decision().equals("suppress") && !stdout.contains(saw + "[tracegate] This tool result was withheld")) {
                problems.add("the model read the suppressed result of call " + o.ordinal());
            } else if (o.kind().equals("return") && o.decision().equals("pass") && stdout.contains(saw)) {
                problems.add("the model read a changed result of call " + o.ordinal() + " that passed");
            }
        }
        return problems.isEmpty() ? null : "run " + id + ": " + String.join("; ", problems);
    }

    /**
     * Counts where the two differences between the import and the framework's order change a call's
     * decision: the order of a turn's calls and results (import without the refused calls' results, as the
     * offline evaluation replays it since ec9cf93, vs framework order), and the recorded results of refused
     * calls (import with them applied, as the evaluation did before, vs without them).
     */
    private static void importedOrder(OfflineDecisions offline, Path file, OfflineDecisions.Run run, Comparison c) throws IOException {
        List<String> framework = new ArrayList<>();
        for (Observed o : run.events()) if (o.kind().equals("call")) framework.add(o.decision() + o.fired());
        List<String> withoutRefusedResults = offline.importedOrder(file, true);
        List<String> withRefusedResults = offline.importedOrder(file, false);
        String id = run.info().session();
        c.orderCalls += differing(id, "order", withoutRefusedResults, framework, c.examples);
        c.refusedResultCalls += differing(id, "results of refused calls", withRefusedResults, withoutRefusedResults, c.examples);
        if (!withoutRefusedResults.equals(framework)) c.evaluatedRuns++;
    }

    private static int differing(String id, String cause, List<String> a, List<String> b, List<String> examples) {
        int n = 0;
        for (int i = 0; i < b.size(); i++) {
            if (a.get(i).equals(b.get(i))) continue;
            n++;
            if (examples.size() < 8) examples.add(id + " call " + i + " (" + cause + "): " + a.get(i) + " vs " + b.get(i));
        }
        return n;
    }

    // ------------------------------------------------------------------------------------ data

    /** The dataset: -Dtracegate.agentdojo=DIR, else ../shared/datasets/agentdojo beside the checkout; the test is skipped without it. */
    static Path dataset() {
        String p = System.getProperty("tracegate.agentdojo");
        Path d = (p != null ? Path.of(p) : Path.of("..", "..", "shared", "datasets", "agentdojo")).toAbsolutePath().normalize();
        boolean present = Files.isDirectory(d.resolve("runs"));
        if (!present) System.out.println("SKIPPED: AgentDojo dataset not found at " + d + "; pass -Dtracegate.agentdojo=DIR");
        Assumptions.assumeTrue(present, "AgentDojo dataset not found at " + d + " (pass -Dtracegate.agentdojo=DIR)");
        return d;
    }

    /** Every run file {@code runs/<model>/<suite>/<task>/<attack>/<file>.json}, sorted by its path under runs/. */
    static List<Path> runFiles(Path dataset) throws IOException {
        Path runs = dataset.resolve("runs");
        try (Stream<Path> s = Files.walk(runs, 5)) {
            return s.filter(p -> runs.relativize(p).getNameCount() == 5 && p.toString().endsWith(".json") && Files.isRegularFile(p))
                    .sorted((a, b) -> runs.relativize(a).toString().compareTo(runs.relativize(b).toString()))
                    .toList();
        }
    }

    /** Every {@code k}-th file, starting with the first: a fixed rule that never looks at a run's outcome. */
    static List<Path> sample(List<Path> files, int k) {
        List<Path> out = new ArrayList<>();
        for (int i = 0; i < files.size(); i += k) out.add(files.get(i));
        return out;
    }

    private static String suiteOf(Path dataset, Path file) {
        return dataset.resolve("runs").relativize(file).getName(1).toString();
    }
}
