package dev.tracegate.agent.supervision;

import static org.assertj.core.api.Assertions.assertThat;

import dev.tracegate.agent.audit.Decision;
import dev.tracegate.engine.monitor.EndReport;
import dev.tracegate.engine.monitor.Verdict;
import dev.tracegate.matchers.event.Event;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The live view prints no more personal data than the audit log keeps: with the default hashed log, what its
 * detectors find in arguments, results and messages is shown as its category; with audit.personal-data: clear, as it
 * is (trial5 finding 7: a blocked payment's IBAN was printed in clear under a hashed log).
 */
class LiveViewTest {

    private static String shown(boolean inClear, Event e) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        new LiveView(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, inClear).event(e, Decision.BLOCK, "injection.untrusted-target", null, 1000);
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void detectedPersonalDataIsShownAsItsCategoryUnlessTheLogKeepsItInClear() {
        Event call = Event.call("alice", 4, "send_money", "{\"recipient\":\"DE89370400440532013000\",\"amount\":120}");
        assertThat(shown(false, call)).contains("send_money {\"recipient\":\"[iban]\",\"amount\":120}").doesNotContain("DE89")
                .contains("BLOCK injection.untrusted-target");
        assertThat(shown(true, call)).contains("\"recipient\":\"DE89370400440532013000\"");

        Event user = Event.user("alice", 5, "Mail ann@example.com or call +44 20 7946 0958 about order 7");
        assertThat(shown(false, user)).contains("USER      Mail [email] or call [phone] about order 7");
        Event result = Event.returned("alice", 6, "read_invoice", "pay to DE89 3704 0044 0532 0130 00 today", false);
        assertThat(shown(false, result)).contains("RETURN    read_invoice pay to [iban] today");
    }

    /** An erasure that belongs to no conversation (empty session id, trial21 07) is said so, not shown as "[ #1]". */
    @Test
    void anEventOfNoConversationIsSaidToBeOne() {
        Event erasure = Event.builder(dev.tracegate.matchers.event.EventKind.ERASURE).session("").seq(1).subject("bob").build();
        assertThat(shown(false, erasure)).contains("[no conversation #1] ERASURE").doesNotContain("[ #1]");
    }

    @Test
    void unmetObligationsAtEndReadAsInTheAuditLogNotAsRecordText() {
        // trial12 live-view-end-line-java-record-text: the END line printed [Obligation[contract=0, contractId=..., pending=...]]
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EndReport r = new EndReport("s1", List.of(Verdict.FAIL, Verdict.FAIL, Verdict.ACTIVE), List.of(
                new EndReport.Obligation(0, "ob.notify", "F returned(confirm)"), new EndReport.Obligation(1, "ob.close", null)), 3);
        new LiveView(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, false).end(r, new String[] {"ob.notify", "ob.close", "ob.other"});
        assertThat(bytes.toString(StandardCharsets.UTF_8).strip())
                .isEqualTo("[s1] END ob.notify=FAIL ob.close=FAIL  unmet: ob.notify: F returned(confirm); ob.close");
    }
}
