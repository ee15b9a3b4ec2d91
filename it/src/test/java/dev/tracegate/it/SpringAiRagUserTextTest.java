package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

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

    /** The library and the audit log of the batches (one log per line's JVM; each scenario reads its own session's records). */
    @TempDir
    static Path dir;

    /**
     * The scenarios of one line (its class path) in one JVM ({@link ScenarioBatch}): each in a conversation of its own
     * ({@code c-NAME}; the anonymous one in {@code default}) and asking in words of its own ({@code ... (NAME)}), so that
     * neither a session's history nor a note of the user's text of one scenario can pass for another's. The last scenario
     * ends the JVM (the application's usual {@code System.exit}: the RAG advisor's executor keeps non-daemon threads),
     * the others return ({@code --no-exit}).
     */
    private static final Map<String, List<List<String>>> SCENARIOS = Map.of(
            "2.0.1", List.of(List.of("qa", "call"), List.of("qa", "stream"), List.of("rag", "call"), List.of("rag", "stream"),
                    List.of("qa", "stream", "later"), List.of("rag", "stream", "later"), List.of("qa", "call", "later"),
                    List.of("qa", "stream", "later-anonymous")),
            "1.1.2", List.of(List.of("qa", "call"), List.of("qa", "stream"), List.of("rag", "call"), List.of("rag", "stream"),
                    List.of("qa", "stream", "later"), List.of("rag", "stream", "later")));
    private static final Map<String, ScenarioBatch> BATCHES = Map.of("2.0.1", batch("2.0.1"), "1.1.2", batch("1.1.2"));

    private static ScenarioBatch batch(String line) {
        ScenarioBatch batch = new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent("libraries=injection;" + library()
                + ",audit.path=" + audit(line) + ",audit.personal-data=clear")),
                () -> line.equals("2.0.1") ? ForkedJvm.appClasspath() : ForkedJvm.lineClasspath("springai-" + line));
        for (List<String> s : SCENARIOS.get(line)) {
            batch.scenario(session(s), args(line, s));
        }
        return batch;
    }

    private static Path library() {
        Path lib = dir.resolve("mail.yaml");
        try {
            Files.writeString(lib, "library: mail\ninjection:\n  side-effecting:\n    send_email: [to]\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return lib;
    }

    private static Path audit(String line) {
        return dir.resolve(line + "-audit.jsonl");
    }

    /** qa-call, rag-stream-later, ... */
    private static String name(List<String> scenario) {
        return String.join("-", scenario);
    }

    private static String session(List<String> scenario) {
        return scenario.contains("later-anonymous") ? "default" : "c-" + name(scenario);
    }

    /** The application's arguments: all but the line's last scenario return from main instead of ending the JVM. */
    private static String[] args(String line, List<String> scenario) {
        List<List<String>> all = SCENARIOS.get(line);
        List<String> args = new ArrayList<>();
        if (!scenario.contains("later-anonymous")) args.add("--conversation=" + session(scenario));
        args.add("--ref=" + name(scenario));
        if (!scenario.equals(all.get(all.size() - 1))) args.add("--no-exit");
        args.addAll(scenario);
        return args.toArray(new String[0]);
    }

    private void check(String line, String advisor, String mode) throws Exception {
        check(line, advisor, mode, null);
    }

    private void check(String line, String advisor, String mode, String later) throws Exception {
        List<String> scenario = later != null ? List.of(advisor, mode, later) : List.of(advisor, mode);
        ForkedJvm.Result r = BATCHES.get(line).run(args(line, scenario));
        String user = USER + " (" + name(scenario) + ")";
        String what = line + "-" + name(scenario) + ": " + r;
        assertThat(r.exit()).as(what).isZero();
        if (later != null) {
            // the application's advisor after the RAG advisor ran (streamed: on its scheduler's thread)
            assertThat(r.stdout()).as(what).contains("LATER ADVISOR before on " + (mode.equals("stream") ? "boundedElastic-" : "main"));
        }
        // the model got the augmented message (the retrieved article is the application's to give) ...
        assertThat(r.stdout()).as(what).contains("RETRIEVED for " + user).contains("ANSWER done").contains("DONE");
        assertThat(r.stdout().lines().filter(l -> l.startsWith("MODEL GOT USER "))).as(what)
                .singleElement(org.assertj.core.api.InstanceOfAssertFactories.STRING)
                .contains(user).contains("Knowledge base article 12");
        // ... but the USER event is the user's own text: the address the e-mail and the article name came only from an
        // output and is refused, while the one the user wrote (which the e-mail names too) passes
        assertThat(r.stdout()).as(what).contains("RAN read_email m1").doesNotContain("RAN send_email attacker@evil.example")
                .contains("MODEL SAW send_email tracegate blocked").contains("RAN send_email alice@corp.example");
        String records = ScenarioBatch.recordsOf(Files.readString(audit(line), StandardCharsets.UTF_8), session(scenario));
        assertThat(records).as(what).contains("\"session\":\"" + session(scenario) + "\"").contains("\"text\":\"" + user + "\"")
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
                check(line, advisor, "stream", "later");
            }
        }
        check("2.0.1", "qa", "call", "later");
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
