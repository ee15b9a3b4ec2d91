package dev.tracegate.agent.core;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditVerification;
import dev.tracegate.agent.audit.AuditVerifier;
import dev.tracegate.agent.config.AgentConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The first-event warm-up: it runs after the start, steps synthetic events of every kind through a private copy of
 * the libraries, and leaves no trace an operator or a session could see (no audit record, no count, no session).
 */
class WarmupTest {
    @TempDir Path dir;

    private Path config(String extra) throws Exception {
        return Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [gdpr, sop-refund]\n"
                + "audit.path: " + dir.resolve("audit.jsonl") + "\n"
                + "debug: true\n"
                + "configured-methods:\n"
                + "  - {class: example.warmup.Host, method: lookup, kind: tool, session-param: 0}\n" + extra);
    }

    @Test
    void theWarmUpRunsAfterTheStartAndLeavesNoRecordNoCountAndNoSessionBehind() throws Exception {
        Path yaml = config("");
        // the host waits until the warm-up has ended, then makes one real call and reads the agent's MBean
        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + yaml, "example.warmup.Isolated", "first-event warm-up", "go\n", "-Dhost.wait=true");
        assertThat(run.code()).as(run.err()).isZero();
        java.util.regex.Matcher done = java.util.regex.Pattern.compile("first-event warm-up done at \\d+ ms \\((\\d+) synthetic events").matcher(run.err());
        assertThat(done.find()).as(run.err()).isTrue();
        // a user message, a call and a result per tool the libraries name, a configured call, a result object, an answer, consent, erasure
        assertThat(Integer.parseInt(done.group(1))).isGreaterThanOrEqualTo(8);
        // the host's one call (its CALL and RETURN, its END at exit) is all there is: the warm-up's events are neither counted nor in a
        // session, as in warmupFalseTurnsItOff
        assertThat(run.out()).contains("lookup: found order 4711").contains("events=2 sessions=1");
        List<JsonNode> events = records(dir.resolve("audit.jsonl"), "event");
        assertThat(events).extracting(e -> e.path("session").asText() + " " + e.path("seq").asLong() + " " + e.path("kind").asText())
                .containsExactly("host-session 1 call", "host-session 2 return", "host-session 3 end");
        assertThat(Files.readString(dir.resolve("audit.jsonl"))).doesNotContain(Warmup.SESSION).doesNotContain("warm-up");
        AuditVerification v = AuditVerifier.verify(dir.resolve("audit.jsonl"));
        assertThat(v.status()).as(v.describe()).isEqualTo(AuditVerification.Status.OK);
    }

    @Test
    void warmupFalseTurnsItOff() throws Exception {
        Path yaml = config("warmup: false\n");
        ForkedAgent.Run run = ForkedAgent.run(dir, "config=" + yaml, "example.warmup.Isolated", null, null);
        assertThat(run.code()).as(run.err()).isZero();
        assertThat(run.out()).contains("lookup: found order 4711").contains("events=2 sessions=1");
        assertThat(run.err()).contains("agent started").doesNotContain("warm-up");
        assertThat(records(dir.resolve("audit.jsonl"), "event")).hasSize(3);   // CALL, RETURN, END at exit
    }

    @Test
    void warmupIsAConfigurationKeyReadInAnyCase() {
        // a bad value is reported with its place like any key (AgentConfigTest)
        assertThat(AgentConfig.load("warmup=FALSE", Map.of(), Map.of(), AgentCore.FREE_KEYS).warmup()).isFalse();
        assertThat(AgentConfig.load("", Map.of(), Map.of(), AgentCore.FREE_KEYS).warmup()).isTrue();
    }

    static List<JsonNode> records(Path log, String type) throws Exception {
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> found = new ArrayList<>();
        for (String line : Files.readAllLines(log)) {
            JsonNode n = json.readTree(line);
            if (n.path("rec").asText().equals(type)) found.add(n);
        }
        return found;
    }
}
