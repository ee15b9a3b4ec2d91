package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** The command line as a user runs it: exit codes and what it prints. */
class CommandLineTest {
    @TempDir Path dir;

    private static CliRun run(String... args) {
        return CliRun.of(args);
    }

    private static final String REFUND_TRACE = """
            {"session":"a","seq":1,"kind":"user","text":"refund order 7"}
            {"session":"a","seq":2,"kind":"call","tool":"refund","args":{"order":7,"amount":40}}
            {"session":"b","seq":1,"kind":"call","tool":"approve_refund","args":{"order":8,"amount":40}}
            {"session":"b","seq":2,"kind":"return","tool":"approve_refund","result":"ok"}
            {"session":"b","seq":3,"kind":"call","tool":"refund","args":{"order":8,"amount":40}}
            """;

    @Test
    void checkLoadsAndAnalysesABuiltinLibrary() {
        CliRun r = run("check", "sop-refund");
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("loaded sop-refund: 2 contracts").contains("consistent, compatible, conflict-free");
    }

    @Test
    void checkReportsAMalformedLibraryAsOneParagraphWithExitTwo() throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "library: x\ncontracts:\n  - id: a\n    guarantee: G(call(x) -> )\n");
        CliRun r = run("check", bad.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith(bad + ":4:").contains("in formula").doesNotContain("Exception").doesNotContain("\tat ");
    }

    @Test
    void checkReportsAConflictWithExitOne() throws Exception {
        Path lib = dir.resolve("conflict.yaml");
        Files.writeString(lib, "library: x\ncontracts:\n  - id: first-search\n    guarantee: call(search)\n  - id: never-search\n    guarantee: G !call(search)\n");
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.out()).contains("CONFLICT").contains("first-search").contains("never-search");
    }

    @Test
    void explainPrintsEnglishAndWritesDot() {
        Path out = dir.resolve("dot");
        CliRun r = run("explain", "sop-refund", "--dot", out.toString());
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("Whenever the agent calls refund");
        assertThat(out.resolve("sop-refund.approval-first.guarantee.dot")).exists();
    }

    @Test
    void replayFindsTheFirstFailingEventAndExitsOne() throws Exception {
        Path trace = dir.resolve("t.jsonl");
        Files.writeString(trace, REFUND_TRACE);
        CliRun r = run("replay", "sop-refund", trace.toString());
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out()).contains("session a:\n  sop-refund.approval-first: violated first at t.jsonl:2 (seq 2, call refund)")
                .contains("session b: every contract kept")
                .contains("5 events in 2 sessions, 0 malformed lines skipped");
    }

    @Test
    void replayOfACompliantTraceExitsZeroAndJsonIsMachineReadable() throws Exception {
        Path trace = dir.resolve("ok.jsonl");
        Files.writeString(trace, REFUND_TRACE.lines().skip(2).reduce("", (x, y) -> x + y + "\n"));
        CliRun r = run("replay", "sop-refund", trace.toString(), "--format", "json");
        assertThat(r.code()).isZero();
        JsonNode json = new ObjectMapper().readTree(r.out());
        assertThat(json.at("/summary/events").asInt()).isEqualTo(3);
        assertThat(json.at("/sessions/0/contracts/0/verdict").asText()).isEqualTo("ACTIVE");
    }

    @Test
    void malformedLinesAreSkippedAndCountedOrStopWithStrict() throws Exception {
        Path trace = dir.resolve("bad.jsonl");
        Files.writeString(trace, REFUND_TRACE + "{\"session\":\"c\",\"kind\":\"cal\"}\n");
        CliRun lenient = run("replay", "sop-refund", trace.toString());
        assertThat(lenient.out()).contains("1 malformed lines skipped");
        assertThat(lenient.err()).contains("bad.jsonl:6");
        CliRun strict = run("replay", "sop-refund", trace.toString(), "--strict");
        assertThat(strict.code()).isEqualTo(2);
        assertThat(strict.err()).contains("bad.jsonl:6");
    }

    @Test
    void auditVerifyOnAMissingFileSaysSo() {
        CliRun r = run("audit", "verify", dir.resolve("nope.jsonl").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("is not a file");
    }

    @Test
    void noCommandPrintsEveryCommandAsAUsageError() {
        CliRun r = run();
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("name a command").contains("check").contains("replay").contains("audit").contains("import")
                .contains("attach").contains("Exit status");
        CliRun group = run("import");
        assertThat(group.code()).isEqualTo(2);
        assertThat(group.err()).contains("openai-messages").contains("agentdojo");
    }

    /**
     * trial24 03: {@code audit verify} without a file hinted {@code tracegate help verify}, which failed (unknown
     * subcommand), and {@code help audit verify} printed the usage of audit, not verify's options.
     */
    @Test
    void helpAndItsHintReachASubcommandsOptions() {
        CliRun missing = run("audit", "verify");
        assertThat(missing.code()).isEqualTo(2);
        assertThat(missing.err()).contains("(tracegate help audit verify explains each argument and option)");
        for (String[] args : new String[][] {{"help", "audit", "verify"}, {"audit", "verify", "--help"}}) {
            CliRun r = run(args);
            assertThat(r.code()).as(String.join(" ", args)).isZero();
            assertThat(r.out()).as(String.join(" ", args)).contains("--live").doesNotContain("Commands:");
        }
        CliRun imp = run("help", "import", "openai-messages");
        assertThat(imp.code()).isZero();
        assertThat(imp.out()).contains("--session").contains("--out");
        assertThat(run("help", "eval", "agentdojo").out()).contains("agentdojo");
        CliRun group = run("help", "audit");
        assertThat(group.code()).isZero();
        assertThat(group.out()).contains("verify");
        CliRun unknown = run("help", "audit", "verfy");
        assertThat(unknown.code()).isEqualTo(2);
        assertThat(unknown.err()).contains("tracegate audit: unknown command 'verfy'; its commands: ").contains("verify");
        assertThat(run("help").out()).contains("replay").contains("audit");
    }

    @Test
    void helpNamesACommandsOptions() {
        CliRun r = run("help", "replay");
        assertThat(r.code()).isZero();
        assertThat(r.out()).contains("--strict").contains("--mode");
    }

    @Test
    void importOfAMissingFileIsOneLineWithExitTwo() {
        CliRun r = run("import", "openai-messages", dir.resolve("nope.json").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("nope.json is not a file").doesNotContain("\tat ").doesNotContain("Exception");
    }

    @Test
    void evalOfAMissingDirectoryIsOneLineWithExitTwo() {
        CliRun r = run("eval", "agentdojo", dir.resolve("nope").toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("is not a directory").doesNotContain("\tat ");
    }

    @Test
    void evalOfADirectoryWithoutRunsNamesWhatIsMissing() {
        CliRun r = run("eval", "agentdojo", dir.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).startsWith("tracegate eval agentdojo: ").contains("runs/").doesNotContain("\tat ");
    }

    @Test
    void importedMessageLogReplaysAsATrace() throws Exception {
        Path log = dir.resolve("refund-chat.json");
        Files.writeString(log, """
                [{"role":"user","content":"Refund order 7"},
                 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
                   "function":{"name":"refund","arguments":"{\\"order\\":7,\\"amount\\":40}"}}]},
                 {"role":"tool","tool_call_id":"c1","content":"refunded"}]
                """);
        Path trace = dir.resolve("refund-chat.jsonl");
        CliRun imported = run("import", "openai-messages", log.toString(), "--out", trace.toString());
        assertThat(imported.code()).as(imported.err()).isZero();
        assertThat(Files.readAllLines(trace)).hasSize(4).allMatch(l -> l.contains("\"session\":\"refund-chat\""))
                .last().asString().contains("\"kind\":\"end\"");
        CliRun replay = run("replay", "sop-refund", trace.toString());
        assertThat(replay.code()).isEqualTo(1);
        assertThat(replay.out()).contains("sop-refund.approval-first: violated first at refund-chat.jsonl:2 (seq 2, call refund)");
    }

    @Test
    void failedImportLeavesNoPartialTraceAndKeepsAnOldOne() throws Exception {
        // the third message answers a call id that was never made: the importer fails after two good messages
        Path log = dir.resolve("bad.json");
        Files.writeString(log, """
                [{"role":"user","content":"hi"},
                 {"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function",
                   "function":{"name":"send_money","arguments":"{recipient: DE89"}}]},
                 {"role":"tool","tool_call_id":"zz","content":"sent"}]
                """);
        Path fresh = dir.resolve("fresh.jsonl");
        CliRun r = run("import", "openai-messages", log.toString(), "--out", fresh.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(fresh).doesNotExist();
        assertThat(r.err()).contains("nothing was written to " + fresh).doesNotContain("\tat ");

        Path old = Files.writeString(dir.resolve("old.jsonl"), "{\"session\":\"x\",\"seq\":1,\"kind\":\"user\",\"text\":\"kept\"}\n");
        CliRun again = run("import", "openai-messages", log.toString(), "--out", old.toString());
        assertThat(again.code()).isEqualTo(2);
        assertThat(Files.readString(old)).isEqualTo("{\"session\":\"x\",\"seq\":1,\"kind\":\"user\",\"text\":\"kept\"}\n");
        assertThat(again.err()).contains(old + " is left as it was");
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("bad.json", "old.jsonl");
        }
    }

    /** import agentdojo stages its traces and index and moves them into --out only when every run converts. */
    @Test
    void aFailedAgentDojoImportWritesNoSuiteTraceAndKeepsTheOutputFolder() throws Exception {
        Path good = dir.resolve("data/runs/m/banking/user_task_2/none/none.json");
        Files.createDirectories(good.getParent());
        Files.writeString(good, "{\"suite_name\":\"banking\",\"pipeline_name\":\"m\",\"user_task_id\":\"user_task_2\",\"injection_task_id\":null,"
                + "\"attack_type\":null,\"injections\":{},\"messages\":[{\"role\":\"system\",\"content\":\"sys\"},{\"role\":\"user\",\"content\":\"go\"},"
                + "{\"role\":\"assistant\",\"content\":\"ok\",\"tool_calls\":null}],\"error\":null,\"utility\":true,\"security\":true,\"duration\":1.0}");
        Path bad = dir.resolve("data/runs/m/slack/user_task_1/none/none.json");
        Files.createDirectories(bad.getParent());
        Files.writeString(bad, "{\"suite_name\": \"slack\", \"messages\": [");
        Path out = Files.createDirectories(dir.resolve("out"));
        Files.writeString(out.resolve("old.txt"), "kept");
        CliRun r = run("import", "agentdojo", dir.resolve("data").toString(), "--out", out.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("not valid JSON").contains("nothing was written to " + out).doesNotContain("\tat ");
        try (var files = Files.list(out)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no banking.jsonl without its index").containsExactly("old.txt");
        }
        try (var files = Files.list(dir)) {
            assertThat(files.map(f -> f.getFileName().toString())).as("no staging folder left").containsExactlyInAnyOrder("data", "out");
        }
        Files.delete(bad);
        CliRun ok = run("import", "agentdojo", dir.resolve("data").toString(), "--out", out.toString());
        assertThat(ok.code()).as(ok.err()).isZero();
        try (var files = Files.list(out)) {
            assertThat(files.map(f -> f.getFileName().toString())).containsExactlyInAnyOrder("old.txt", "banking.jsonl", "runs.jsonl");
        }
    }

    @Test
    void explainIntoAFileInsteadOfADirectorySaysSo() throws Exception {
        Path file = Files.writeString(dir.resolve("not-a-dir"), "x");
        CliRun r = run("explain", "sop-refund", "--dot", file.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("is a file");
    }

    @Test
    void attachResolvesARelativeConfigHereAndRefusesAMissingOne() {
        Path cwd = Path.of("/srv/app");
        assertThat(AttachCommand.absolutePaths("config=conf/tg.yaml,mode=shadow", cwd)).isEqualTo("config=/srv/app/conf/tg.yaml,mode=shadow");
        assertThat(AttachCommand.absolutePaths("mode=shadow,config=/etc/tg.yaml", cwd)).isEqualTo("mode=shadow,config=/etc/tg.yaml");
        assertThat(AttachCommand.absolutePaths(null, cwd)).isEmpty();
        CliRun r = run("attach", "1", "config=" + dir.resolve("missing.yaml"));
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err()).contains("missing.yaml does not exist").contains("nothing was attached");
    }

    @Test
    void checkNotesAContractThatCanActWithoutAMessageAndKeepsExitZero() throws Exception {
        Path lib = dir.resolve("quiet.yaml");
        Files.writeString(lib, """
                library: quiet
                gdpr:
                  purposes: {marketing: [email]}
                contracts:
                  - id: quiet.no-transfer
                    guarantee: G !call(transfer)
                  - id: quiet.policy-only
                    guarantee: true
                  - id: quiet.told
                    guarantee: G !call(wire)
                    message: No wires.
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("note: " + lib + ":5: contract quiet.no-transfer has no message")
                .doesNotContain("quiet.policy-only has no message").doesNotContain("quiet.told has no message");
        // the built-ins' only notes are that gdpr and injection have no policy section to read
        assertThat(run("check", "sop-refund", "gdpr", "injection").out().lines().filter(l -> l.startsWith("note:")))
                .extracting(l -> l.substring(0, l.indexOf(" reads ")))
                .containsExactly("note: the built-in library gdpr", "note: the built-in library injection");
    }

    @Test
    void checkNotesAContextKeyThatNoLatchSets() throws Exception {
        Path lib = dir.resolve("ctx.yaml");
        Files.writeString(lib, """
                library: ctx
                context:
                  - on: {kind: RETURN, tool: approve_refund}
                    set: approved
                    value: arg(amount)
                contracts:
                  - id: ctx.cap
                    guarantee: G(call(refund) -> arg(refund, amount) <= ctx(approved))
                    message: Over the approved amount.
                  - id: ctx.typo
                    guarantee: G(call(refund) -> ctx(aproved) > 3)
                    message: Typo.
                  - id: ctx.same-account
                    guarantee: G(call(transfer) -> arg_eq_ctx(transfer, account, verified_account))
                    message: Other account.
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("note: context key 'aproved' is read by ctx(aproved) > 3 but no latch")
                .contains("note: context key 'verified_account' is read by arg_eq_ctx(transfer, account, verified_account)")
                .doesNotContain("context key 'approved'");
        // the built-ins' only notes are that gdpr and injection have no policy section to read
        assertThat(run("check", "sop-refund", "gdpr", "injection", "temporal-classes").out().lines().filter(l -> l.startsWith("note:")))
                .extracting(l -> l.substring(0, l.indexOf(" reads ")))
                .containsExactly("note: the built-in library gdpr", "note: the built-in library injection");
    }

    @Test
    void checkNotesAPurposeThatNoPolicyDeclares() throws Exception {
        Path lib = dir.resolve("purposes.yaml");
        Files.writeString(lib, """
                library: purposes
                gdpr:
                  purposes: {marketing: [email], billing: [iban]}
                contracts:
                  - id: purposes.no-marketing-mail
                    guarantee: G(call(send_mail) -> !purpose(marketting))
                    message: Not for marketing.
                  - id: purposes.billing-consent
                    guarantee: G(purpose(billing) -> consent(billing))
                    message: Billing needs consent.
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("note: purpose(marketting) names purpose 'marketting', which no gdpr.purposes declares (declared: billing, marketing)")
                .doesNotContain("'billing', which");
    }

    @Test
    void attachResolvesRelativeLibraryFilesAndTheAuditPathHereButLeavesBuiltinNames() throws Exception {
        Files.writeString(dir.resolve("travel.yaml"), "library: travel\n");
        String options = AttachCommand.absolutePaths("libraries=gdpr;travel.yaml;/etc/x.yaml,audit.path=logs/a.jsonl,mode=shadow", dir);
        assertThat(options).isEqualTo("libraries=gdpr;" + dir.resolve("travel.yaml") + ";/etc/x.yaml,audit.path="
                + dir.resolve("logs/a.jsonl") + ",mode=shadow");
    }

    @Test
    void attachRefusesAJvmWhereTracegateAlreadyRuns() throws Exception {
        // a JVM that carries the property the agent sets when it starts: the agent there would ignore a second start
        Path sleeper = Files.writeString(dir.resolve("Sleeper.java"),
                "public class Sleeper { public static void main(String[] a) throws Exception { System.out.println(\"ready\"); Thread.sleep(60_000); } }");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process target = new ProcessBuilder(java, "-Dtracegate.agent.started=by -javaagent", sleeper.toString())
                .redirectErrorStream(true).start();
        try {
            assertThat(new java.io.BufferedReader(new java.io.InputStreamReader(target.getInputStream(), StandardCharsets.UTF_8)).readLine())
                    .isEqualTo("ready");
            CliRun r = run("attach", Long.toString(target.pid()), "mode=shadow");
            assertThat(r.code()).as(r.err()).isEqualTo(2);
            assertThat(r.err()).contains("tracegate already runs in process " + target.pid() + " (started by -javaagent)")
                    .contains("nothing was attached").contains("hot-reload");
            assertThat(r.out()).doesNotContain("attached to");
        } finally {
            target.destroy();
        }
    }

    @Test
    void checkAndExplainTakeCommaSeparatedLibrariesAsReplayDoes() throws Exception {
        Path lib = dir.resolve("conflict.yaml");
        Files.writeString(lib, "library: x\ncontracts:\n  - id: x.first-search\n    guarantee: call(search)\n    message: m\n"
                + "  - id: x.never-search\n    guarantee: G !call(search)\n    message: m\n");
        CliRun comma = run("check", "sop-refund," + lib);
        assertThat(comma.code()).as(comma.err()).isEqualTo(1);
        assertThat(comma.out()).contains("sop-refund").contains("CONFLICT [x.first-search, x.never-search]");
        CliRun spaces = run("check", "sop-refund", lib.toString());
        assertThat(spaces.out()).isEqualTo(comma.out());
        CliRun explain = run("explain", "temporal-classes,sop-refund");
        assertThat(explain.code()).as(explain.err()).isZero();
        assertThat(explain.out()).contains("temporal.precedence").contains("sop-refund.approval-first");
    }

    @Test
    void checkWhoseStateBoundSkipsTheAnalysisSaysSoAndDoesNotPass() {
        CliRun r = run("check", "--max-states", "2", "sop-refund");
        assertThat(r.code()).as(r.out()).isEqualTo(1);
        assertThat(r.out()).contains("TOO_LARGE").doesNotContain("conflict-free")
                .contains("analysis incomplete:").contains("needs more than 2 states").contains("--max-states N");
        // trial8: each TOO_LARGE line named the agent's bounds (tracegate.engine.max-states), which check does not read
        assertThat(r.out()).doesNotContain("tracegate.engine.max-states").doesNotContain("library's max-states setting");
        CliRun enough = run("check", "sop-refund");
        assertThat(enough.code()).isZero();
        assertThat(enough.out()).doesNotContain("analysis incomplete");
    }

    @Test
    void checkNotesAContractThatAnOrdinaryFirstEventOfTheEnvironmentAlreadyViolates() throws Exception {
        Path lib = dir.resolve("cap.yaml");
        Files.writeString(lib, """
                library: cap
                contracts:
                  - id: cap.unguarded
                    guarantee: G(arg(wire_money, amount) <= 50)
                    message: At most 50 per wire.
                  - id: cap.guarded
                    guarantee: G(call(wire_money) -> arg(wire_money, amount) <= 50)
                    message: At most 50 per wire.
                  - id: cap.count
                    guarantee: G(count(search) <= 3)
                    message: At most three searches.
                  - id: cap.after-result
                    guarantee: G(!result_matches("ok"))
                    message: No tool may answer ok.
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.out()).contains("note: " + lib + ":3: contract cap.unguarded fails at a first user message 'hello', which tracegate"
                        + " cannot refuse")
                .contains("G(call(T) -> arg(T, f) <= n)")
                .contains("contract cap.after-result fails at a first result 'ok' of a tool no contract names")
                .as("a guarded bound and a count hold at such events").doesNotContain("cap.guarded fails").doesNotContain("cap.count fails");
    }

    @Test
    void checkNotesAGuaranteeThatAResultCanMakeFailLaterInASessionAndKeepsExitZero() throws Exception {
        // trial12: this passed check, then FAILed at run time on the first IBAN a lookup returned, with no strategy to act
        Path lib = dir.resolve("pii.yaml");
        Files.writeString(lib, """
                library: pii
                contracts:
                  - id: pii.no-iban
                    guarantee: G(returned(lookup_customer) -> !category(iban))
                    strategy: redact
                    message: No IBAN to the model.
                  - id: pii.no-iban-sent
                    guarantee: G(call(send_email) -> !category(iban))
                    strategy: redact
                    message: No IBAN in an e-mail.
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out()).contains("note: " + lib + ":3: contract pii.no-iban's guarantee (G(returned(lookup_customer) ->"
                        + " !category(iban))) can be made to fail by an event the agent does not control")
                .contains("assume: G(returned(lookup_customer) -> !category(iban)), strategy: suppress")
                .as("a guard on the agent's own call is not noted").doesNotContain("contract pii.no-iban-sent's guarantee")
                .as("one note per contract, not also the first-event one").doesNotContain("pii.no-iban fails at");
    }

    @Test
    void checkNotesAGuaranteeThatHoldsOnEveryTraceAndKeepsExitZero() throws Exception {
        Path lib = dir.resolve("valid.yaml");
        Files.writeString(lib, """
                library: v
                contracts:
                  - id: v.typo
                    guarantee: G(call(pay) -> O returned(verify) | true)
                    message: Verify first.
                  - id: v.real
                    guarantee: G(call(pay) -> O returned(verify))
                    message: Verify first.
                  - id: v.policy-only
                    guarantee: true
                """);
        CliRun r = run("check", lib.toString());
        assertThat(r.code()).as(r.out()).isZero();
        assertThat(r.out()).contains("note: " + lib + ":3: contract v.typo's guarantee holds on every trace, so the contract never acts")
                .doesNotContain("v.real's guarantee").doesNotContain("v.policy-only's guarantee")
                .doesNotContain("contract v.policy-only has no message");
    }

    @Test
    void attachToSomethingThatIsNoJvmIsBadInput() {
        CliRun word = run("attach", "abc");
        assertThat(word.code()).isEqualTo(2);
        assertThat(word.err()).contains("PID must be a process id").contains("'abc'");
        CliRun gone = run("attach", "2147483646");
        assertThat(gone.code()).isEqualTo(2);
        assertThat(gone.err()).contains("there is no process 2147483646");
    }

    /** An audit log written online by the contract supervisor, in the given mode: two unapproved refunds in session c1. */
    private Path auditLog(String name, String options) throws Exception {
        Path log = dir.resolve(name);
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=sop-refund,audit.path=" + log + options, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        dev.tracegate.agent.supervision.ContractSupervisor s = new dev.tracegate.agent.supervision.ContractSupervisor(
                config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "c1", "refund", "{\"order\":7,\"amount\":40}", "t1"));
        s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "c1", "refund", "{\"order\":7,\"amount\":40}", "t2"));
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return log;
    }

    @Test
    void replayWithASecondLibraryWhereATraceBelongsSaysLibrariesAreOneCommaSeparatedArgument() throws Exception {
        Path trace = Files.writeString(dir.resolve("t.jsonl"), REFUND_TRACE);
        CliRun r = run("replay", "sop-refund", "gdpr", trace.toString());
        assertThat(r.code()).isEqualTo(2);
        assertThat(r.err().strip()).isEqualTo("tracegate replay: 'gdpr' is a built-in library name, but it is given where a trace is"
                + " expected. The libraries are one argument, separated by commas without spaces: replay sop-refund,gdpr " + trace);
        Path lib = Files.writeString(dir.resolve("shop.yaml"), "library: shop\ncontracts:\n  - id: shop.a\n    guarantee: G !call(x)\n");
        CliRun file = run("replay", "gdpr", lib.toString(), trace.toString());
        assertThat(file.code()).isEqualTo(2);
        assertThat(file.err().strip()).isEqualTo("tracegate replay: '" + lib + "' is a library file (.yaml), not a JSONL trace, but it is"
                + " given where a trace is expected. The libraries are one argument, separated by commas without spaces: replay gdpr,"
                + lib + " " + trace);
    }

    @Test
    void checkAndTheAgentNoteABuiltinPolicyLibraryLoadedWithoutItsSection() throws Exception {
        CliRun alone = run("check", "gdpr", "injection");
        assertThat(alone.code()).as("a note, not an error: loading them alone is legal").isZero();
        assertThat(alone.out()).contains("note: the built-in library gdpr reads the gdpr: section of one of your libraries, and none of the"
                + " loaded libraries has one, so P1 consent, P2 purpose limitation and P3 minimisation have nothing to check (only P4"
                + " erasure acts). Add a gdpr: section to one of your libraries with purposes (purpose -> data categories), tools"
                + " (tool -> purposes), consent-purposes and subject-fields; see docs/LIBRARY.md, \"The GDPR section and the gdpr library\"");
        assertThat(alone.out()).contains("note: the built-in library injection reads the injection: section of one of your libraries,"
                + " and none of the loaded libraries has one, so no tool is side-effecting and injection.untrusted-target never acts."
                + " Add an injection: section to one of your libraries with side-effecting (tool -> its target arguments, e.g."
                + " send_money: [recipient]); see docs/LIBRARY.md, \"A complete example\" (the injection: block) and"
                + " \"Provenance (injection.provenance)\"");
        Path policy = Files.writeString(dir.resolve("injpol.yaml"), "library: injpol\ninjection:\n  side-effecting:\n    send_money: [recipient]\n");
        CliRun withPolicy = run("check", "gdpr,injection", policy.toString());
        assertThat(withPolicy.out()).contains("library gdpr reads").doesNotContain("library injection reads");
        assertThat(run("check", "sop-refund").out()).doesNotContain("built-in library");
        // the agent's start prints the same notes as WARN lines: AgentArgumentsTest#theStartNotesGdprAndInjection...
    }

    /** An audit log written online with a library file that a hot reload changes between two calls of session c1. */
    private Path reloadedLog(Path lib, String v1, String v2) throws Exception {
        Path log = dir.resolve("hot.jsonl");
        Files.writeString(lib, v1);
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        dev.tracegate.agent.supervision.ContractSupervisor s = new dev.tracegate.agent.supervision.ContractSupervisor(
                config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "c1", "wire_money", "{\"amount\":40}", "t1"));
        Files.writeString(lib, v2);
        assertThat(s.reload()).as("the hot reload took the second version").isTrue();
        s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "c2", "wire_money", "{\"amount\":40}", "t2"));
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return log;
    }

    @Test
    void replayOfAnAuditLogSpanningAHotReloadOrWithOtherLibrariesSaysWhatDiffers() throws Exception {
        String v1 = "library: shop\ncontracts:\n  - id: shop.wire\n    guarantee: G(call(wire_money) -> O returned(verify_identity))\n";
        String v2 = "library: shop\ncontracts:\n  - id: shop.wire\n    guarantee: G(call(wire_money) -> arg(wire_money, amount) <= 50)\n";
        Path lib = dir.resolve("shop.yaml");
        Path log = reloadedLog(lib, v1, v2);
        java.util.List<String> lines = Files.readAllLines(log);
        long second = 0;
        for (int i = 1; i < lines.size(); i++) if (lines.get(i).contains("\"rec\":\"library\"")) second = i + 1;
        assertThat(second).as("a second library record after the reload").isGreaterThan(2);
        Path v1File = Files.writeString(dir.resolve("shop-v1.yaml"), v1);
        CliRun r = run("replay", v1File.toString(), log.toString());
        assertThat(r.err()).contains("note: hot.jsonl spans 2 library versions (lib 1 at line 2, lib 2 at line " + second
                + "; the libraries changed while it was written: a hot reload, or a run with other libraries appended to it): replay uses the one version given for every event,"
                + " so events written under another version may come out differently than they did online; the libraries given are"
                + " lib 1 (line 2). Replay the log's parts with their own versions to check each");
        assertThat(r.err()).doesNotContain("do not name the contracts");
        CliRun r2 = run("replay", lib.toString(), log.toString());
        assertThat(r2.err()).contains("the libraries given are lib 2 (line " + second + ")");
        // unrelated libraries: which contracts each side has that the other has not
        Path files = Files.writeString(dir.resolve("files.yaml"), "library: files\ncontracts:\n  - id: files.no-delete\n    guarantee: G !call(delete_file)\n");
        CliRun other = run("replay", files.toString(), log.toString());
        assertThat(other.code()).isZero();
        assertThat(other.err()).contains("note: hot.jsonl's library records (lines 2, " + second + ") do not name the contracts of the"
                + " replayed libraries (files): the log had shop.wire, which the replay does not; the replay has files.no-delete, which"
                + " the log did not; the verdicts below are the replayed libraries' on the log's events, not what the agent decided."
                + " Replay with the libraries the log was written with to check its decisions");
        assertThat(other.err()).contains("the libraries given match none of the log's versions");
        // a log of one version replayed with its own libraries: no note
        Path one = auditLog("one.jsonl", ",audit.personal-data=clear");
        assertThat(run("replay", "sop-refund", one.toString()).err()).doesNotContain("library versions").doesNotContain("library records");
    }

    /**
     * trial18 repro 08: a hot reload that changed only the injection: section (same contract ids and atoms) is a
     * version of its own: its library record's digest differs, so replay notes the two versions and which one it was given.
     */
    @Test
    void aHotReloadOfOnlyThePolicySectionIsAVersionReplayNotes() throws Exception {
        String v1 = "library: pol\ninjection:\n  side-effecting:\n    issue_refund: [order_id]\n"
                + "contracts:\n  - id: pol.wire\n    guarantee: G(call(wire_money) -> O returned(verify_identity))\n";
        String v2 = v1.replace("    issue_refund: [order_id]\n", "    issue_refund: [order_id]\n    wire_money: [to]\n");
        Path lib = dir.resolve("pol.yaml");
        Path log = reloadedLog(lib, v1, v2);
        java.util.List<String> records = Files.readAllLines(log).stream().filter(l -> l.contains("\"rec\":\"library\"")).toList();
        assertThat(records).hasSize(2);
        assertThat(records.get(0)).contains("\"digest\":\"");
        assertThat(records.get(0).replaceAll(".*\"digest\":\"([0-9a-f]+)\".*", "$1"))
                .isNotEqualTo(records.get(1).replaceAll(".*\"digest\":\"([0-9a-f]+)\".*", "$1"));
        CliRun r = run("replay", lib.toString(), log.toString());
        assertThat(r.err()).contains("note: hot.jsonl spans 2 library versions (lib 1 at line 2, lib 2 at line ")
                .contains("the libraries given are lib 2 (line ");
        // the digest is of what the library defines, not where it was read from: a copy elsewhere is the same version
        Path copy = Files.createDirectories(dir.resolve("elsewhere")).resolve("pol.yaml");
        Files.writeString(copy, v1);
        assertThat(run("replay", copy.toString(), log.toString()).err()).contains("the libraries given are lib 1 (line 2)");
    }

    /** The summary table's row of a contract: sessions violating, events, unmet. */
    private static String row(String out, String contract) {
        return out.lines().filter(l -> l.startsWith(contract + " ")).findFirst().orElseThrow().replaceAll("\\s+", " ");
    }

    @Test
    void anAuditLogReplaysWithoutCountingItsHeaderAsMalformedAlsoWithStrict() throws Exception {
        Path log = auditLog("enforced.jsonl", ",audit.personal-data=clear");
        CliRun r = run("replay", "sop-refund", log.toString(), "--strict");
        assertThat(r.code()).as(r.err()).isEqualTo(1);
        assertThat(r.out()).contains("0 malformed lines skipped");
        assertThat(r.err()).doesNotContain("skipped:").doesNotContain("personal data hashed");
        // line numbers are the log's own: line 1 is the header, line 2 the library record, the first refund is line 3
        assertThat(r.out()).contains("sop-refund.approval-first: violated first at enforced.jsonl:3 (seq 1, call refund)");
        assertThat(row(r.out(), "sop-refund.approval-first")).isEqualTo("sop-refund.approval-first 1 2 0");
    }

    @Test
    void aRunTheAgentCouldNotSuperviseEndsItsSegmentWithAnUnsupervisedRecordThatVerifyAndReplayReport() throws Exception {
        Path log = auditLog("mixed.jsonl", ",audit.personal-data=clear");
        long supervisedLines = Files.readAllLines(log).size();
        Path broken = Files.writeString(dir.resolve("broken.yaml"), "library: b\ncontracts:\n  - id: b.x\n    guarantee: G(call(x) -> )\n");
        for (String fail : new String[] {"open", "closed"}) {
            dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                    "libraries=" + broken + ",fail=" + fail + ",audit.path=" + log, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
            dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                    dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> new dev.tracegate.agent.supervision.ContractSupervisor(
                    config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null))
                    .isInstanceOf(dev.tracegate.contracts.library.LibraryException.class);
            assertThat(audit.isHealthy()).as("the log of the run that could not start is closed").isFalse();
        }
        java.util.List<String> lines = Files.readAllLines(log);
        // each unsupervised run: its header, then one record that says why; no event of it
        assertThat(lines).hasSize((int) supervisedLines + 4);
        for (int i : new int[] {(int) supervisedLines + 1, (int) supervisedLines + 3}) {
            JsonNode u = new ObjectMapper().readTree(lines.get(i));
            assertThat(u.path("rec").asText()).isEqualTo("unsupervised");
            assertThat(u.path("fail").asText()).isEqualTo(i == supervisedLines + 1 ? "open" : "closed");
            assertThat(u.path("reason").asText()).startsWith(broken + ":4:").contains("in formula");
        }
        CliRun verify = run("audit", "verify", log.toString());
        assertThat(verify.code()).as(verify.out() + verify.err()).isZero();
        assertThat(verify.out()).contains("chain intact").contains("2 runs were not supervised");
        CliRun replay = run("replay", "sop-refund", log.toString());
        assertThat(replay.code()).as(replay.err()).isEqualTo(1);   // the supervised run's violation, as without the others
        assertThat(row(replay.out(), "sop-refund.approval-first")).isEqualTo("sop-refund.approval-first 1 2 0");
        assertThat(replay.err()).contains("mixed.jsonl:" + (supervisedLines + 2) + ": the agent could not start")
                .contains("fail: open, the application ran without it").contains("fail: closed, the start was refused")
                .contains("why: " + broken + ":4:");
        // a later run that starts appends a new segment whose events verify as usual
        auditLog("mixed.jsonl", ",audit.personal-data=clear");
        CliRun again = run("audit", "verify", log.toString());
        assertThat(again.code()).as(again.out()).isZero();
        assertThat(again.out()).contains("2 runs were not supervised");
    }

    @Test
    void aShadowModeAuditLogReplaysInShadowModeUnlessToldOtherwiseAndAHashedOneSaysWhatCannotReplay() throws Exception {
        Path log = auditLog("shadow.jsonl", ",mode=shadow");
        assertThat(Files.readString(log)).contains("shadow-would-block");
        CliRun auto = run("replay", "sop-refund", log.toString());
        assertThat(auto.err()).contains("written in shadow mode").contains("replaying it with --mode shadow")
                .contains("personal data hashed").contains("sop-refund.within-approved-amount (arg(refund, amount) > ctx(approved_amount))")
                .doesNotContain("sop-refund.approval-first (");
        // online in shadow mode the first refund was applied and the second broke nothing new: one event, as online
        assertThat(row(auto.out(), "sop-refund.approval-first")).isEqualTo("sop-refund.approval-first 1 1 0");
        CliRun enforced = run("replay", "sop-refund", log.toString(), "--mode", "enforce");
        assertThat(enforced.err()).contains("replayed with --mode enforce as asked");
        assertThat(row(enforced.out(), "sop-refund.approval-first")).isEqualTo("sop-refund.approval-first 1 2 0");
    }

    /**
     * trial12 replay-hashed-note-for-clear-log: a refused start under the default (hashed) leaves a header and an
     * unsupervised record, no event; the run after it writes every event in clear. Replay has nothing hashed to read, so
     * it does not say the log is hashed; a hashed segment that holds events still gets the note.
     */
    @Test
    void aHashedSegmentWithoutEventsDoesNotMakeTheLogHashedForReplay() throws Exception {
        Path log = dir.resolve("refused-then-clear.jsonl");
        Path broken = Files.writeString(dir.resolve("typo.yaml"), "library: b\ncontracts:\n  - id: b.x\n    guarantee: G(call(x) -> )\n");
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=" + broken + ",audit.path=" + log, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> new dev.tracegate.agent.supervision.ContractSupervisor(
                config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null))
                .isInstanceOf(dev.tracegate.contracts.library.LibraryException.class);
        assertThat(Files.readString(log)).contains("\"personalData\":\"salted-sha256\"").doesNotContain("\"rec\":\"event\"");
        auditLog("refused-then-clear.jsonl", ",audit.personal-data=clear");
        CliRun clear = run("replay", "sop-refund", log.toString());
        assertThat(row(clear.out(), "sop-refund.approval-first")).isEqualTo("sop-refund.approval-first 1 2 0");
        assertThat(clear.err()).doesNotContain("personal data hashed");
        // a hashed run with events after the clear one: the note is right again
        auditLog("refused-then-clear.jsonl", "");
        assertThat(run("replay", "sop-refund", log.toString()).err()).contains("personal data hashed (salted-sha256)");
    }

    /** trial7 finding 21: replay of a log whose writer dropped events (audit.on-full: drop) says where and how many. */
    @Test
    void replayOfALogWithDroppedEventsSaysWhereTheyAreMissing() throws Exception {
        Path log = auditLog("drops.jsonl", "");
        java.util.List<String> lines = new java.util.ArrayList<>(Files.readAllLines(log));
        // a dropped note as the writer writes it (AuditLines.dropped), after the first event: replay does not check the chain
        lines.add(3, "{\"prev\":\"" + "0".repeat(64) + "\",\"rec\":\"dropped\",\"time\":\"2026-11-30T10:00:00Z\",\"count\":306,"
                + "\"reason\":\"queue-full\",\"hash\":\"" + "0".repeat(64) + "\"}");
        Files.write(log, lines);
        CliRun r = run("replay", "sop-refund", log.toString());
        assertThat(r.err()).contains("drops.jsonl:4: 306 events were not written here (queue-full: the audit queue was full,"
                        + " with audit.on-full: drop or a wait longer than audit.max-block)")
                .contains("verdicts after this line may differ");
        // an outage's dropped record is named for what it was (trial14 verify-misnames-io-error-drops, replay's half)
        lines.set(3, lines.get(3).replace("\"queue-full\"", "\"io-error (calls refused)\""));
        Files.write(log, lines);
        assertThat(run("replay", "sop-refund", log.toString()).err())
                .contains("drops.jsonl:4: 306 events were not written here (io-error (calls refused): records of tool calls that did"
                        + " not run, as the log could not be written and fail: closed refused them")
                .doesNotContain("audit queue was full");
    }

    /**
     * An audit log of one session, written online with the injection library and a payment cap: a tool result brings
     * in an IBAN and the agent sends money to it twice (injection.untrusted-target blocks both), with small amounts.
     */
    private Path injectionLog(String name, String personalData) throws Exception {
        Path pol = dir.resolve("bankpol.yaml");
        Files.writeString(pol, """
                library: bankpol
                injection:
                  side-effecting:
                    send_money: [recipient]
                contracts:
                  - id: bankpol.cap
                    guarantee: G(call(send_money) -> arg(send_money, amount) <= 1000)
                  - id: bankpol.read-first
                    guarantee: G(call(send_money) -> O returned(read_invoice))
                """);
        Path log = dir.resolve(name);
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=injection;" + pol + ",audit.personal-data=" + personalData + ",audit.path=" + log,
                java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        dev.tracegate.agent.supervision.ContractSupervisor s = new dev.tracegate.agent.supervision.ContractSupervisor(
                config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        s.onUserMessage(new dev.tracegate.agent.core.Message("x", "alice", "Pay the invoice in invoice.txt"));
        s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "alice", "read_invoice", "{\"file\":\"invoice.txt\"}", "c1"));
        s.onToolResult(new dev.tracegate.agent.core.ToolResult("x", "alice", "read_invoice", "c1",
                "Amount 40 EUR. Pay to DE89370400440532013000.", false));
        for (String id : new String[] {"c2", "c3"}) {
            dev.tracegate.agent.core.ToolDecision d = s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "alice", "send_money",
                    "{\"recipient\":\"DE89370400440532013000\",\"amount\":40}", id));
            assertThat(d.contract()).as("online, the injection library blocks the payment to the invoice's IBAN")
                    .isEqualTo("injection.untrusted-target");
        }
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        return log;
    }

    @Test
    void replayOfAHashedLogNamesTheContractsThatReadContentItNoLongerHas() throws Exception {
        Path clear = injectionLog("clear.jsonl", "clear");
        Path pol = dir.resolve("bankpol.yaml");
        CliRun fromClear = run("replay", "injection," + pol, clear.toString());
        assertThat(row(fromClear.out(), "injection.untrusted-target")).as("the clear log replays as online")
                .isEqualTo("injection.untrusted-target 1 2 0");
        assertThat(fromClear.err()).doesNotContain("hashed");

        Path hashed = injectionLog("hashed.jsonl", "hashed");
        CliRun r = run("replay", "injection," + pol, hashed.toString(), "--no-progress");
        // the online blocks are lost from the digests: the note says so and names the contract
        assertThat(row(r.out(), "injection.untrusted-target")).isNotEqualTo("injection.untrusted-target 1 2 0");
        assertThat(r.err()).contains("note: hashed.jsonl is an audit log with personal data hashed (salted-sha256): these contracts read"
                + " content it holds only as digests (texts, argument values, results), so their verdicts from it are not the online"
                + " ones (an atom may come out false, not only unevaluable): injection.untrusted-target (untrusted_target);"
                + " bankpol.cap (arg(send_money, amount) <= 1000). Replayed in enforce mode, whether an event is applied follows"
                + " their verdicts from digests (a refused event is not applied): every event was applied or refused here as the"
                + " log's decision says it was online, so the other contracts' verdicts are the online ones."
                + " Write the log with audit.personal-data: clear to replay them");
        // both payments are refused here too (bankpol.cap's digested amount is unevaluable), so bankpol.read-first, which
        // reads no content, sees what it saw online and is not named: its verdict is the clear log's
        assertThat(row(r.out(), "bankpol.read-first")).isEqualTo(row(fromClear.out(), "bankpol.read-first"));
        // replayed in shadow mode every event is applied: only the contracts that read content are named
        CliRun shadow = run("replay", "injection," + pol, hashed.toString(), "--no-progress", "--mode", "shadow");
        assertThat(shadow.err()).contains("bankpol.cap (arg(send_money, amount) <= 1000). Write the log").doesNotContain("bankpol.read-first");
        // with --format json the note stays on standard error and standard output is one JSON document
        CliRun json = run("replay", "injection," + pol, hashed.toString(), "--format", "json");
        assertThat(json.err()).contains("injection.untrusted-target (untrusted_target)");
        assertThat(new ObjectMapper().readTree(json.out()).path("sessions").size()).isEqualTo(1);
        // libraries whose contracts read only structure: the note says their verdicts are the online ones
        Path order = Files.writeString(dir.resolve("order.yaml"),
                "library: order\ncontracts:\n  - id: order.read-first\n    guarantee: G(call(send_money) -> O returned(read_invoice))\n");
        CliRun structural = run("replay", order.toString(), hashed.toString());
        assertThat(structural.err()).contains("none of the replayed contracts reads content it holds only as digests");
    }

    @Test
    void eventsWithUnevaluableAtomsAreNamedWithTheirAtoms() throws Exception {
        Path lib = Files.writeString(dir.resolve("pay.yaml"),
                "library: pay\ncontracts:\n  - id: pay.cap\n    guarantee: G(call(pay) -> arg(pay, amount) <= 100)\n    message: Small payments only.\n");
        StringBuilder trace = new StringBuilder();
        for (int i = 1; i <= 12; i++) trace.append("{\"session\":\"s\",\"seq\":").append(i).append(",\"kind\":\"call\",\"tool\":\"pay\",\"args\":{}}\n");
        Path t = Files.writeString(dir.resolve("u.jsonl"), trace);
        CliRun r = run("replay", lib.toString(), t.toString());
        assertThat(r.out()).contains("12 events with unevaluable atoms")
                .contains("events with unevaluable atoms (an argument the atom reads is missing or not a number, or a context key it"
                        + " compares with, ctx(key), is still empty: no latch set it yet):")
                .contains("  u.jsonl:1 (seq 1, call pay): arg(pay, amount) <= 100")
                .contains("  u.jsonl:10 (seq 10, call pay)").doesNotContain("u.jsonl:11 (seq 11")
                .contains("... and 2 more (--verbose lists them all)");
        CliRun all = run("replay", lib.toString(), t.toString(), "--verbose");
        assertThat(all.out()).contains("  u.jsonl:12 (seq 12, call pay): arg(pay, amount) <= 100").doesNotContain("more (--verbose");
    }

    /** trial18 repro 04, offline: replay names a side-effecting call's missing target arguments as the online refusal does. */
    @Test
    void aSideEffectingCallWithoutItsTargetArgumentIsExplainedInReplay() throws Exception {
        Path pol = Files.writeString(dir.resolve("pol.yaml"), "library: mailpol\ninjection:\n  side-effecting:\n    send_email: [recipient]\n");
        Path t = Files.writeString(dir.resolve("m.jsonl"),
                "{\"session\":\"s\",\"seq\":1,\"kind\":\"call\",\"tool\":\"send_email\",\"args\":{\"to\":\"ann@example.com\",\"body\":\"b\"}}\n");
        CliRun r = run("replay", "injection," + pol, t.toString());
        assertThat(r.out()).contains("  m.jsonl:1 (seq 1, call send_email): untrusted_target (send_email has none of its target arguments"
                + " [recipient] (injection.side-effecting in pol.yaml); its arguments are to, body)");
    }

    /**
     * trial18 repro 02: from a hashed log the sum's digests are unevaluable, so replay in enforce mode refuses every
     * refund; none is applied, the count never passes 2, and the count contract that blocked the third refund online
     * replays as never violated. It reads no content, but the note must name it.
     */
    @Test
    void aHashedLogsNoteNamesTheContractsWhoseEventsFollowAContentReadingOne() throws Exception {
        Path lib = Files.writeString(dir.resolve("support.yaml"), """
                library: support
                contracts:
                  - id: support.max-two-refunds
                    guarantee: G(count(issue_refund) <= 2)
                  - id: support.refund-budget
                    guarantee: G(sum(issue_refund, amount) <= 300)
                """);
        Path log = dir.resolve("refunds.jsonl");
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(
                "libraries=" + lib + ",audit.path=" + log, java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        dev.tracegate.agent.supervision.ContractSupervisor s = new dev.tracegate.agent.supervision.ContractSupervisor(
                config, audit, new dev.tracegate.agent.metrics.SupervisorMetrics(), null);
        s.onUserMessage(new dev.tracegate.agent.core.Message("x", "t", "Refund 10 EUR three times"));
        java.util.List<String> online = new java.util.ArrayList<>();
        for (String id : new String[] {"c1", "c2", "c3"}) {
            online.add(String.valueOf(s.onToolCall(new dev.tracegate.agent.core.ToolCall("x", "t", "issue_refund",
                    "{\"order_id\":\"A1\",\"amount\":10}", id)).contract()));
        }
        s.close();
        assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        assertThat(online).as("online the third refund is blocked by the count").containsExactly("null", "null", "support.max-two-refunds");

        CliRun r = run("replay", lib.toString(), log.toString(), "--no-progress");
        assertThat(row(r.out(), "support.max-two-refunds")).as("the verdict that differs from the online one")
                .isEqualTo("support.max-two-refunds 0 0 0");
        assertThat(r.err()).contains("support.refund-budget (sum(issue_refund, amount) <= 300).")
                .contains("may differ too, each with the first one: support.max-two-refunds (refunds.jsonl:4 (seq 2, call issue_refund):"
                        + " refused here, applied online).");
    }
}
