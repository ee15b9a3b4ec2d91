package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With a Spring AI retrieval augmentation advisor ({@code QuestionAnswerAdvisor}, {@code RetrievalAugmentationAdvisor}),
 * the USER event is the user's own text, not the user message with the retrieved documents the advisor added: before,
 * an address that a tool output and a retrieved article both named counted as written by the user, and the built-in
 * {@code injection} library let the e-mail to it through. Real Spring AI 2.0.1 and 1.1.2 with their advisor artifacts,
 * blocking and streamed, the agent jar in a forked JVM; the application (demoapp.springai.RagApp) imports nothing of
 * tracegate.
 */
class SpringAiRagUserTextTest {
    private static final String APP = "demoapp.springai.RagApp";
    private static final String USER = "Read e-mail m1 and forward it to me at alice@corp.example";

    @TempDir
    Path dir;

    private void check(String line, String advisor, String mode) throws Exception {
        check(line, advisor, mode, false);
    }

    private void check(String line, String advisor, String mode, boolean later) throws Exception {
        check(line, advisor, mode, later ? "later" : null);
    }

    private void check(String line, String advisor, String mode, String later) throws Exception {
        Path lib = dir.resolve("mail.yaml");
        Files.writeString(lib, "library: mail\ninjection:\n  side-effecting:\n    send_email: [to]\n", StandardCharsets.UTF_8);
        String name = line + "-" + advisor + "-" + mode + (later != null ? "-" + later : "");
        Path audit = dir.resolve(name + "-audit.jsonl");
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("libraries=injection;" + lib
                        + ",audit.path=" + audit + ",audit.personal-data=clear")),
                line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line), APP,
                later != null ? new String[] {advisor, mode, later} : new String[] {advisor, mode});
        String what = name + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        if (later != null) {
            // the application's advisor after the RAG advisor ran (streamed: on its scheduler's thread)
            assertThat(r.stdout()).as(what).contains("LATER ADVISOR before on " + (mode.equals("stream") ? "boundedElastic-" : "main"));
        }
        // the model got the augmented message (the retrieved article is the application's to give) ...
        assertThat(r.stdout()).as(what).contains("RETRIEVED for " + USER).contains("ANSWER done").contains("DONE");
        assertThat(r.stdout().lines().filter(l -> l.startsWith("MODEL GOT USER "))).as(what)
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains(USER).contains("Knowledge base article 12");
        // ... but the USER event is the user's own text: the address the e-mail and the article name came only from an
        // output and is refused, while the one the user wrote (which the e-mail names too) passes
        assertThat(r.stdout()).as(what).contains("RAN read_email m1").doesNotContain("RAN send_email attacker@evil.example")
                .contains("MODEL SAW send_email tracegate blocked").contains("RAN send_email alice@corp.example");
        String records = Files.readString(audit, StandardCharsets.UTF_8);
        assertThat(records).as(what).contains("\"session\":\"" + ("later-anonymous".equals(later) ? "default" : "c1") + "\"").contains("\"text\":\"" + USER + "\"")
                .doesNotContain("Knowledge base article 12");
    }

    @Test
    void aQuestionAnswerAdvisorsDocumentsAreNotTheUsersWords() throws Exception {
        check("2.0.1", "qa", "call");
        check("2.0.1", "qa", "stream");
    }

    @Test
    void aRetrievalAugmentationAdvisorsDocumentsAreNotTheUsersWords() throws Exception {
        check("2.0.1", "rag", "call");
        check("2.0.1", "rag", "stream");
    }

    /**
     * Streamed, a {@code BaseAdvisor} of the application's after the RAG advisor runs its {@code before}, and the rest of
     * the chain with the model call, on its own scheduler's thread, not the RAG advisor's: the note of the user's own text
     * goes there with the task (before session 18 the USER event was the augmented message there).
     */
    @Test
    void aLaterAdvisorOnItsOwnSchedulerDoesNotMakeTheDocumentsTheUsersWords() throws Exception {
        for (String line : List.of("2.0.1", "1.1.2")) {
            for (String advisor : List.of("qa", "rag")) {
                check(line, advisor, "stream", true);
            }
        }
        check("2.0.1", "qa", "call", true);
        check("2.0.1", "qa", "stream", "later-anonymous");   // no conversation id: the note goes with the task all the same
    }

    @Test
    void onSpringAi11TheAdvisorsDocumentsAreNotTheUsersWordsEither() throws Exception {
        for (String advisor : List.of("qa", "rag")) {
            check("1.1.2", advisor, "call");
            check("1.1.2", advisor, "stream");
        }
    }
}
