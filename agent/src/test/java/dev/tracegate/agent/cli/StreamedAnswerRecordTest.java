package dev.tracegate.agent.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.agent.supervision.ContractSupervisor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial19 07-streamed-answer-audit-says-block: a streamed answer (Spring AI {@code springai-stream}, LangChain4j
 * {@code langchain4j-stream}) reaches the user chunk by chunk before tracegate checks it whole, so a block there can only
 * append a notice or end the stream; its audit record said {@code "decision":"block"} and nothing else, the same as a
 * blocking answer that never reached the user. The record now says {@code streamed}: what its reader saw, per decision
 * and block.style; a blocking answer's record has no such field. Oracle: the decision the supervisor handed to the host
 * (a notice to append, a violation to end the stream with, a masked copy) for each message.
 */
class StreamedAnswerRecordTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: s
            contracts:
              - id: s.no-card
                guarantee: G(assistant -> !category(payment_card))
                message: Answers carry no card number.
              - id: s.no-iban
                guarantee: G(assistant -> !category(iban))
                strategy: redact
                message: Answers carry no IBAN.
            """;
    private static final String CARD = "Your card is 4111 1111 1111 1111.";
    private static final String IBAN = "Your IBAN is DE89370400440532013000.";

    private record Run(Path log, List<MessageDecision> decisions) {
    }

    private Run run(Path lib, String name, String blockStyle, List<Message> messages) throws Exception {
        Path log = dir.resolve(name);
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log + ",block.style=" + blockStyle,
                Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        List<MessageDecision> decisions = new ArrayList<>();
        try {
            for (Message m : messages) decisions.add(s.onAssistantMessage(m));
        } finally {
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        return new Run(log, decisions);
    }

    /** The assistant records of {@code log}, by session, in order. */
    private static List<JsonNode> answers(Path log) throws Exception {
        List<JsonNode> out = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(log)) {
            JsonNode rec = json.readTree(line);
            if (rec.path("kind").asText().equals("assistant")) out.add(rec);
        }
        return out;
    }

    /** A replay report without its last line (the run's timing). */
    private static String sessions(String report) {
        return report.substring(0, report.indexOf(" events in "));
    }

    @Test
    void aStreamedAnswersRecordSaysItWasShownAndWhatFollowedAndReplayAgrees() throws Exception {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        Run substitute = run(lib, "substitute.jsonl", "substitute", List.of(
                new Message("springai-stream", "a", CARD),
                new Message("langchain4j-stream", "b", CARD),
                new Message("springai", "c", CARD),
                new Message("springai-stream", "d", IBAN),
                new Message("langchain4j-stream", "e", "Hello, how can I help?"),
                new Message("langchain4j", "f", "Hello, how can I help?")));
        // the oracle: what the host got
        assertThat(substitute.decisions()).extracting(MessageDecision::kind).containsExactly(MessageDecision.Kind.REPLACE,
                MessageDecision.Kind.REPLACE, MessageDecision.Kind.REPLACE, MessageDecision.Kind.REPLACE, MessageDecision.Kind.KEEP,
                MessageDecision.Kind.KEEP);
        assertThat(substitute.decisions().get(0).text()).startsWith("[tracegate] ");
        assertThat(substitute.decisions().get(3).text()).doesNotContain("DE89370400440532013000");
        List<JsonNode> recs = answers(substitute.log());
        assertThat(recs).extracting(r -> r.path("session").asText() + " " + r.path("decision").asText() + " " + r.path("streamed").asText("-"))
                .containsExactly("a block shown-then-notice", "b block shown-then-notice", "c block -", "d redact shown-then-masked",
                        "e pass shown", "f pass -");

        Run exception = run(lib, "exception.jsonl", "exception", List.of(
                new Message("springai-stream", "a", CARD), new Message("langchain4j-stream", "b", CARD), new Message("springai", "c", CARD)));
        assertThat(exception.decisions()).extracting(MessageDecision::kind).containsExactly(MessageDecision.Kind.BLOCK,
                MessageDecision.Kind.BLOCK, MessageDecision.Kind.BLOCK);
        assertThat(answers(exception.log())).extracting(r -> r.path("session").asText() + " " + r.path("decision").asText() + " " + r.path("streamed").asText("-"))
                .containsExactly("a block shown-then-error", "b block shown-then-error", "c block -");

        // the chain covers the field
        CliRun verify = CliRun.of("audit", "verify", substitute.log().toString());
        assertThat(verify.code()).as(verify.out() + verify.err()).isZero();

        // replay reads it back: the same verdicts (the block refused here too, no divergence), the report says what was shown
        CliRun replay = CliRun.of("replay", lib.toString(), substitute.log().toString(), "--no-progress");
        String all = replay.out() + replay.err();
        assertThat(all).as(all)
                .contains("s.no-card: violated first at substitute.jsonl:").doesNotContain("refused here, applied online")
                .doesNotContain("applied here, refused online")
                .containsPattern("session a:\\n  s.no-card: violated first at substitute.jsonl:\\d+ \\(seq 1, assistant; streamed: the text was shown"
                        + " before the check, then a notice followed\\)")
                .containsPattern("session c:\\n  s.no-card: violated first at substitute.jsonl:\\d+ \\(seq 1, assistant\\)")
                .containsPattern("s.no-iban: redacted at substitute.jsonl:\\d+ \\(seq 1, assistant; streamed: the text was shown before the"
                        + " check, then a masked copy followed\\) online");
        CliRun replayEx = CliRun.of("replay", lib.toString(), exception.log().toString(), "--no-progress");
        assertThat(replayEx.out()).as(replayEx.out() + replayEx.err()).containsPattern("session b:\\n  s.no-card: violated first at exception.jsonl:\\d+"
                + " \\(seq 1, assistant; streamed: the text was shown before the check, then the stream ended with the violation\\)");

        // a log written before the field (the same records without it, the chain not checked by replay) replays as before
        Path old = dir.resolve("old.jsonl");
        Files.writeString(old, Files.readString(substitute.log()).replaceAll(",\"streamed\":\"[a-z-]*\"", ""));
        CliRun replayOld = CliRun.of("replay", lib.toString(), old.toString(), "--no-progress");
        assertThat(replayOld.code()).isEqualTo(replay.code());
        assertThat(replayOld.out()).doesNotContain("streamed");
        assertThat(sessions(replayOld.out())).isEqualTo(sessions(replay.out().replaceAll("; streamed: [^)]*", "").replace("substitute.jsonl", "old.jsonl")));
    }

    /**
     * replay reads {@code streamed} from the record, not from wherever the text occurs in its line: in a clear log a tool
     * call whose argument is named {@code streamed} (a setting of the application's own) was read back as a streamed
     * answer, and replay's report said of the blocked call "streamed: the text was shown before the check, then a notice
     * followed". The field is the record's when it follows the record's own decision.
     */
    @Test
    void anArgumentNamedStreamedIsNotReadBackAsTheRecordsField() throws Exception {
        Path lib = Files.writeString(dir.resolve("wire.yaml"), """
                library: w
                contracts:
                  - id: w.no-broadcast
                    guarantee: G(!call(broadcast))
                    message: No broadcasts.
                """);
        Path log = dir.resolve("wire.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            assertThat(s.onToolCall(new dev.tracegate.agent.core.ToolCall("springai", "a", "broadcast",
                    "{\"streamed\":\"shown-then-notice\",\"text\":\"hi\"}", "t1")).kind())
                    .isEqualTo(dev.tracegate.agent.core.ToolDecision.Kind.BLOCK);
        } finally {
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readString(log)).contains("\"streamed\":\"shown-then-notice\"");   // in the call's args
        CliRun replay = CliRun.of("replay", lib.toString(), log.toString(), "--no-progress");
        assertThat(replay.out()).as(replay.out() + replay.err())
                .containsPattern("w.no-broadcast: violated first at wire.jsonl:\\d+ \\(seq 1, call broadcast\\)")
                .doesNotContain("streamed:");
    }
}
