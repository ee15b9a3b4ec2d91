package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Consent and erasure methods configured without {@code session-param}, as agent/CONFIG.md's own examples are
 * ({@code {class: ..., method: forget, kind: erasure, subject-param: 0}}), in a plain-Java agent loop
 * ({@link demoapp.plain.PrivacyLoopApp}, forked with the real agent jar). Trial21 07: the erasure went to a session named
 * {@code default}, so FORMULAS.md's pattern {@code G(erasure -> G !call(send_newsletter))} never acted in the
 * conversation; trial21 11: that {@code default} session was judged at its end like a conversation, {@code F call(greet)}
 * unmet (a false FAIL in the log's end records, replay exit 1). Now the event belongs to the conversation whose call runs
 * on its thread; else (between calls too: trial33 06, a coroutine thread's erasure went to another conversation) to no
 * session (the register only, with a WARN).
 */
class SessionlessConsentEndToEndTest {

    private static final String APP = "demoapp.plain.PrivacyLoopApp";

    @TempDir
    Path dir;

    private Path config(Path audit, String libraries) throws IOException {
        return Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: "demoapp.plain.PrivacyLoopApp$ToolRegistry", method: invoke, kind: tool, tool-name: 1, args-param: 2, session-param: 0}
                  - {class: "demoapp.plain.PrivacyLoopApp$Privacy", method: erase, kind: erasure, subject-param: 0}
                  - {class: "demoapp.plain.PrivacyLoopApp$Privacy", method: grant, kind: consent, subject-param: 0, purpose-param: 1}
                """.formatted(libraries, audit.toAbsolutePath()));
    }

    private ForkedJvm.Result run(Path config, String... steps) {
        return ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)), ForkedJvm.appClasspath(), APP, steps);
    }

    private static List<JsonNode> records(Path audit, String kind) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            if ("event".equals(n.path("rec").asText()) && kind.equals(n.path("kind").asText())) out.add(n);
        }
        return out;
    }

    private static List<String> sessions(List<JsonNode> records) {
        List<String> out = new ArrayList<>();
        for (JsonNode r : records) out.add(r.path("session").asText());
        return out;
    }

    /**
     * Trial21 07: the documented "no newsletter after an erasure" pattern acts in the conversation of the tool that
     * erases. Between two calls the thread names no conversation (trial33 06: c2's coroutine erased on a thread that had
     * run only c1's calls, and the erasure went to c1), so the loop's erasure is in none, with the WARN to add session-param.
     */
    @Test
    void anErasureWithoutSessionParamBelongsToTheConversationOfTheToolCallRunningOnItsThread() throws IOException {
        Path library = Files.writeString(dir.resolve("er.yaml"), """
                library: er
                contracts:
                  - id: er.absence-after-erasure
                    guarantee: G(erasure -> G !call(send_newsletter))
                    message: no newsletter after an erasure
                """);
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = run(config(audit, library.toString()),
                "call:s1:lookup:bob", "erase:bob", "call:s1:send_newsletter:bob",      // between two calls of the loop's conversation
                "call:s2:forget:cy", "call:s2:send_newsletter:cy");                    // from inside a tool of another conversation
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.stdout()).as(why)
                .contains("STEP 3 call:s1:send_newsletter:bob = ok:send_newsletter bob")
                .contains("STEP 4 call:s2:forget:cy = forgot cy")
                .contains("STEP 5 call:s2:send_newsletter:cy = tracegate blocked the call to send_newsletter (contract er.absence-after-erasure)");
        String log = Files.readString(audit);
        assertThat(sessions(records(audit, "erasure"))).as(log).containsExactly("", "s2");
        assertThat(sessions(records(audit, "end"))).as("no session but the two conversations: " + log).containsExactlyInAnyOrder("s1", "s2");
        assertThat(ForkedJvm.count(r.stderr(), "has no session-param")).as(why).isEqualTo(1);
    }

    /** Trial21 11: a consent between two calls (in no conversation since trial33 06) makes no session "default" that fails at its end. */
    @Test
    void aConsentWithoutSessionParamMakesNoSessionThatFailsAtItsEnd() throws IOException {
        Path library = Files.writeString(dir.resolve("gr.yaml"), """
                library: gr
                contracts:
                  - id: gr.must-greet
                    guarantee: F call(greet)
                    message: every conversation greets
                """);
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = run(config(audit, library.toString()),
                "call:s1:greet:ann", "grant:ann:marketing", "form-grant:bea:marketing", "call:s1:search:ann");
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        String log = Files.readString(audit);
        assertThat(sessions(records(audit, "consent"))).as("the loop's consent between calls and the form's in none: " + log)
                .containsExactly("", "");
        List<JsonNode> ends = records(audit, "end");
        assertThat(sessions(ends)).as(log).containsExactly("s1");
        assertThat(ends.get(0).path("unmet").size()).as(log).isZero();
        // replay reads the log back the same: one conversation, every contract kept
        ForkedJvm.Result replay = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "replay",
                library.toString(), audit.toString(), "--no-progress"));
        assertThat(replay.exit()).as(replay.toString()).isZero();
        assertThat(replay.stdout()).as(replay.toString()).contains("session s1: every contract kept").doesNotContain("session default")
                .contains("in 1 sessions");
    }

    /**
     * No conversation to be found (the loop's thread ran calls of two conversations; a form's thread none): the erasure
     * reaches the register (gdpr.P4 refuses a call naming the person, online and in replay) but no session, and a WARN
     * says once that the contract reading {@code erasure} cannot see it, with the fix.
     */
    @Test
    void anErasureOfNoConversationReachesTheRegisterAndIsWarnedAbout() throws IOException {
        Path library = Files.writeString(dir.resolve("er.yaml"), """
                library: er
                contracts:
                  - id: er.absence-after-erasure
                    guarantee: G(erasure -> G !call(send_newsletter))
                    message: no newsletter after an erasure
                """);
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = run(config(audit, "gdpr, " + library),
                "call:s1:greet:ann", "call:s2:greet:bob", "erase:zed", "form-erase:yan", "call:s1:lookup:zed", "call:s2:lookup:yan");
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.stdout()).as(why).contains("STEP 5 call:s1:lookup:zed = tracegate blocked the call to lookup (contract gdpr.P4")
                .contains("STEP 6 call:s2:lookup:yan = tracegate blocked the call to lookup (contract gdpr.P4");
        assertThat(ForkedJvm.count(r.stderr(), "WARN configured erasure method demoapp.plain.PrivacyLoopApp$Privacy.erase")).as(why).isEqualTo(1);
        assertThat(r.stderr()).as(why).contains("has no session-param").contains("er.absence-after-erasure reads `erasure`")
                .contains("Add session-param");
        String log = Files.readString(audit);
        assertThat(sessions(records(audit, "erasure"))).as(log).containsExactly("", "");
        assertThat(sessions(records(audit, "end"))).as(log).containsExactlyInAnyOrder("s1", "s2");
        ForkedJvm.Result replay = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "replay",
                "gdpr," + library, audit.toString(), "--no-progress", "--format", "json"));
        JsonNode out = new ObjectMapper().readTree(replay.stdout());
        List<String> replayed = new ArrayList<>();
        for (JsonNode s : out.path("sessions")) replayed.add(s.path("session").asText());
        assertThat(replayed).as(replay.toString()).containsExactlyInAnyOrder("s1", "s2");
        assertThat(replay.stdout()).as("replay refuses both look-ups by P4 too: " + replay).contains("gdpr.P4");
    }
}
