package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A user message tracegate withheld stays withheld when its conversation is resumed after sessions.idle-timeout ended
 * its session: Spring AI's MessageChatMemoryAdvisor stored the original, and sends it again as history in the next
 * turn. Before session 20 the session's end dropped the agent's note of the replacement, so the resumed conversation's
 * model request carried the withheld password (Spring AI 2.0.1, the contract engine, a real chat memory).
 */
class SpringAiResumedMemoryTest {

    private static final String LIBRARY = String.join("\n",
            "library: secrets",
            "contracts:",
            "  - id: secrets.no-passwords-from-users",
            "    assume: G !user_matches(\"(?i)password\")",
            "    guarantee: G !call(share_password)",
            "    message: Passwords are not for the model.",
            "");

    @Test
    void aWithheldUserMessageStaysWithheldWhenItsConversationIsResumedAfterItsSessionEnded(@TempDir Path dir) throws Exception {
        Path library = Files.writeString(dir.resolve("secrets.yaml"), LIBRARY);
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",sessions.idle-timeout=1s")),
                ForkedJvm.appClasspath(), "demoapp.springai.ResumedMemoryApp", "3500");
        assertThat(r.exit()).as(r.toString()).isZero();
        String out = r.stdout();
        // the first turn: withheld
        assertThat(out).as(r.toString()).contains("TURN my password is hunter2").contains("TURN what is the status of order 42?");
        // the memory kept the original (Spring AI stores the request's messages), and the session did end in between
        assertThat(out).as(r.toString()).contains("MEMORY: USER my password is hunter2, please remember it");
        String log = Files.readString(audit);
        assertThat(log.split("\"kind\":\"end\"", -1).length - 1).as("conv-1 ended by the idle sweep, then at exit: " + log)
                .isGreaterThanOrEqualTo(2);
        List<String> modelGot = out.lines().filter(l -> l.startsWith("MODEL GOT USER: ")).toList();
        assertThat(modelGot).as(r.toString()).hasSizeGreaterThanOrEqualTo(3)   // turn 1; turn 2 with turn 1 as history
                .noneMatch(l -> l.contains("hunter2"))
                .anyMatch(l -> l.contains("what is the status of order 42?"));
        // the resumed turn's history has the replacement it had in the first session
        assertThat(modelGot.stream().filter(l -> l.contains("This user message was withheld (secrets.no-passwords-from-users)")))
                .as(r.toString()).hasSize(2);
    }
}
