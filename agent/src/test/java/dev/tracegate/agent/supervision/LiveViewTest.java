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

    /**
     * The exit summary's {@code events} is the sum of its {@code decision} lines, and the sessions' {@code end} records
     * are a line of their own, so the two together are the event records {@code audit verify} counts (trial28 03: the
     * table said events 7 beside decision lines summing to 8, the ends among them).
     */
    @Test
    void theSummarysEventsAreTheSumOfItsDecisionLinesAndTheEndsAreTheirOwnLine(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        dev.tracegate.agent.metrics.SupervisorMetrics m = new dev.tracegate.agent.metrics.SupervisorMetrics();
        for (int i = 0; i < 6; i++) m.onDecision(Decision.PASS, 1000);
        m.onDecision(Decision.BLOCK, 1000);
        m.onSessionEnd();
        java.nio.file.Path log = dir.resolve("audit.jsonl");
        dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load("audit.path=" + log,
                java.util.Map.of(), java.util.Map.of(), java.util.Set.of());
        dev.tracegate.agent.audit.AuditWriter audit = dev.tracegate.agent.audit.AuditWriter.start(log,
                dev.tracegate.agent.audit.AuditWriter.Settings.from(config));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            new LiveView(new PrintStream(bytes, true, StandardCharsets.UTF_8), false, false).summary(m, audit);
        } finally {
            audit.close(10, java.util.concurrent.TimeUnit.SECONDS);
        }
        String summary = bytes.toString(StandardCharsets.UTF_8);
        long events = -1, decisions = 0, ended = -1;
        for (String line : summary.split("\n")) {
            String[] words = line.strip().split("\\s{2,}");
            if (words.length != 2) continue;
            if (words[0].equals("events")) events = Long.parseLong(words[1]);
            if (words[0].startsWith("decision ")) decisions += Long.parseLong(words[1]);
            if (words[0].equals("sessions ended")) ended = Long.parseLong(words[1]);
        }
        assertThat(events).as(summary).isEqualTo(7);
        assertThat(decisions).as(summary).isEqualTo(events);
        assertThat(ended).as(summary).isEqualTo(1);
        assertThat(summary).doesNotContain("decision end");
    }
}
