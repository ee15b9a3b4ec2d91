package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The built agent jar with real contract libraries (gdpr, injection, sop-refund, temporal-classes)
 * supervising the demo's LangChain4j support desk in forked JVMs, on Java 17 and (when present) 25.
 * Asserted on what really reached the tools and on the audit log, which must verify and replay
 * offline to the same first violations.
 */
class ContractsEndToEndTest {
    private static final String APP = "demoapp.support.SupportDesk";
    private static final Path CONFIG = Path.of("demo/tracegate.yaml").toAbsolutePath();
    private static final Path POLICY = Path.of("demo/support-policy.yaml").toAbsolutePath();

    @TempDir Path dir;

    private ForkedJvm.Result desk(String java, Path audit, String options, String... args) {
        String opts = "config=" + CONFIG + ",audit.path=" + audit + ",audit.personal-data=clear,view=off" + options;
        ForkedJvm.Result r = ForkedJvm.run(java, List.of(ForkedJvm.agent(opts)), ForkedJvm.appClasspath(), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static ForkedJvm.Result cli(String... args) {
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString()));
        command.addAll(List.of(args));
        return ForkedJvm.exec(command);
    }

    /**
     * demo.sh verifies the audit log at the path the demo's configuration names, read as the agent reads it (a relative
     * path written in the file is read from the file's directory): when the two drift apart, the main job's last step
     * fails ('is not a file') although no other test notices.
     */
    @Test
    void demoScriptVerifiesTheLogTheDemoConfigurationWrites() throws Exception {
        String script = java.nio.file.Files.readString(Path.of("..", "demo.sh"));
        java.util.regex.Matcher log = java.util.regex.Pattern.compile("(?m)^LOG=(\\S+)$").matcher(script);
        assertThat(log.find()).as("demo.sh names its audit log in LOG=").isTrue();
        assertThat(script).contains("audit verify \"$LOG\"");
        java.util.regex.Matcher path = java.util.regex.Pattern.compile("(?m)^audit\\.path:\\s*(\\S+)\\s*$")
                .matcher(java.nio.file.Files.readString(CONFIG));
        assertThat(path.find()).as("it/demo/tracegate.yaml sets audit.path").isTrue();
        Path written = CONFIG.getParent().resolve(path.group(1)).normalize();
        Path verified = Path.of("..").toAbsolutePath().resolve(log.group(1)).normalize();
        assertThat(verified).isEqualTo(written);
    }

    @Test
    void supportDeskOnJava17() throws Exception {
        supportDesk(ForkedJvm.java());
    }

    @Test
    void supportDeskOnJava25WhenPresent() throws Exception {
        if (!ForkedJvm.java25Present()) {
            System.out.println("ContractsEndToEndTest: Java 25 not present at " + ForkedJvm.JAVA_25 + ", ran Java 17 only");
            return;
        }
        System.out.println("ContractsEndToEndTest: running on Java 25 too");
        supportDesk(ForkedJvm.JAVA_25);
    }

    private void supportDesk(String java) throws Exception {
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = desk(java, audit, "");
        String out = r.stdout();
        // Refund SOP: before approval blocked, above the approved amount blocked, within it passes.
        assertThat(out).contains("TOOL RAN approve_refund order_id=1001 amount=50 EUR")
                .contains("TOOL RAN refund order_id=1001 amount=50.00 EUR")
                .doesNotContain("TOOL RAN refund order_id=1001 amount=89.00 EUR");
        // Prompt injection: the attacker's address from the ticket is blocked, the user's own passes.
        assertThat(out).doesNotContain("TOOL RAN send_email to=audit-team@evil.example")
                .contains("TOOL RAN send_email to=ada@example.com");
        // GDPR P1: the newsletter only after consent was recorded; exactly once.
        assertThat(out.indexOf("TOOL RAN record_consent")).isLessThan(out.indexOf("TOOL RAN send_newsletter"));
        assertThat(out.split("TOOL RAN send_newsletter", -1)).hasSize(2);
        // GDPR P3: the shipment runs without the e-mail its purpose does not need.
        assertThat(out).contains("TOOL RAN create_shipment name=Ada Lovelace address=12 Baker Street, London NW1 6XE email=null");
        // GDPR P4: after the erasure the profile is not read.
        assertThat(out).contains("TOOL RAN forget_customer customer_id=C-1").doesNotContain("TOOL RAN customer_profile");
        // The model was told why and what to do instead.
        assertThat(out).contains("tracegate blocked the call to customer_profile (contract gdpr.P4-erasure)")
                .contains("tell the user it was erased at their request");

        Map<String, String> online = firstViolations(audit);
        assertThat(online).containsEntry("refund-sop/sop-refund.approval-first", "4")
                // named already at the refund before any approval (d93c0c4: the approved amount is unevaluable there, and
                // one value of it fails this contract), then on its own at the refund over the approved amount
                .containsEntry("refund-sop/sop-refund.within-approved-amount", "4")
                .containsEntry("injected-ticket/injection.untrusted-target", "4")
                .containsEntry("newsletter/gdpr.P1-consent", "2")
                .containsEntry("erasure/gdpr.P4-erasure", "4");
        assertThat(Files.readString(audit)).contains("\"decision\":\"redact\"").contains("gdpr.P3-minimisation");
        assertThat(Files.readAllLines(audit)).as("the refund over the approved amount (seq 7) is blocked by within-approved-amount")
                .anyMatch(l -> l.contains("\"session\":\"refund-sop\"") && l.contains("\"seq\":7,")
                        && l.contains("\"decision\":\"block\"") && l.contains("sop-refund.within-approved-amount"));

        ForkedJvm.Result verify = cli("audit", "verify", audit.toString());
        assertThat(verify.exit()).as(verify.toString()).isZero();
        assertThat(verify.stdout()).contains("chain intact");

        // Offline replay of the audit log finds the same first violations, event for event.
        ForkedJvm.Result replay = cli("replay", "gdpr,injection,sop-refund," + POLICY, audit.toString(), "--format", "json");
        assertThat(replay.exit()).as(replay.toString()).isEqualTo(1);
        Map<String, String> offline = new TreeMap<>();
        for (JsonNode s : new ObjectMapper().readTree(replay.stdout()).get("sessions")) {
            for (JsonNode c : s.get("contracts")) {
                JsonNode first = c.get("firstViolation");
                if (first != null && !first.isNull()) {
                    String seq = first.asText().replaceAll(".*\\(seq (\\d+),.*", "$1");
                    offline.put(s.get("session").asText() + "/" + c.get("id").asText(), seq);
                }
            }
        }
        assertThat(offline).isEqualTo(online);
    }

    /** session/contract -> seq of the first record that fired it as a block, redaction or suppression. */
    private static Map<String, String> firstViolations(Path audit) throws Exception {
        Map<String, String> out = new TreeMap<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            JsonNode r = json.readTree(line);
            if (!"event".equals(r.path("rec").asText())) continue;
            String d = r.path("decision").asText();
            if (d.equals("pass") || d.equals("end") || !r.has("fired")) continue;
            if (d.equals("suppress")) continue; // an assumption break, not a violation
            if (d.equals("redact")) continue;   // logged as the rewritten call that ran, which keeps the contract
            for (JsonNode f : r.get("fired")) out.putIfAbsent(r.get("session").asText() + "/" + f.asText(), r.get("seq").asText());
        }
        return out;
    }

    @Test
    void fourTemporalClassesViolatingRunsBlockedCompliantControlsUntouched() {
        Path audit = dir.resolve("temporal.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=temporal-classes,audit.path=" + audit + ",view=off")),
                ForkedJvm.appClasspath(), APP, "temporal");
        assertThat(r.exit()).as(r.toString()).isZero();
        String out = r.stdout();
        // Every violating conversation: its last call never ran; every compliant one: all calls ran.
        assertThat(section(out, "precedence-violating")).doesNotContain("TOOL RAN transfer_funds");
        assertThat(section(out, "precedence-compliant")).contains("TOOL RAN verify_identity").contains("TOOL RAN transfer_funds");
        assertThat(section(out, "history-violating")).contains("TOOL RAN read_confidential_file").doesNotContain("TOOL RAN send_external_email");
        assertThat(section(out, "history-compliant")).contains("TOOL RAN send_external_email");
        assertThat(section(out, "count-violating").split("TOOL RAN web_search", -1)).hasSize(4);
        assertThat(section(out, "count-compliant").split("TOOL RAN web_search", -1)).hasSize(3);
        assertThat(section(out, "reconfirm-violating")).contains("TOOL RAN fetch_web_page").doesNotContain("TOOL RAN transfer_funds");
        assertThat(section(out, "reconfirm-compliant")).contains("TOOL RAN transfer_funds");
    }

    @Test
    void interleavedSessionsKeepTheirOwnHistory() {
        Path audit = dir.resolve("interleaved.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=sop-refund,audit.path=" + audit + ",view=off")),
                ForkedJvm.appClasspath(), APP, "interleaved");
        assertThat(r.exit()).as(r.toString()).isZero();
        // Alice's approval lets her refund run; Bob's session never saw an approval, so his refund is blocked.
        assertThat(r.stdout()).as(r.toString()).contains("TOOL RAN refund order_id=2001 amount=30 EUR")
                .doesNotContain("TOOL RAN refund order_id=2002");
        assertThat(r.stdout()).contains("tracegate blocked the call to refund (contract sop-refund.approval-first)");
    }

    @Test
    void hotReloadSwapsTheLibraryInARunningJvmAndRejectsABrokenOne() throws Exception {
        Path lib = dir.resolve("policy.yaml");
        Files.writeString(lib, "library: p\ncontracts:\n  - id: no-search\n    guarantee: G !call(web_search)\n");
        Path go = dir.resolve("go");
        Path audit = dir.resolve("reload.jsonl");
        List<String> command = new ArrayList<>(List.of(ForkedJvm.java(),
                ForkedJvm.agent("libraries=" + lib + ",hot-reload=200ms,audit.path=" + audit + ",view=off"),
                "-cp", ForkedJvm.appClasspath(), APP, "reload", go.toString()));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        try {
            waitFor(out, "WAITING", p);
            // A broken edit is rejected and the running version stays; then a good edit is taken.
            Files.writeString(lib, "library: p\ncontracts:\n  - id: broken\n    guarantee: G(call(x) ->\n");
            waitFor(err, "library reload rejected", p);
            Files.writeString(lib, "library: p\ncontracts:\n  - id: no-external-mail\n    guarantee: G !call(send_external_email)\n");
            waitFor(err, "libraries reloaded", p);
            Files.writeString(go, "go");
            assertThat(p.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }
        String stdout = Files.readString(out);
        assertThat(stdout).as(stdout + Files.readString(err)).contains("  before-reload answered")
                .contains("tracegate blocked the call to send_external_email (contract no-external-mail)");
        assertThat(section(stdout, "before-reload")).contains("TOOL RAN send_external_email");
        assertThat(Files.readString(err)).contains("hint:");
    }

    private static void waitFor(Path file, String text, Process p) throws Exception {
        for (int i = 0; i < 600; i++) {
            if (Files.exists(file) && Files.readString(file).contains(text)) return;
            if (!p.isAlive()) break;
            Thread.sleep(100);
        }
        throw new AssertionError("no '" + text + "' in " + file + ":\n" + (Files.exists(file) ? Files.readString(file) : ""));
    }

    /** The tool lines printed before "<id> answered" and after the previous conversation's answer. */
    private static String section(String out, String id) {
        int end = out.indexOf("  " + id + " answered:");
        assertThat(end).as("conversation %s in\n%s", id, out).isGreaterThanOrEqualTo(0);
        int start = out.lastIndexOf(" answered:", end - 1);
        if (id.equals("reconfirm-compliant")) end = out.lastIndexOf("  " + id + " answered:");
        return out.substring(Math.max(0, start), end);
    }
}
