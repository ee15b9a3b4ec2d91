package dev.tracegate.it.hardening;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Faults from outside the agent, injected into forked JVMs under the built agent jar, each under
 * {@code fail=closed} and {@code fail=open}: a tool that throws, a host argument the agent cannot
 * serialise, a failing escalation approver, an audit log that cannot be written (parent is a file,
 * disk full; a path that is a directory stops the start), a slow audit reader, a library file corrupted while hot reload
 * watches it, and a host with its own Jackson and Byte Buddy. The application reads the agent's
 * counters through the platform MBean server ({@code METRIC} lines); SECURITY.md has the table.
 */
class FaultInjectionTest {
    private static final String APP = "demoapp.hardening.FaultApp";
    private static final String TOOLS = "demoapp.hardening.FaultApp$Tools";
    private static final String LIBRARY = """
            library: faults
            contracts:
              - id: no-delete
                guarantee: G !call(delete_account)
                message: Accounts are never deleted by the agent.
              - id: big-transfer
                guarantee: G(call(transfer) -> arg(amount) <= 1000)
                strategy: escalate
                message: Transfers above 1000 need a human approval.
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private String options(String fail, Path audit) throws IOException {
        Path lib = Files.writeString(dir.resolve("faults.yaml"), LIBRARY);
        Path methods = Files.writeString(dir.resolve("methods.txt"), String.join("\n",
                "tool " + TOOLS + "#charge name=charge args=1 session=0",
                "tool " + TOOLS + "#deleteAccount name=delete_account args=1 session=0",
                "tool " + TOOLS + "#transfer name=transfer args=1 session=0",
                "tool " + TOOLS + "#ship name=ship args=1 session=0",
                "tool " + TOOLS + "#refund name=refund args=1 session=0", ""));
        return "libraries=" + lib + ",methods=" + methods + ",audit.path=" + audit + ",audit.personal-data=clear,view=off,fail=" + fail;
    }

    private Forked.Output app(String options, String... commands) throws Exception {
        return Forked.run(Forked.command(Forked.java(), options, APP, commands));
    }

    /** The METRIC lines: the agent's MBean attributes as the host reads them, maps flattened to name.key. */
    static Map<String, String> metrics(String stdout) {
        Map<String, String> m = new TreeMap<>();
        Matcher x = Pattern.compile("(?m)^METRIC (\\S+?)=(.*)$").matcher(stdout);
        while (x.find()) m.put(x.group(1), x.group(2));
        assertThat(m).as("the MBean dev.tracegate:type=Supervisor is registered:\n%s", stdout).containsKey("Events");
        return m;
    }

    static long metric(Map<String, String> m, String name) { return Long.parseLong(m.get(name)); }

    static List<JsonNode> records(Path audit) throws IOException {
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit, StandardCharsets.UTF_8)) out.add(JSON.readTree(line));
        return out;
    }

    static List<JsonNode> events(List<JsonNode> records, String session) {
        List<JsonNode> out = new ArrayList<>();
        for (JsonNode r : records) {
            if ("event".equals(r.path("rec").asText()) && session.equals(r.path("session").asText())) out.add(r);
        }
        return out;
    }

    static void assertVerifies(Path audit) throws Exception {
        Forked.Output v = Forked.run(List.of(Forked.java(), "-jar", Forked.agentJar().toString(), "audit", "verify", audit.toString()));
        assertThat(v.stdout()).as(v.toString()).contains("ok:").contains("chain intact");
    }

    private static int count(String text, String part) { return text.split(Pattern.quote(part), -1).length - 1; }

    // ------------------------------------------------------------------------------- (a) the tool throws

    /**
     * The host sees its own exception (not a TracegateViolation), the session goes on and is still
     * supervised, and the failure policy plays no part: nothing inside tracegate failed.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aThrowingToolGivesTheHostItsOwnExceptionAndTheSessionGoesOn(String fail) throws Exception {
        Path audit = dir.resolve("tool-throws.jsonl");
        Forked.Output r = app(options(fail, audit), "call:charge:s1:{\"amount\":5,\"note\":\"decline\"}", "call:charge:s1:{\"amount\":7}",
                "call:delete_account:s1:{}", "lc4j-throwing-tool", "metrics");
        assertThat(r.stdout()).as(r.toString())
                .contains("HOST CAUGHT java.lang.IllegalStateException: card declined by the host's payment service")
                .contains("RESULT charge: charged {\"amount\":7}")
                .contains("RESULT delete_account: tracegate blocked the call to delete_account (contract no-delete)")
                .contains("MODEL SAW TOOL RESULT chargeCard: card declined by the host's payment service");
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "InternalErrors.closed") + metric(m, "InternalErrors.open")).as("no internal error").isZero();
        assertThat(r.stderr()).doesNotContain("internal error");

        List<JsonNode> log = records(audit);
        // LangChain4j turns the exception into an error result: the RETURN record carries it.
        assertThat(events(log, "lc4j-session")).anySatisfy(e -> {
            assertThat(e.path("kind").asText()).isEqualTo("return");
            assertThat(e.path("error").asBoolean()).isTrue();
            assertThat(e.path("result").asText()).contains("card declined");
        });
        // A configured method that throws has its RETURN recorded with the error (finding 6 in SECURITY.md).
        List<String> s1 = new ArrayList<>();
        for (JsonNode e : events(log, "s1")) s1.add(e.path("kind").asText() + "/" + e.path("decision").asText());
        assertThat(s1).containsExactly("call/pass", "return/pass", "call/pass", "return/pass", "call/block", "end/end");
        List<JsonNode> returns = events(log, "s1").stream().filter(e -> "return".equals(e.path("kind").asText())).toList();
        assertThat(returns.get(0).path("error").asBoolean()).as("%s", returns.get(0)).isTrue();
        assertThat(returns.get(0).path("result").asText())
                .isEqualTo("java.lang.IllegalStateException: card declined by the host's payment service");
        assertThat(returns.get(1).path("error").asBoolean()).as("%s", returns.get(1)).isFalse();
        assertThat(returns.get(1).path("result").asText()).isEqualTo("charged {\"amount\":7}");
        assertVerifies(audit);
    }

    /**
     * Reporting the tool's exception fails inside tracegate (the exception's message cannot be read):
     * the failure is counted under the policy in force, yet the host still gets its own exception, not
     * the policy's refusal (the call already failed), and the session goes on.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aToolExceptionTheAgentCannotReportStillReachesTheHostUnchanged(String fail) throws Exception {
        Path audit = dir.resolve("unreadable.jsonl");
        Forked.Output r = app(options(fail, audit), "call:refund:s2:{\"amount\":3}", "call:charge:s2:{\"amount\":4}",
                "call:delete_account:s2:{}", "metrics");
        assertThat(r.stdout()).as(r.toString())
                .contains("HOST CAUGHT demoapp.hardening.FaultApp$UnreadableException\n")
                .contains("RESULT charge: charged {\"amount\":4}")
                .contains("RESULT delete_account: tracegate blocked the call to delete_account (contract no-delete)")
                .doesNotContain("TracegateViolation");
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "InternalErrors." + fail)).as(r.toString()).isEqualTo(1);
        assertThat(metric(m, "InternalErrors." + ("closed".equals(fail) ? "open" : "closed"))).isZero();
        assertThat(r.stderr()).contains("internal error at demoapp.hardening.FaultApp$Tools.refund");
        // the RETURN that could not be built is missing (the ERROR line names it); charge's is the only one
        List<String> returns = new ArrayList<>();
        for (JsonNode e : events(records(audit), "s2")) {
            if ("return".equals(e.path("kind").asText())) returns.add(e.path("result").asText());
        }
        assertThat(returns).containsExactly("charged {\"amount\":4}");
        assertVerifies(audit);
    }

    // --------------------------------------------------------------------- (b) tracegate's own code throws

    /**
     * A host argument whose getter throws makes the agent's JSON conversion fail inside the bridge:
     * closed refuses the call with the internal-error message, open runs it. Both are counted in the
     * MBean's InternalErrors under the policy that decided (finding 7, fixed); no event reaches the supervisor.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anArgumentTheAgentCannotSerialiseFollowsTheFailurePolicy(String fail) throws Exception {
        Forked.Output r = app(options(fail, dir.resolve("ship.jsonl")), "ship:s1", "metrics");
        assertThat(r.stderr()).as(r.toString()).contains("internal error at demoapp.hardening.FaultApp$Tools.ship")
                .contains("label printer offline");
        if (fail.equals("closed")) {
            assertThat(r.stdout()).as(r.toString()).doesNotContain("TOOL ship ran")
                    .contains("RESULT ship: tracegate could not check demoapp.hardening.FaultApp$Tools.ship")
                    .contains("(internal error: IllegalStateException); refused because fail=closed");
        } else {
            assertThat(r.stdout()).as(r.toString()).contains("TOOL ship ran session=s1").contains("RESULT ship: shipped");
        }
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "InternalErrors." + fail)).as("finding 7: counted in the MBean under the policy applied").isEqualTo(1);
        assertThat(metric(m, "InternalErrors." + (fail.equals("closed") ? "open" : "closed"))).isZero();
    }

    /**
     * With {@code block.style=exception} the refusals of {@code fail=closed} reach the host as the
     * configured violation, a {@code TracegateViolation}: for an internal error and for an audit log
     * that cannot be written alike.
     */
    @Test
    void underBlockStyleExceptionAClosedRefusalIsTheConfiguredViolation() throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocker-file"), "a regular file");
        Forked.Output r = app(options("closed", blocker.resolve("audit.jsonl")) + ",block.style=exception", "ship:s1", "call:charge:s1:{\"amount\":3}");
        assertThat(r.stdout()).as(r.toString())
                .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check demoapp.hardening.FaultApp$Tools.ship")
                .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to charge (contract tracegate.internal):"
                        + " the audit log is unavailable")
                .doesNotContain("TOOL ship ran");
    }

    /** Finding 8 (fixed): {@code fail: open} written in the configuration file also governs the bridge's own errors. */
    @Test
    void failOpenFromTheConfigurationFileIsAppliedToBridgeErrors() throws Exception {
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), "fail: open\n");
        String options = options("closed", dir.resolve("cfg.jsonl")).replace(",fail=closed", "") + ",config=" + config + ",debug=true";
        Forked.Output r = app(options, "ship:s1");
        assertThat(r.stderr()).as(r.toString()).containsPattern("fail +?= open +\\[" + Pattern.quote(config.toString()));
        assertThat(r.stdout()).as("the effective configuration says fail=open: the call runs")
                .doesNotContain("refused because fail=closed").contains("TOOL ship ran session=s1");
    }

    /**
     * An approver that throws refuses the escalated call under both policies (documented: an
     * escalation without an answer is refused); the audit log says why; smaller transfers still run.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aThrowingApproverRefusesTheEscalationUnderBothPolicies(String fail) throws Exception {
        Path audit = dir.resolve("approver.jsonl");
        Forked.Output r = app(options(fail, audit) + ",escalate.approver=demoapp.hardening.FaultApp$ThrowingApprover",
                "call:transfer:s1:{\"amount\":5000}", "call:transfer:s1:{\"amount\":50}", "metrics");
        assertThat(r.stdout()).as(r.toString())
                .contains("RESULT transfer: tracegate blocked the call to transfer (contract big-transfer)")
                .contains("the approver failed: java.lang.IllegalStateException: approver backend is down")
                .doesNotContain("InvocationTargetException")
                .contains("TOOL transfer ran session=s1").contains("RESULT transfer: transferred {\"amount\":50}");
        assertThat(count(r.stdout(), "TOOL transfer ran")).isEqualTo(1);
        assertThat(r.stderr()).contains("escalation approver failed");
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "Decisions.escalate")).isEqualTo(1);
        assertThat(metric(m, "InternalErrors.closed") + metric(m, "InternalErrors.open")).isZero();
        assertThat(events(records(audit), "s1")).anySatisfy(e -> {
            assertThat(e.path("decision").asText()).isEqualTo("escalate");
            assertThat(e.path("message").asText()).contains("Refused: the approver failed");
        });
    }

    // ------------------------------------------------------------------- (c) the audit log cannot be written

    /** Under closed every call is refused and counted as refused; under open every call runs and its records count as lost. */
    private void unwritable(String fail, Path audit, String expectedError) throws Exception {
        int n = 20;
        Forked.Output r = app(options(fail, audit), "calls:charge:" + n, "metrics");
        Map<String, String> m = metrics(r.stdout());
        assertThat(m.get("AuditHealthy")).isEqualTo("false");
        assertThat(metric(m, "AuditErrors")).isPositive();
        assertThat(metric(m, "AuditWritten")).isZero();
        if (fail.equals("closed")) {
            assertThat(r.stdout()).as(r.toString()).contains("RAN 0 ANSWERED " + n + " OF " + n)
                    .contains("FIRST REFUSAL tracegate blocked the call to charge (contract tracegate.internal): the audit log is unavailable,"
                            + " so tracegate refuses calls (fail: closed)");
            assertThat(metric(m, "Decisions.block")).isEqualTo(n);
            assertThat(metric(m, "AuditRefused")).isEqualTo(n);
            assertThat(metric(m, "AuditLost")).isZero();
        } else {
            assertThat(r.stdout()).as(r.toString()).contains("RAN " + n + " ANSWERED " + n + " OF " + n).doesNotContain("FIRST REFUSAL");
            assertThat(metric(m, "Decisions.pass")).isEqualTo(2L * n);   // a CALL and a RETURN per call
            assertThat(metric(m, "AuditLost")).isEqualTo(2L * n);
            assertThat(metric(m, "AuditRefused")).isZero();
        }
        // The operator learns why, once per outage (not once per retry), also under fail: open.
        assertThat(count(r.stderr(), "[tracegate] ERROR cannot ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).contains(expectedError).contains(fail.equals("closed") ? "events are refused (fail: closed)"
                : "events pass unaudited (fail: open)");
    }

    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anAuditPathUnderARegularFile(String fail) throws Exception {
        Path blocker = Files.writeString(dir.resolve("blocker"), "a regular file");
        unwritable(fail, blocker.resolve("audit.jsonl"), blocker + " is a file, not a directory");
    }

    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anAuditPathThatIsADirectoryStopsTheStart(String fail) throws Exception {
        // known to be wrong at start: refused like any bad value, not an outage that refuses every call (trial23)
        Path d = Files.createDirectories(dir.resolve("logs"));
        String options = options(fail, d), refused = "audit.path must name a file, but " + d + " is a directory";
        if (fail.equals("closed")) {
            org.assertj.core.api.Assertions.assertThatThrownBy(() -> app(options, "calls:charge:1"))
                    .hasMessageContaining("non-zero exit: exit 78").hasMessageContaining(refused);
        } else {
            Forked.Output r = app(options, "calls:charge:1");
            assertThat(r.stderr()).as(r.toString()).contains(refused).contains("UNSUPERVISED because fail=open");
        }
    }

    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aFullDisk(String fail) throws Exception {
        unwritable(fail, Path.of("/dev/full"), "No space left on device");
    }

    // --------------------------------------------------------------------------- (c) the disk is slow

    /** A named pipe drained by a deliberately slow reader (4 KiB per 20 ms): the audit "disk" is far slower than the host. */
    private static final class SlowReader extends Thread {
        private final Path fifo;
        private final Path copy;
        volatile Throwable failed;

        SlowReader(Path fifo, Path copy) {
            this.fifo = fifo;
            this.copy = copy;
            setDaemon(true);
        }

        @Override public void run() {
            byte[] b = new byte[4096];
            try (InputStream in = new FileInputStream(fifo.toFile()); OutputStream out = Files.newOutputStream(copy)) {
                for (int n; (n = in.read(b)) >= 0; ) {
                    out.write(b, 0, n);
                    Thread.sleep(20);
                }
            } catch (Throwable t) {
                failed = t;
            }
        }
    }

    private record Slow(Forked.Output out, Map<String, String> metrics, List<JsonNode> log) {}

    private Slow slowDisk(String fail, String auditOptions, int calls) throws Exception {
        Path fifo = dir.resolve("audit.fifo"), copy = dir.resolve("audit-copy.jsonl");
        Process mk = new ProcessBuilder("mkfifo", fifo.toString()).inheritIO().start();
        assertThat(mk.waitFor()).isZero();
        SlowReader reader = new SlowReader(fifo, copy);
        reader.start();
        Forked.Output r = app(options(fail, fifo) + ",audit.queue-size=16" + auditOptions, "calls:charge:" + calls, "metrics");
        reader.join(TimeUnit.SECONDS.toMillis(120));
        assertThat(reader.isAlive()).as("the reader saw the end of the pipe").isFalse();
        assertThat(reader.failed).isNull();
        return new Slow(r, metrics(r.stdout()), records(copy));
    }

    private static long eventRecords(List<JsonNode> log) {
        return log.stream().filter(x -> "event".equals(x.path("rec").asText()) && !"end".equals(x.path("kind").asText())).count();
    }

    private static long allEventRecords(List<JsonNode> log) {
        return log.stream().filter(x -> "event".equals(x.path("rec").asText())).count();
    }

    private static long droppedNoted(List<JsonNode> log) {
        return log.stream().filter(x -> "dropped".equals(x.path("rec").asText())).mapToLong(x -> x.path("count").asLong()).sum();
    }

    /** on-full=block (the default): the host waits for the disk, and every record reaches the log; the policy plays no part. */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aSlowDiskWithBlockMakesTheHostWaitAndLosesNothing(String fail) throws Exception {
        int calls = 300;
        Slow s = slowDisk(fail, ",audit.on-full=block,audit.max-block=1h", calls);
        assertThat(s.out.stdout()).as(s.out.toString()).contains("RAN " + calls + " ANSWERED " + calls);
        assertThat(metric(s.metrics, "AuditDropped") + metric(s.metrics, "AuditLost") + metric(s.metrics, "AuditRefused")).isZero();
        // 600 records through a queue of 16 with none dropped: the producers waited for room.
        assertThat(eventRecords(s.log)).isEqualTo(2L * calls);
        assertThat(droppedNoted(s.log)).isZero();
    }

    /** on-full=drop: the host never waits; what did not fit is counted, and the log says how many records it lacks. */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aSlowDiskWithDropLetsEveryCallRunAndCountsTheGap(String fail) throws Exception {
        int calls = 300;
        Slow s = slowDisk(fail, ",audit.on-full=drop", calls);
        assertThat(s.out.stdout()).as(s.out.toString()).contains("RAN " + calls + " ANSWERED " + calls);
        assertThat(metric(s.metrics, "AuditDropped")).isPositive();
        // every record offered (a CALL and a RETURN per call, an END per session) is in the log or counted in a dropped record
        assertThat(allEventRecords(s.log) + droppedNoted(s.log)).as("records written + records the log says are missing").isEqualTo(2L * calls + 3);
    }

    /**
     * on-full=block with a wait bound shorter than the disk needs: under closed, an event whose record
     * could not be queued in time is refused; under open it runs. Either way the gap is counted and noted.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aSlowDiskBeyondMaxBlockFollowsTheFailurePolicy(String fail) throws Exception {
        int calls = 300;
        Slow s = slowDisk(fail, ",audit.on-full=block,audit.max-block=1ms", calls);
        long dropped = metric(s.metrics, "AuditDropped");
        long refused = metric(s.metrics, "AuditRefused");
        assertThat(dropped + refused).isPositive();
        Matcher ran = Pattern.compile("RAN (\\d+) ANSWERED " + calls).matcher(s.out.stdout());
        assertThat(ran.find()).as(s.out.toString()).isTrue();
        long ranCalls = Long.parseLong(ran.group(1));
        // trial20 01: the refused calls' records count in AuditRefused, the others' (results, ends) in AuditDropped
        assertThat(refused).isEqualTo(calls - ranCalls);
        if (fail.equals("closed")) {
            assertThat(ranCalls).isLessThan(calls);
            assertThat(s.out.stdout()).contains("the audit log could not take this decision in time, so tracegate refuses the call (fail: closed)");
        } else {
            assertThat(ranCalls).isEqualTo(calls);
        }
        // a call that ran offered a CALL and a RETURN, a refused one only its CALL; each session an END
        assertThat(allEventRecords(s.log) + droppedNoted(s.log)).isEqualTo(2 * ranCalls + (calls - ranCalls) + 3);
    }

    // ----------------------------------------------------------------- (d) a library corrupted on hot reload

    private static final String RELOAD_LIBRARY = """
            library: reload
            contracts:
              - id: no-delete
                guarantee: G !call(delete_account)
              - id: no-transfer
                guarantee: G !call(transfer)
            """;

    /**
     * Truncated mid-formula, binary garbage, half-written (cut mid-line), emptied: each is rejected
     * with its error, the running version stays for new sessions, and each rejection is counted as
     * InternalErrors.open (the policy in force is the previous library, under both settings).
     * A file cut exactly after a complete contract that then stays as it is, is a valid, smaller library
     * and is taken (it is what is on disk); one still being written is not (finding 9, next test).
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aCorruptedLibraryOnHotReloadIsRejectedAndTheOldOneStays(String fail) throws Exception {
        Path lib = Files.writeString(dir.resolve("reload.yaml"), RELOAD_LIBRARY);
        byte[] garbage = new byte[700];
        new Random(9).nextBytes(garbage);
        String full = RELOAD_LIBRARY;
        List<byte[]> corruptions = List.of(
                full.substring(0, full.indexOf("call(transfer)") + 8).getBytes(StandardCharsets.UTF_8),   // truncated in a formula
                garbage,                                                                                  // binary garbage
                full.substring(0, full.indexOf("  - id: no-transfer") + 10).getBytes(StandardCharsets.UTF_8), // half-written, cut mid-line
                new byte[0]);                                                                             // emptied
        List<String> commands = new ArrayList<>();
        for (int i = 0; i <= corruptions.size(); i++) {
            commands.add("call:transfer:v" + i + ":{}");
            commands.add("await:" + dir.resolve("go" + i));
        }
        commands.add("call:transfer:boundary:{}");
        commands.add("call:delete_account:boundary:{}");
        commands.add("metrics");
        String options = options(fail, dir.resolve("reload.jsonl")).replaceFirst("libraries=[^,]*", "libraries=" + lib) + ",hot-reload=200ms";
        Path out = dir.resolve("reload.out"), err = dir.resolve("reload.err");
        Process p = new ProcessBuilder(Forked.command(Forked.java(), options, APP, commands.toArray(new String[0])))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            for (int i = 0; i < corruptions.size(); i++) {
                waitFor(out, "WAITING " + dir.resolve("go" + i), 1, p);
                replace(lib, corruptions.get(i));
                waitFor(err, "library reload rejected", i + 1, p);
                Files.writeString(dir.resolve("go" + i), "go");
            }
            waitFor(out, "WAITING " + dir.resolve("go" + corruptions.size()), 1, p);
            // half-written exactly at a contract boundary: a complete library with one contract fewer
            replace(lib, full.substring(0, full.indexOf("  - id: no-transfer")).getBytes(StandardCharsets.UTF_8));
            waitFor(err, "libraries reloaded", 1, p);
            Files.writeString(dir.resolve("go" + corruptions.size()), "go");
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out), stderr = Files.readString(err);
        assertThat(count(stdout, "RESULT transfer: tracegate blocked the call to transfer (contract no-transfer)"))
                .as(stdout + stderr).isEqualTo(corruptions.size() + 1);
        assertThat(stderr).contains("is not UTF-8 text").contains("the file is empty").contains("unexpected end of input").contains("has no 'guarantee'");
        assertThat(count(stderr, "library reload rejected")).isEqualTo(corruptions.size());
        // the boundary cut was taken: transfer runs in a new session, delete is still refused
        assertThat(stdout).contains("TOOL transfer ran session=boundary")
                .contains("RESULT delete_account: tracegate blocked the call to delete_account (contract no-delete)");
        Map<String, String> m = metrics(stdout);
        // a rejected reload is not an internal error: no event passed unchecked (trial2 R3, 73daf12)
        assertThat(metric(m, "ReloadsRejected")).as(stdout).isEqualTo(corruptions.size());
        assertThat(metric(m, "InternalErrors.open") + metric(m, "InternalErrors.closed")).isZero();
    }

    /**
     * A library edited in place in two steps, the first of which leaves a valid, smaller library (cut
     * after a complete contract): the agent sees the first step, waits, and loads only the finished file,
     * once it stopped changing. The cut version never runs: transfer stays refused, and exactly one
     * reload happens, to the finished library (its new contract refuses charge). Before finding 9 was
     * fixed the first check after the first step swapped the cut library in. The second step follows
     * the agent's first sighting well within the 1s interval; nothing here measures time.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aLibraryEditedInPlaceIsLoadedOnlyOnceItStopsChanging(String fail) throws Exception {
        Path lib = Files.writeString(dir.resolve("edited.yaml"), RELOAD_LIBRARY);
        String finished = RELOAD_LIBRARY + """
                  - id: no-charge
                    guarantee: G !call(charge)
                """;
        int cut = finished.indexOf("  - id: no-transfer");
        String options = options(fail, dir.resolve("edited.jsonl")).replaceFirst("libraries=[^,]*", "libraries=" + lib) + ",hot-reload=1s";
        Path out = dir.resolve("edited.out"), err = dir.resolve("edited.err");
        Process p = new ProcessBuilder(Forked.command(Forked.java(), options, APP, "call:transfer:v0:{}", "await:" + dir.resolve("go"),
                "call:transfer:v1:{}", "call:charge:v1:{\"amount\":1}", "call:delete_account:v1:{}", "metrics"))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            waitFor(out, "WAITING " + dir.resolve("go"), 1, p);
            Files.writeString(lib, finished.substring(0, cut));                                   // step 1: a complete, smaller library
            waitFor(err, "library files changed", 1, p);
            Files.writeString(lib, finished.substring(cut), java.nio.file.StandardOpenOption.APPEND); // step 2: the rest
            waitFor(err, "libraries reloaded", 1, p);
            Files.writeString(dir.resolve("go"), "go");
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out), stderr = Files.readString(err);
        assertThat(count(stderr, "libraries reloaded")).as(stdout + stderr).isEqualTo(1);
        assertThat(stderr).contains("libraries reloaded (version 2)").doesNotContain("library reload rejected");
        assertThat(stdout).as(stdout + stderr).doesNotContain("TOOL transfer ran")
                .contains("RESULT charge: tracegate blocked the call to charge (contract no-charge)")
                .contains("RESULT delete_account: tracegate blocked the call to delete_account (contract no-delete)");
        assertThat(count(stdout, "RESULT transfer: tracegate blocked the call to transfer (contract no-transfer)")).isEqualTo(2);
        Map<String, String> m = metrics(stdout);
        assertThat(metric(m, "InternalErrors.open") + metric(m, "InternalErrors.closed")).isZero();
    }

    /**
     * Puts the new content in place with one rename, so the watcher sees exactly this content (an
     * in-place write passes through an empty file first, which the watcher may catch as well).
     */
    private static void replace(Path file, byte[] content) throws IOException {
        Path tmp = Files.write(file.resolveSibling(file.getFileName() + ".tmp"), content);
        Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private static void waitFor(Path file, String text, int times, Process p) throws Exception {
        for (int i = 0; i < 1200; i++) {
            if (Files.exists(file) && count(Files.readString(file), text) >= times) return;
            if (!p.isAlive()) break;
            Thread.sleep(50);
        }
        throw new AssertionError("no " + times + "x '" + text + "' in " + file + ":\n" + (Files.exists(file) ? Files.readString(file) : ""));
    }

    // ---------------------------------------------------- (e) the host ships its own Jackson and Byte Buddy

    /**
     * The agent's Jackson and Byte Buddy are relocated and loaded apart, so the host's older copies
     * never meet them: nothing fails, and the policy is never consulted. Both settings give the same run.
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void aHostWithItsOwnJacksonAndByteBuddyIsSupervisedAlike(String fail) throws Exception {
        Path lib = Files.writeString(dir.resolve("shop.yaml"), "library: shop\ncontracts:\n  - id: no-charge\n    guarantee: G !call(charge)\n");
        Path methods = Files.writeString(dir.resolve("shop-methods.txt"), String.join("\n",
                "tool     demoapp.plain.ShopApp$Payments#charge        name=charge args=1 session=0",
                "consent  demoapp.plain.ShopApp$Privacy#grantConsent  subject=0 purpose=1 granted=true session=0",
                "erasure  demoapp.plain.ShopApp$Privacy#erase         subject=0 session=0", ""));
        Path audit = dir.resolve("host-libs.jsonl");
        Forked.Output r = Forked.run(List.of(Forked.java(), "-javaagent:" + Forked.agentJar() + "=libraries=" + lib + ",methods=" + methods
                + ",audit.path=" + audit + ",view=off,fail=" + fail, "-cp", Forked.hostLibsClasspath(), "demoapp.plain.HostLibsApp"));
        assertThat(r.stdout()).as(r.toString())
                .contains("HOST JACKSON 2.17.2 {\"a\":1}")
                .containsPattern("HOST BYTEBUDDY \\S*byte-buddy-1\\.14\\.18\\.jar generated by host byte buddy")
                .contains("AGENT CLASSES VISIBLE: false false false")
                .contains("METHOD grantConsent ran").doesNotContain("METHOD charge ran")
                .contains("RESULT: tracegate blocked the call to charge (contract no-charge)")
                .contains("METHOD erase ran");
        assertThat(r.stderr()).doesNotContain("internal error").doesNotContain("UNSUPERVISED").doesNotContain("LinkageError");
        List<String> kinds = new ArrayList<>();
        for (JsonNode e : events(records(audit), "alice")) kinds.add(e.path("kind").asText() + "/" + e.path("decision").asText());
        assertThat(kinds).containsExactly("consent/pass", "call/block", "erasure/pass", "end/end");
        assertVerifies(audit);
    }
}
