package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import dev.tracegate.contracts.library.Library;
import dev.tracegate.matchers.pii.CategorySpan;
import dev.tracegate.matchers.pii.DataCategoryExtractor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** The redact strategy on model answers: the spans of the named categories are masked in place, the rest of the answer stays. */
class RedactAnswerTest {
    @TempDir Path dir;

    private static final String LIBRARY = """
            library: outr
            contracts:
              - id: outr.no-card
                guarantee: G(assistant -> !category(payment_card))
                strategy: redact
                message: No cards in answers.
            """;

    /**
     * trial9 redact-answer-other-category: an answer with a card number and an e-mail address was replaced whole by the
     * notice, since the card's span came after the e-mail's in the detector's list and was skipped, so the masked answer
     * still held the card and failed the contract again.
     */
    @Test
    void anAnswerWithACardAndAnEmailAddressKeepsItsTextWithTheCardMasked() throws Exception {
        Path lib = dir.resolve("outr.yaml");
        Files.writeString(lib, LIBRARY);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        try {
            MessageDecision alone = s.onAssistantMessage(new Message("x", "c1", "The card on file is 4111 1111 1111 1111."));
            assertThat(alone.kind()).isEqualTo(MessageDecision.Kind.REPLACE);
            assertThat(alone.text()).isEqualTo("The card on file is [redacted: payment_card].");
            for (String answer : List.of("The card on file is 4111 1111 1111 1111, we write to ada@example.com.",
                    "Your card 4111 1111 1111 1111 is on file, email ada@example.com")) {
                MessageDecision d = s.onAssistantMessage(new Message("x", "c2", answer));
                assertThat(d.kind()).as(answer).isEqualTo(MessageDecision.Kind.REPLACE);
                assertThat(d.text()).as("the answer, not the notice").doesNotContain("[tracegate]").doesNotContain("4111")
                        .startsWith(answer.substring(0, answer.indexOf("4111")) + "[redacted: payment_card]");
            }
        } finally {
            s.close();
            assertThat(audit.close(10, java.util.concurrent.TimeUnit.SECONDS)).isTrue();
        }
        assertThat(Files.readAllLines(log).stream().filter(l -> l.contains("\"kind\":\"assistant\"")).map(l -> l.replaceAll(".*\"decision\":\"([a-z_]+)\".*", "$1")))
                .containsExactly("redact", "redact", "redact");
    }

    /** Only the categories the contract names are masked: the e-mail address of the trial's answer stays. */
    @Test
    void onlyTheNamedCategoriesAreMasked() throws Exception {
        Path lib = dir.resolve("outr.yaml");
        Files.writeString(lib, LIBRARY);
        Library library = Library.load(List.of(lib.toString()), dir);
        Redaction r = new Redaction();
        String answer = "The card on file is 4111 1111 1111 1111, we write to ada@example.com.";
        assertThat(r.redactText(library, answer, Set.of("payment_card"))).isEqualTo("The card on file is [redacted: payment_card], we write to ada@example.com.");
        assertThat(r.redactText(library, answer, null)).isEqualTo("The card on file is [redacted: payment_card], we write to [redacted: email].");
        assertThat(r.redactText(library, answer)).isEqualTo(r.redactText(library, answer, null));
        assertThat(r.redactText(library, null, Set.of("payment_card"))).isNull();
    }

    /**
     * Random answers put together from pieces whose category is known (card numbers, e-mail addresses, plain words, in
     * any order): masking the named categories gives the pieces of those categories as {@code [redacted: c]} and every
     * other piece as it was, which is what the answer is built from, not what the detector says.
     */
    /** Between pieces: a bare space is left out, since two card numbers a space apart read as one run of 32 digits. */
    private static final String[] SEPARATORS = {", ", " and ", "; ", ": "};

    @Test
    void randomAnswersKeepEveryPieceButTheNamedCategoriesOnes() throws Exception {
        Path lib = dir.resolve("outr.yaml");
        Files.writeString(lib, LIBRARY);
        Library library = Library.load(List.of(lib.toString()), dir);
        Redaction r = new Redaction();
        String[][] pieces = {
                {"payment_card", "4111 1111 1111 1111"}, {"payment_card", "5500 0000 0000 0004"}, {"payment_card", "4012888888881881"},
                {"email", "ada@example.com"}, {"email", "bob.smith@acme.org"},
                {null, "we write to"}, {null, "thanks"}, {null, "on file"}, {null, "your order"}, {null, "hello"}};
        Random rnd = new Random(20261130);
        for (int trial = 0; trial < 300; trial++) {
            StringBuilder text = new StringBuilder();
            StringBuilder cardsOnly = new StringBuilder();
            StringBuilder everything = new StringBuilder();
            for (int k = 1 + rnd.nextInt(6); k > 0; k--) {
                String[] p = pieces[rnd.nextInt(pieces.length)];
                String sep = text.length() == 0 ? "" : SEPARATORS[rnd.nextInt(SEPARATORS.length)];
                text.append(sep).append(p[1]);
                cardsOnly.append(sep).append("payment_card".equals(p[0]) ? "[redacted: payment_card]" : p[1]);
                everything.append(sep).append(p[0] != null ? "[redacted: " + p[0] + "]" : p[1]);
            }
            text.append('.');
            cardsOnly.append('.');
            everything.append('.');
            String t = text.toString();
            List<String> found = new ArrayList<>();
            for (CategorySpan s : DataCategoryExtractor.INSTANCE.spans(t)) found.add(s.category().key());
            assertThat(r.redactText(library, t, Set.of("payment_card"))).as(t + " (detected " + found + ")").isEqualTo(cardsOnly.toString());
            assertThat(r.redactText(library, t, null)).as(t + " (detected " + found + ")").isEqualTo(everything.toString());
        }
    }
}
