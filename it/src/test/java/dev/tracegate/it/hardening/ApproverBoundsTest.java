package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import static dev.tracegate.it.hardening.FaultInjectionTest.metric;
import static dev.tracegate.it.hardening.FaultInjectionTest.metrics;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial20 06 and 02 in forked JVMs under the built agent jar, with operators' approvers (JDK types only) beside the
 * hardening demo, which imports nothing of tracegate: an approver whose constructor blocks does not hang the start
 * (before: main never ran, under both policies, silently), and an approver stuck in a call that ignores interrupts
 * costs at most escalate.max-stuck threads (before: one per escalation, for ever).
 */
class ApproverBoundsTest {
    private static final String APP = "demoapp.hardening.FaultApp";
    private static final String TOOLS = "demoapp.hardening.FaultApp$Tools";
    private static final String LIBRARY = """
            library: approvals
            contracts:
              - id: big-transfer
                guarantee: G(call(transfer) -> arg(amount) <= 1000)
                strategy: escalate
                message: Transfers above 1000 need a human approval.
            """;

    @TempDir Path dir;

    /** Its constructor connects to an approval service that does not answer: here it sleeps ten minutes. */
    public static final class HangingCtorApprover {
        public HangingCtorApprover() throws InterruptedException {
            Thread.sleep(600_000);
        }

        public boolean approve(Map<String, String> request) {
            return true;
        }
    }

    /** Blocked in a call that ignores interrupts, as a socket read without a timeout is: never returns. */
    public static final class StubbornApprover {
        public boolean approve(Map<String, String> request) {
            System.out.println("STUBBORN ASKED " + request.get("session"));
            System.out.flush();
            while (true) {
                try {
                    Thread.sleep(60_000);
                } catch (InterruptedException e) {
                    // ignored
                }
            }
        }
    }

    private Forked.Output app(String options, String... commands) throws Exception {
        Path lib = Files.writeString(dir.resolve("approvals.yaml"), LIBRARY);
        Path methods = Files.writeString(dir.resolve("methods.txt"), "tool " + TOOLS + "#transfer name=transfer args=1 session=0\n");
        List<String> command = new ArrayList<>(Forked.command(Forked.java(), "libraries=" + lib + ",methods=" + methods
                + ",audit.path=" + dir.resolve("audit.jsonl") + ",view=off," + options, APP, commands));
        // the approvers are the operator's classes, on the application's class path beside it
        Path approvers = Path.of(HangingCtorApprover.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        int cp = command.indexOf("-cp") + 1;
        command.set(cp, command.get(cp) + File.pathSeparator + approvers);
        return Forked.run(command);   // fails on a non-zero exit, and ends a JVM that has not ended after -Dit.fork.timeout (600 s)
    }

    private static int count(String text, String part) { return text.split(Pattern.quote(part), -1).length - 1; }

    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anApproverWhoseConstructorBlocksDoesNotHangTheStart(String fail) throws Exception {
        String name = HangingCtorApprover.class.getName();
        Forked.Output r = app("fail=" + fail + ",escalate.timeout=1s,escalate.approver=" + name,
                "call:transfer:s1:{\"amount\":5000}", "call:transfer:s1:{\"amount\":50}", "metrics");
        assertThat(r.stderr()).as(r.toString()).contains("ERROR escalate.approver " + name + ": its class or constructor has not returned after 1 s")
                .contains("(escalated: the approver " + name + " is not ready: its constructor has not returned");
        assertThat(r.stdout()).as(r.toString()).contains("RESULT transfer: transferred {\"amount\":50}")
                .doesNotContain("transferred {\"amount\":5000}").contains("END");
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "Approvals.not-ready")).isEqualTo(1);
        assertThat(metric(m, "Decisions.escalate")).isEqualTo(1);
    }

    @Test
    void aStuckApproverCostsAtMostMaxStuckThreads() throws Exception {
        String name = StubbornApprover.class.getName();
        List<String> commands = new ArrayList<>();
        for (int i = 0; i < 12; i++) commands.add("call:transfer:s" + i + ":{\"amount\":5000}");
        commands.add("metrics");
        Forked.Output r = app("escalate.timeout=100ms,escalate.max-stuck=3,escalate.approver=" + name, commands.toArray(String[]::new));
        assertThat(count(r.stdout(), "STUBBORN ASKED")).as("only max-stuck threads were started: %s", r).isEqualTo(3);
        Map<String, String> m = metrics(r.stdout());
        assertThat(metric(m, "ApproverThreadsStuck")).isEqualTo(3);
        assertThat(metric(m, "Approvals.timed-out")).isEqualTo(3);
        assertThat(metric(m, "Approvals.not-answering")).isEqualTo(9);
        assertThat(count(r.stderr(), "WARN escalate.approver " + name)).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).contains("(escalated: the approver " + name + " is not answering: 3 of its threads are still running past escalate.timeout");
        assertThat(count(r.stdout(), "transferred")).isZero();
    }
}
