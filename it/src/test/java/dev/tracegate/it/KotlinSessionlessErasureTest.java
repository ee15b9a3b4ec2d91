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
 * Trial33 06: an erasure method configured without {@code session-param}, called by conversation c2's coroutine on a
 * dispatcher thread whose only tool calls so far were c1's, was put into c1 (the "thread has run calls of one
 * conversation only" guess): c1's newsletter was refused and c2's, the conversation that erased someone, ran. The
 * Kotlin app in {@code src/test/kotlin/demoapp/sessionless} (coroutines on one dispatcher thread, kotlinx-coroutines
 * 1.11.0; compiled at test time by {@link KotlinApps}) runs in a forked JVM with the real agent jar.
 */
class KotlinSessionlessErasureTest {

    @TempDir
    Path dir;

    private static List<String> events(Path audit) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> out = new ArrayList<>();
        for (String line : Files.readAllLines(audit)) {
            JsonNode n = json.readTree(line);
            String kind = n.path("kind").asText();
            if (!"event".equals(n.path("rec").asText()) || "end".equals(kind) || "return".equals(kind)) continue;
            out.add(n.path("session").asText() + " " + kind + " " + (n.has("tool") ? n.path("tool").asText() : n.path("subject").asText())
                    + " " + n.path("decision").asText());
        }
        return out;
    }

    /**
     * A consent or erasure without session-param is attributed by its thread only while a supervised call runs on that
     * thread (here: c3's tool that closes an account); between calls it belongs to no conversation, with the WARN that
     * says to add session-param, since the thread says nothing about whose coroutine (or pooled task) runs on it now.
     * It never lands in another user's conversation: nor when a suspend tool erases after it resumed, while another
     * conversation's call ran on the thread (c4, c5: the erasure is in none rather than in c5).
     */
    @Test
    void anErasureBetweenCallsOnACoroutineThreadIsPutInNoOtherConversation() throws IOException {
        Path library = Files.writeString(dir.resolve("er.yaml"), """
                library: er
                contracts:
                  - id: er.no-newsletter-after-erasure
                    guarantee: G(erasure -> G !call(newsletter))
                    message: No newsletter in a conversation that erased someone.
                """);
        Path audit = dir.resolve("audit.jsonl");
        Path config = Files.writeString(dir.resolve("tracegate.yaml"), """
                libraries: [%s]
                audit: {path: %s, personal-data: clear}
                configured-methods:
                  - {class: demoapp.sessionless.Tools, method: "*", kind: tool, session-param: 0}
                  - {class: demoapp.sessionless.Privacy, method: forget, kind: erasure, subject-param: 0}
                """.formatted(library, audit));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("config=" + config)),
                KotlinApps.classpath("sessionless"), "demoapp.sessionless.LoopKt");
        String why = r.toString();
        assertThat(r.exit()).as(why).isZero();
        assertThat(r.stdout()).as(why).contains("app: c1 sent to dan@example.com", "app: c2 sent to carol@example.com",
                "app: c3 closed eve@example.com", "app: c3 tracegate blocked the call to newsletter (contract er.no-newsletter-after-erasure)",
                "app: c4 closed later fay@example.com", "app: c5 sent to gus@example.com");
        assertThat(events(audit)).as(why).containsExactly(
                "c1 call lookup pass",
                " erasure bob@example.com pass",          // c2's, between its calls: no conversation (the register only)
                "c2 call newsletter pass",
                "c1 call newsletter pass",                 // not c1's erasure: c1 erased no one
                "c3 call closeAccount pass",
                "c3 erasure eve@example.com pass",         // inside c3's tool call: c3's
                "c3 call newsletter block",
                "c4 call closeLater pass",
                "c5 call lookup pass",
                " erasure fay@example.com pass",          // c4's suspend tool, after its resume: the thread last ran c5's call
                "c5 call newsletter pass");
        assertThat(ForkedJvm.count(r.stderr(), "WARN configured erasure method demoapp.sessionless.Privacy.forget")).as(why).isEqualTo(1);
        assertThat(r.stderr()).as(why).contains("has no session-param").contains("coroutine").contains("Add session-param");
    }
}
