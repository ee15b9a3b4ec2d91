package dev.tracegate.agent.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Mistakes on the command line get an answer that says what is wrong and how to do it right (trial10 repros
 * cli-error-wording, replay-swapped-arguments-advice, replay-progress-hidden-when-stdout-redirected).
 */
class CliMistakesTest {
    @TempDir Path dir;

    private static final String LIBRARY = "library: l\ncontracts:\n  - id: l.a\n    guarantee: G !call(x)\n    message: m\n";
    private static final String TRACE = "{\"session\":\"s\",\"kind\":\"user\",\"text\":\"hi\"}\n{\"session\":\"s\",\"kind\":\"call\",\"tool\":\"x\"}\n";

    @Test
    void aDirectoryGivenAsATraceIsSaidToBeOne() throws Exception {
        Path traces = Files.createDirectory(dir.resolve("traces"));
        CliRun r = CliRun.of("replay", "sop-refund", traces.toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains(traces + " is a directory, not a trace file").contains("replay sop-refund " + traces.resolve("*.jsonl"))
                .doesNotContain("no such");
    }

    @Test
    void aStateBoundBelowOneIsAUsageErrorNamingTheOptionBeforeAnythingLoads() {
        for (String bound : new String[] {"0", "-5"}) {
            CliRun r = CliRun.of("check", "--max-states", bound, "sop-refund");
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.out()).as("nothing loaded").doesNotContain("loaded");
            assertThat(r.err()).startsWith("Usage: tracegate check ").doesNotContain("maxStates")
                    .endsWith("tracegate check: Invalid value for option '--max-states': " + bound
                            + " (the bound is a number of states, at least 1; default 20000)" + System.lineSeparator());
        }
        assertThat(CliRun.of("check", "--max-states", "1", "sop-refund").out()).contains("loaded sop-refund");
        // any mistake in the arguments ends with what is wrong, after the synopsis, not under the whole help text
        CliRun abc = CliRun.of("check", "--max-states", "abc", "sop-refund");
        assertThat(abc.code()).isEqualTo(2);
        assertThat(abc.err().strip().lines().toList()).hasSize(3).last().asString()
                .isEqualTo("tracegate check: Invalid value for option '--max-states': 'abc' is not an int");
        CliRun unknown = CliRun.of("replay", "--no-progres", "sop-refund", "t.jsonl");
        assertThat(unknown.err()).contains("Possible solutions: --no-progress").endsWith("tracegate replay: Unknown option: '--no-progres'" + System.lineSeparator()).contains("tracegate help replay explains each");
    }

    @Test
    void swappedArgumentsAreAdvisedTheRightWayRound() throws Exception {
        Path lib = Files.writeString(dir.resolve("l.yaml"), LIBRARY);
        Path trace = Files.writeString(dir.resolve("t.jsonl"), TRACE);
        CliRun r = CliRun.of("replay", trace.toString(), lib.toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("the arguments are swapped").contains("replay " + lib + " " + trace);
        // following the advice replays
        assertThat(CliRun.of("replay", lib.toString(), trace.toString(), "--no-progress").code()).isEqualTo(1);
    }

    @Test
    void aTraceWhereTheLibrariesGoIsNamedAsATrace() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), TRACE);
        Path renamed = Files.writeString(dir.resolve("events.txt"), TRACE);   // not named .jsonl: read by its first line
        for (Path t : new Path[] {trace, renamed}) {
            CliRun r = CliRun.of("replay", t.toString(), trace.toString(), "--no-progress");
            assertThat(r.code()).isEqualTo(2);
            assertThat(r.err()).startsWith(t + ": a JSONL trace (or audit log) is given where a contract library is expected")
                    .doesNotContain("not valid YAML");
            assertThat(CliRun.of("check", t.toString()).err()).contains("a JSONL trace (or audit log) is given where a contract library is expected");
        }
        // a library written in YAML's flow style is still a library
        Path flow = Files.writeString(dir.resolve("flow.yaml"), "{library: f, contracts: [{id: f.a, guarantee: G !call(x), message: m}]}\n");
        assertThat(CliRun.of("check", flow.toString()).out()).contains("loaded f");
    }

    /**
     * A check skipped for the state bound says which check and how to raise the bound, not the analysis' internal product
     * formula (with its one-event axioms, cut at 200 characters) nor 'split the contract' (trial10 repro
     * check-too-large-shows-internal-formula).
     */
    @Test
    void aSkippedCheckNamesTheCheckNotTheInternalFormula() throws Exception {
        Path lib = Files.writeString(dir.resolve("dl.yaml"), "library: dl\ncontracts:\n  - id: dl.a\n    guarantee: G(call(a0) -> X X call(t0))\n"
                + "    message: m\n  - id: dl.b\n    guarantee: G(call(b1) -> X call(t1))\n    message: m\n");
        CliRun r = CliRun.of("check", lib.toString(), "--max-states", "5");
        assertThat(r.code()).isEqualTo(1);
        java.util.List<String> skipped = r.out().lines().filter(l -> l.contains("TOO_LARGE")).toList();
        assertThat(skipped).isNotEmpty().allSatisfy(l -> assertThat(l).doesNotContain("G !((call").doesNotContain("split the contract"));
        // the dead-end search says its own product's size; the others say which check
        assertThat(skipped.stream().filter(l -> !l.contains("dead-end check skipped: the product of"))).isNotEmpty().allSatisfy(l -> assertThat(l)
                .matches("analysis: TOO_LARGE \\[[^]]+\\]: the (consistency|compatibility|conflict|dead-end) check .* skipped: its automaton"
                        + " needs more than 5 states; raise the bound with --max-states N.*"));
        assertThat(skipped.get(0)).contains("the consistency check of dl.a (its assumption and guarantee together)");
    }

    /**
     * Library-loading hints on the command line speak its syntax, and a library named twice is said to be (trial10 repro
     * cli-hints-speak-config: 'libraries: [gdpr, po.yaml]', the configuration's key, and 'rename one' of a built-in's ids).
     */
    @Test
    void loadingHintsSpeakTheCommandLine() throws Exception {
        Path po = Files.writeString(dir.resolve("po.yaml"), "library: po\ngdpr:\n  purposes:\n    m: [email]\n");
        Path trace = Files.writeString(dir.resolve("t.jsonl"), TRACE);
        CliRun r = CliRun.of("replay", po.toString(), trace.toString(), "--no-progress");
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("on the command line gdpr,po.yaml (replay gdpr,po.yaml TRACE..., check gdpr po.yaml)");
        assertThat(CliRun.of("replay", "gdpr," + po, trace.toString(), "--no-progress").code()).as("following it").isZero();
        Path lib = Files.writeString(dir.resolve("l.yaml"), LIBRARY);
        for (String[] twice : new String[][] {{"gdpr", "gdpr"}, {lib.toString(), "gdpr," + lib}}) {
            CliRun c = CliRun.of("check", twice[0], twice[1]);
            assertThat(c.code()).isEqualTo(2);
            assertThat(c.err()).contains("is loaded twice").contains("name each library once").doesNotContain("rename one");
        }
    }

    /** Every command of the tree (trial10 repro subcommand-version-prints-nothing: -V was offered and printed nothing). */
    @Test
    void everyCommandPrintsTheVersionItsHelpOffers() {
        java.util.List<java.util.List<String>> paths = new java.util.ArrayList<>();
        picocli.CommandLine tree = new picocli.CommandLine(new Main());   // built as Main.run builds it
        for (Class<?> c : Main.COMMANDS) tree.addSubcommand(c);
        collect(tree.getSubcommands(), new java.util.ArrayList<>(), paths);
        assertThat(paths).hasSizeGreaterThan(8);
        for (java.util.List<String> path : paths) {
            java.util.List<String> args = new java.util.ArrayList<>(path);
            args.add("--version");
            CliRun r = CliRun.of(args.toArray(String[]::new));
            assertThat(r.out().strip()).as(String.join(" ", args)).isEqualTo("tracegate 0.1.0");
            assertThat(r.code()).isZero();
        }
    }

    private static void collect(java.util.Map<String, picocli.CommandLine> subs, java.util.List<String> at, java.util.List<java.util.List<String>> out) {
        for (java.util.Map.Entry<String, picocli.CommandLine> e : subs.entrySet()) {
            if (e.getKey().equals("help")) continue;   // picocli's help command has no -V
            java.util.List<String> path = new java.util.ArrayList<>(at);
            path.add(e.getKey());
            out.add(path);
            collect(e.getValue().getSubcommands(), path, out);
        }
    }

    @Test
    void theProgressBarFollowsWhetherStandardErrorIsATerminal() {
        assertThat(ReplayCommand.Progress.isTerminal("/dev/pts/3")).isTrue();
        assertThat(ReplayCommand.Progress.isTerminal("/dev/tty1")).isTrue();
        assertThat(ReplayCommand.Progress.isTerminal("pipe:[12345]")).isFalse();
        assertThat(ReplayCommand.Progress.isTerminal("/tmp/report.txt")).isFalse();
        // under the test runner standard error is a pipe or a file, not a terminal, whatever standard output is
        assertThat(ReplayCommand.Progress.stderrIsTerminal()).isFalse();
    }
}
