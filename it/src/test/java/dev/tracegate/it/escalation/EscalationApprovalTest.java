package dev.tracegate.it.escalation;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Trial finding C11 in a forked JVM under the built agent jar: an approver's answer covers one call. A host
 * (the hardening demo's configured tool methods, which import nothing of tracegate) makes five transfers in
 * one session; every transfer above the escalation limit is escalated, each approval lets only its own call
 * through, a call the approver allows but another contract refuses is blocked, and {@code replay} of the
 * audit log applies the same approvals and ends with the verdicts the agent recorded.
 */
class EscalationApprovalTest {
    private static final String APP = "demoapp.hardening.FaultApp";
    private static final String TOOLS = "demoapp.hardening.FaultApp$Tools";
    private static final String LIBRARY = """
            library: approvals
            contracts:
              - id: big-transfer
                guarantee: G(call(transfer) -> arg(amount) <= 1000)
                strategy: escalate
                message: Transfers above 1000 need a human approval.
              - id: transfer-cap
                guarantee: G(call(transfer) -> arg(amount) <= 10000)
                strategy: redirect
                redirect-to: open_ticket
                message: Transfers above 10000 go through a ticket.
            """;
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir Path dir;

    private record Output(int exit, String stdout, String stderr, List<String> command) {
        @Override public String toString() {
            return "exit " + exit + " of " + String.join(" ", command) + "\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    private static Path agentJar() {
        Path jar = Path.of(System.getProperty("tracegate.agent.jar", "../agent/target/tracegate-agent.jar")).toAbsolutePath().normalize();
        if (!Files.isRegularFile(jar)) throw new IllegalStateException("agent jar " + jar + " not found: run mvn -pl agent,it -am verify");
        return jar;
    }

    /** The demo application's class path, and this test's classes for the approver (an operator's class, not the app's). */
    private static String classpath() throws IOException {
        String deps = Files.readString(Path.of(System.getProperty("tracegate.app.classpath.file", "target/app-classpath.txt"))).strip();
        Path approver = Path.of(ApprovingApprover.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        return System.getProperty("tracegate.app.classes", "target/classes") + File.pathSeparator + deps + File.pathSeparator + approver;
    }

    private Output run(List<String> command) throws IOException, InterruptedException {
        Path out = dir.resolve("out.txt"), err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(command).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(180, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError("forked JVM did not finish: " + command);
        }
        return new Output(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8), command);
    }

    private static int count(String text, String part) { return text.split(Pattern.quote(part), -1).length - 1; }

    @Test
    void everyViolatingCallIsEscalatedAndTheAuditLogReplaysTheApprovals() throws Exception {
        Path lib = Files.writeString(dir.resolve("approvals.yaml"), LIBRARY);
        Path methods = Files.writeString(dir.resolve("methods.txt"), "tool " + TOOLS + "#transfer name=transfer args=1 session=0\n");
        Path audit = dir.resolve("audit.jsonl");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String options = "libraries=" + lib + ",methods=" + methods + ",audit.path=" + audit + ",audit.personal-data=clear,view=off"
                + ",escalate.approver=" + ApprovingApprover.class.getName();
        Output app = run(List.of(java, "-javaagent:" + agentJar() + "=" + options, "-cp", classpath(), APP,
                "call:transfer:s1:{\"amount\":5000}", "call:transfer:s1:{\"amount\":100}", "call:transfer:s1:{\"amount\":7000}",
                "call:transfer:s1:{\"amount\":20000}", "call:transfer:s1:{\"amount\":3000}"));
        assertThat(app.exit()).as(app.toString()).isZero();

        // each transfer above 1000 asked the approver (before the fix only the first did: the contract then stayed FAIL)
        assertThat(count(app.stdout(), "APPROVER ASKED contract=big-transfer")).as(app.toString()).isEqualTo(4);
        assertThat(app.stdout()).contains("APPROVER ASKED contract=big-transfer arguments={\"amount\":7000}")
                .contains("APPROVER ASKED contract=big-transfer arguments={\"amount\":3000}")
                .doesNotContain("arguments={\"amount\":100}");
        // the allowed calls ran; the one above the cap did not, though the approver allowed it
        assertThat(count(app.stdout(), "TOOL transfer ran session=s1")).isEqualTo(4);
        assertThat(app.stdout()).contains("RESULT transfer: transferred {\"amount\":3000}")
                .contains("RESULT transfer: tracegate blocked the call to transfer (contract transfer-cap)")
                .doesNotContain("transferred {\"amount\":20000}");

        List<JsonNode> events = new ArrayList<>();
        JsonNode library = null;
        for (String line : Files.readAllLines(audit, StandardCharsets.UTF_8)) {
            JsonNode r = JSON.readTree(line);
            if ("library".equals(r.path("rec").asText())) library = r;
            if ("event".equals(r.path("rec").asText())) events.add(r);
        }
        List<JsonNode> calls = events.stream().filter(e -> e.path("kind").asText().equals("call")).toList();
        assertThat(calls).extracting(e -> e.path("decision").asText() + (e.path("approved").asBoolean() ? " approved " : " ") + e.path("fired"))
                .containsExactly("escalate approved [\"big-transfer\"]", "pass ", "escalate approved [\"big-transfer\"]",
                        "block [\"transfer-cap\"]", "escalate approved [\"big-transfer\"]");
        assertThat(library).isNotNull();
        assertThat(library.path("contracts").toString()).isEqualTo("[\"big-transfer\",\"transfer-cap\"]");
        // online, after every event: both contracts ACTIVE (an approval does not leave big-transfer FAIL)
        assertThat(events).allSatisfy(e -> assertThat(e.path("verdicts").asText()).isEqualTo("AA"));

        Output verify = run(List.of(java, "-jar", agentJar().toString(), "audit", "verify", audit.toString()));
        assertThat(verify.stdout()).as(verify.toString()).contains("ok:").contains("chain intact");

        // replay reads the approvals: the approved calls pass, only the capped transfer violates, and the session
        // ends with the verdicts the agent recorded at its end
        Output replay = run(List.of(java, "-jar", agentJar().toString(), "replay", lib.toString(), audit.toString(), "--format", "json"));
        assertThat(replay.exit()).as(replay.toString()).isEqualTo(1);
        JsonNode report = JSON.readTree(replay.stdout());
        JsonNode contracts = report.path("sessions").get(0).path("contracts");
        int cappedLine = 2 + events.indexOf(calls.get(3)) + 1;   // header, library, then the events in order
        for (JsonNode c : contracts) {
            assertThat(c.path("verdict").asText()).as(replay.toString()).isEqualTo("ACTIVE");
            assertThat(c.path("events").asInt()).as("%s fires only at the capped transfer: %s", c.path("id"), replay).isEqualTo(1);
            assertThat(c.path("firstViolation").asText()).isEqualTo(audit.getFileName() + ":" + cappedLine + " (seq " + calls.get(3).path("seq").asLong() + ", call transfer)");
        }
    }
}
