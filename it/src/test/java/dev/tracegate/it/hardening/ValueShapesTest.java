package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Configured methods given values of awkward shapes, under the built agent jar (trial14): a StackOverflowError that
 * unwinds through woven methods, and arguments and results the agent's JSON writer must bound, refuse or leave alone.
 */
class ValueShapesTest {
    private static final String APP = "demoapp.hardening.ValueShapesApp";

    @TempDir Path dir;

    private Path audit() {
        return dir.resolve("audit.jsonl");
    }

    private Forked.Output app(String fail, String library, String... commands) throws IOException, InterruptedException {
        return appWith(fail, library, "", commands);
    }

    private Forked.Output appWith(String fail, String library, String moreConfig, String... commands) throws IOException, InterruptedException {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), library);
        Path config = Files.writeString(dir.resolve("tg.yaml"), "libraries: [" + lib + "]\naudit.path: " + audit() + "\nview: off\nfail: " + fail
                + "\n" + moreConfig + "\nconfigured-methods:\n  - {class: \"" + APP + "$Tools\", method: \"*\", kind: tool, session-param: 0}\n");
        return Forked.run(Forked.command(Forked.java(), "config=" + config, APP, commands));
    }

    private long auditLinesWith(String text) throws IOException {
        return Files.readAllLines(audit()).stream().filter(l -> l.contains(text)).count();
    }

    /**
     * trial14 stackoverflow-disables-supervision: the nesting guard stayed set after the overflow unwound through the
     * advice, so every later call on the thread counted as nested and ran unchecked and unaudited.
     */
    @Test
    void aForbiddenToolIsStillBlockedAndAuditedAfterEveryStackOverflow() throws Exception {
        Forked.Output r = app("closed", "library: so\ncontracts:\n  - id: so.never\n    guarantee: G !call(forbidden)\n    message: never\n", "overflow");
        assertThat(r.stdout()).as(r.toString()).contains("overflow: blocked=60 ran=0");
        assertThat(auditLinesWith("\"tool\":\"forbidden\"")).as("one audit record per forbidden call").isEqualTo(60);
    }

    private static final String WITHHOLD_SECRETS = "library: wh\ncontracts:\n  - id: wh.no-secrets\n    assume: G !result_matches(\"(?i)secret\")\n"
            + "    guarantee: G true\n    message: Results with secrets are withheld.\n";
    private static final String NEVER_FORBIDDEN = "library: so\ncontracts:\n  - id: so.never\n    guarantee: G !call(forbidden)\n    message: never\n";

    /**
     * trial14 deep-result-escapes-fail-closed: a result nested 5,000 levels (or one that contains itself) overflowed the
     * writer; the agent logged "refused" but the host got the result, secret included, and no RETURN was recorded.
     */
    @Test
    void underFailClosedAResultTooDeepOrCyclicToReadWholeIsWithheldCountedAndRecorded() throws Exception {
        Forked.Output r = app("closed", WITHHOLD_SECRETS, "deep-result", "cyclic-result");
        // the cyclic tool is declared Map: its refusal is the map {error: text} (session 23), never the map with the secret
        assertThat(r.stdout()).as(r.toString()).contains("deep 1: refused: ").contains("deep 5000: refused: ")
                .contains("cyclic: HOST GOT {error=[tracegate] This tool result was withheld (wh.no-secrets)").doesNotContain("HOST GOT List")
                .doesNotContain("the secret is 42");
        assertThat(r.stderr()).contains("the result could not be read whole: nested deeper than 100 levels")
                .contains("(fail=closed: refused").doesNotContain("StackOverflowError");
        assertThat(auditLinesWith("\"kind\":\"return\"")).as("a RETURN for each call: " + Files.readString(audit())).isEqualTo(3);
        assertThat(r.stderr()).contains("the result could not be read whole: a cycle: a java.util.HashMap contains itself");
    }

    /**
     * Under fail: open such results are checked as far as they could be read, counted (the ERROR line says let through)
     * and recorded: the deep one passes (its secret is beyond the cut), the cyclic one is withheld (its secret is not).
     */
    @Test
    void underFailOpenAResultTooDeepToReadWholeIsCheckedAsFarAsItWasReadAndCounted() throws Exception {
        Forked.Output r = app("open", WITHHOLD_SECRETS, "deep-result", "cyclic-result");
        assertThat(r.stdout()).as(r.toString()).contains("deep 1: refused: ").contains("deep 5000: HOST GOT List")
                .contains("cyclic: HOST GOT {error=[tracegate] This tool result was withheld (wh.no-secrets)");
        assertThat(r.stderr()).contains("the result could not be read whole").contains("(fail=open: let through");
        assertThat(auditLinesWith("\"kind\":\"return\"")).isEqualTo(3);
    }

    /**
     * trial14 writer-consumes-iterator-args: under the agent the tool got an exhausted iterator (sum=0), a used one-shot
     * iterable, a bean whose getter the writer had called, and a caller got an exhausted iterator back; an endless
     * iterator ran the heap out. Supervision must not change what the application computes.
     */
    @Test
    void theWriterLeavesIteratorsAndBeansAsTheHostPassedThem() throws Exception {
        Forked.Output r = app("closed", NEVER_FORBIDDEN, "iterators");
        assertThat(r.stdout()).as(r.toString()).contains("iterator: sum=6").contains("one-shot iterable: sum=6")
                .contains("iterator result: sum=6").contains("bean: getNext calls=0").contains("endless: first ten=55");
        assertThat(r.stderr()).doesNotContain("ERROR");
        assertThat(auditLinesWith("\"kind\":\"call\"")).as("each call supervised").isEqualTo(5);
    }

    /**
     * trial14 unbounded-collection-arg-hangs: a tool given Collections.nCopies(2e9, "x") never returned under the agent.
     * The writer cuts it after 10,000 elements: fail: closed refuses the call (an argument no contract could read whole),
     * fail: open runs it with contracts having seen the cut list; both count the cut.
     */
    @Test
    void aHugeCollectionArgumentIsCutNotWalked() throws Exception {
        Forked.Output closed = app("closed", NEVER_FORBIDDEN, "huge-list");
        // a String method gets the refusal as its result (block.style substitute), as for any internal error
        assertThat(closed.stdout()).as(closed.toString()).contains("huge list: HOST GOT tracegate could not check demoapp.hardening.ValueShapesApp$Tools.size")
                .doesNotContain("size=2000000000");
        assertThat(closed.stderr()).contains("the arguments could not be read whole: more than 10000 elements").contains("(fail=closed: refused");
        Files.delete(audit());
        Forked.Output open = app("open", NEVER_FORBIDDEN, "huge-list");
        assertThat(open.stdout()).as(open.toString()).contains("huge list: HOST GOT size=2000000000");
        assertThat(open.stderr()).contains("the arguments could not be read whole: more than 10000 elements").contains("(fail=open: let through");
        assertThat(auditLinesWith("\"tool\":\"size\"")).as("the call and its result are recorded").isEqualTo(2);
    }

    /**
     * A result withheld because it could not be read whole (fail: closed) is recorded as what the host saw: a
     * suppression by tracegate.internal with the cut and the refusal, not the contracts' pass; a contract it also
     * violates is named. The contracts saw what could be read, so the RETURN is applied as replay applies it: replay of
     * the log finds the violation at the same event, and the chain verifies.
     */
    @Test
    void aResultWithheldBecauseItCouldNotBeReadWholeIsRecordedAsWithheldAndReplaysAsOnline() throws Exception {
        String library = "library: cut\ncontracts:\n  - id: cut.no-deep-marker\n    guarantee: G !result_matches(\"deeper than 100\")\n"
                + "    message: no result nested too deep to read\n";
        // results in clear, so that replay can read what the contracts read online
        Forked.Output r = appWith("closed", library, "audit.personal-data: clear", "deep-result", "cyclic-result");
        assertThat(r.stdout()).as(r.toString()).contains("deep 1: HOST GOT List").contains("deep 5000: refused: ")
                .contains("cyclic: HOST GOT {error=tracegate could not check");
        java.util.List<String> returns = Files.readAllLines(audit()).stream().filter(l -> l.contains("\"kind\":\"return\"")).toList();
        assertThat(returns).as(String.join("\n", returns)).hasSize(3);
        assertThat(returns.get(0)).contains("\"decision\":\"pass\"");
        assertThat(returns.get(1)).contains("\"decision\":\"suppress\"").contains("\"fired\":[\"cut.no-deep-marker\"]")
                .contains("tracegate.internal: the result could not be read whole (nested deeper than 100 levels), so it was withheld (fail: closed)")
                .contains("The host got: tracegate could not check").contains("The result also violated");
        assertThat(returns.get(2)).contains("\"decision\":\"suppress\"").doesNotContain("\"fired\"")
                .contains("tracegate.internal: the result could not be read whole (a cycle: a java.util.HashMap contains itself)");

        Cli verify = cli("audit", "verify", audit().toString());
        assertThat(verify.exit).as(verify.out).isZero();
        assertThat(verify.out).contains("chain intact");
        Cli replay = cli("replay", dir.resolve("lib.yaml").toString(), audit().toString(), "--format", "json", "--no-progress");
        String seq = returns.get(1).replaceAll(".*\"seq\":(\\d+),.*", "$1");
        com.fasterxml.jackson.databind.JsonNode report = new com.fasterxml.jackson.databind.ObjectMapper().readTree(replay.out);
        String first = null;
        for (com.fasterxml.jackson.databind.JsonNode session : report.get("sessions")) {
            for (com.fasterxml.jackson.databind.JsonNode c : session.get("contracts")) {
                if (c.get("id").asText().equals("cut.no-deep-marker")) first = c.path("firstViolation").asText();
            }
        }
        assertThat(first).as(replay.out).endsWith("(seq " + seq + ", return fetch)");
    }

    private record Cli(int exit, String out) {}

    /** The agent jar's command line; any exit code (replay exits 1 when it finds violations). */
    private Cli cli(String... args) throws IOException, InterruptedException {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of(Forked.java(), "-jar", Forked.agentJar().toString()));
        command.addAll(java.util.List.of(args));
        Path out = dir.resolve("cli-out.txt");
        Process p = new ProcessBuilder(command).redirectErrorStream(false).redirectOutput(out.toFile())
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).as("cli finished: " + command).isTrue();
        return new Cli(p.exitValue(), Files.readString(out));
    }
}
