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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A Spring AI ChatClient with real @Tool methods, run in a forked JVM under the built agent jar: 2.0.1 blocking and
 * streaming, and the same app on Spring AI 1.1.2.
 */
class SpringAiTest {

    private static final String APP = "demoapp.springai.SpringAiApp";

    private static ForkedJvm.Result run(String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    /**
     * The scenarios under {@code trace=true} alone, in one JVM (each is its test's own conversation, so its agent lines
     * are its own: {@link ScenarioBatch}); the direct model stream, whose session is "default", keeps a JVM of its own,
     * so that no line of these may name session default.
     */
    private static final ScenarioBatch TRACED = batch("trace=true")
            .scenario("conv-42", "email")
            .scenario("conv-stream-7", "--stream", "--conversation=conv-stream-7", "email")
            .scenario("conv-s9", "--stream", "--conversation=conv-s9", "archive")
            .scenario("conv-s1", "--stream", "--chunks", "--conversation=conv-s1", "chat")
            .scenario("conv-s3", "--stream", "--chunks", "--conversation=conv-s3", "email")
            .scenario("conv-adv", "--stream-in-advisor", "--chunks", "--conversation=conv-adv", "chat")
            .scenario("conv-d1", "--stream", "--chunks", "--deferred-call", "--conversation=conv-d1", "chat");

    /** The answers that say "secret code", each in its own conversation (the direct model stream's is "default"). */
    private static final ScenarioBatch SECRET_BLOCKED = batch("blockOutput=secret code")
            .scenario("conv-s2", "--stream", "--chunks", "--conversation=conv-s2", "chat")
            .scenario("default", "--direct", "--chunks", "chat")
            .scenario("conv-adv2", "--stream-in-advisor", "--chunks", "--conversation=conv-adv2", "chat");

    /** The same, when blocks throw. */
    private static final ScenarioBatch SECRET_THROWN = batch("blockOutput=secret code,onBlock=throw")
            .scenario("conv-42", "--stream", "--chunks", "chat")
            .scenario("default", "--direct", "--chunks", "chat");

    /** A block of sendEmail, blocking and streamed. */
    private static final ScenarioBatch EMAIL_BLOCKED = batch("block=sendEmail")
            .scenario("conv-42", "email")
            .scenario("conv-stream-8", "--stream", "--conversation=conv-stream-8", "email");

    /** The same when blocks throw (the streamed run in a conversation of its own). */
    private static final ScenarioBatch EMAIL_THROWN = batch("block=sendEmail,onBlock=throw")
            .scenario("conv-42", "email")
            .scenario("conv-stream-9", "--stream", "--conversation=conv-stream-9", "email");

    /** A user message withheld, blocking and streamed. */
    private static final ScenarioBatch USER_SUPPRESSED = batch("suppressUser=password")
            .scenario("conv-42", "email", "my password is hunter2")
            .scenario("conv-stream-10", "--stream", "--conversation=conv-stream-10", "email", "my password is hunter2");

    /** A field redacted, blocking and streamed. */
    private static final ScenarioBatch REDACTED = batch("redact=email")
            .scenario("conv-42", "ticket")
            .scenario("conv-stream-11", "--stream", "--conversation=conv-stream-11", "ticket");

    /** The library and audit log of {@link #NO_SECRETS} and of the order desk's batches (one log per batch). */
    @TempDir
    static Path batchDir;

    /** Streamed answers under the no-secrets contract library ({@link #noSecrets}), audited in clear to {@code no-secrets-audit.jsonl}. */
    private static final ScenarioBatch NO_SECRETS = new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent(
            "libraries=" + write(batchDir.resolve("no-secrets.yaml"), noSecrets()) + ",audit.path=" + batchDir.resolve("no-secrets-audit.jsonl")
                    + ",audit.personal-data=clear")), ForkedJvm::appClasspath)
            .scenario("conv-s5", "--stream", "--chunks", "--conversation=conv-s5", "chat")
            .scenario("conv-d2", "--stream", "--chunks", "--deferred-call", "--conversation=conv-d2", "chat");

    private static ScenarioBatch batch(String options) {
        return new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent(options)), ForkedJvm::appClasspath);
    }

    /** Writes {@code text} to {@code file} (for a batch's library, written when its JVM starts). */
    private static Path write(Path file, String text) {
        try {
            return Files.writeString(file, text);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A library whose one contract forbids the answer "the secret code is 1234". */
    private static String noSecrets() {
        return String.join("\n",
                "tracegate: 1",
                "library: no-secrets",
                "contracts:",
                "  - id: out.no-secret",
                "    guarantee: G(!output_matches(\"secret code\"))",
                "    message: The answer disclosed a secret code.",
                "    next: Tell the user it cannot be shared.",
                "");
    }

    // ---- the same for Spring AI 1.1.2 (its own class path); its direct model stream keeps a JVM of its own here too ----

    private static final ScenarioBatch TRACED_112 = batch112("trace=true")
            .scenario("conv-42", "--tool-advisor", "email")
            .scenario("conv-112", "--stream", "--provider-loop", "--conversation=conv-112", "email")
            .scenario("conv-112s", "--stream", "--chunks", "--conversation=conv-112s", "chat")
            .scenario("conv-112adv", "--stream-in-advisor", "--chunks", "--conversation=conv-112adv", "chat");

    private static final ScenarioBatch EMAIL_BLOCKED_112 = batch112("block=sendEmail")
            .scenario("conv-42", "--tool-advisor", "email")
            .scenario("conv-113", "--stream", "--provider-loop", "--conversation=conv-113", "email");

    private static final ScenarioBatch SECRET_THROWN_112 = batch112("blockOutput=secret code,onBlock=throw")
            .scenario("conv-42", "--stream", "--chunks", "chat")
            .scenario("default", "--direct", "--chunks", "chat");

    private static ScenarioBatch batch112(String options) {
        return new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent(options)), SpringAiTest::springAi112Classpath);
    }

    /** The scenario's part of its Spring AI 1.1.2 batch's JVM, checked as {@link #run112(String, String...)} checks a JVM. */
    private static ForkedJvm.Result run112(ScenarioBatch batch, String... args) {
        ForkedJvm.Result r = run(batch, args);
        assertThat(r.stdout()).as(r.toString()).containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.1\\.2\\.jar");
        return r;
    }

    /** The scenario's part of its batch's JVM, which must have exited normally. */
    private static ForkedJvm.Result run(ScenarioBatch batch, String... args) {
        ForkedJvm.Result r = batch.run(args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static int count(String text, String needle) {
        return ForkedJvm.count(text, needle);
    }

    @Test
    void aToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run(TRACED, "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-42 tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("USER springai session=conv-42 -> KEEP")
                .contains("ASSISTANT springai session=conv-42 -> KEEP")
                .doesNotContain("instrumentation springai matched nothing");
    }

    @Test
    void blockWithSubstitution() {
        ForkedJvm.Result r = run(EMAIL_BLOCKED, "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
    }

    @Test
    void blockWithException() {
        ForkedJvm.Result r = run(EMAIL_THROWN, "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void redirectCallsTheOtherToolCallback() {
        ForkedJvm.Result r = run("redirect=sendEmail:draftEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: \"draft saved for bob@example.com\"");
    }

    /** A redirect target that fails must not let the blocked tool run (its failure is what the model sees). */
    @Test
    void aFailingRedirectTargetNeverRunsTheBlockedTool() {
        ForkedJvm.Result r = run("trace=true,redirect=sendEmail:archiveEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate: this call was redirected to archiveEmail, which failed (")
                .contains("the archive service is offline");
        // the target's failure is its (error) RETURN; the blocked tool has none
        assertThat(r.stderr()).as(r.toString())
                .contains("RETURN springai session=conv-42 tool=archiveEmail -> KEEP")
                .doesNotContain("RETURN springai session=conv-42 tool=sendEmail");
    }

    @Test
    void suppressWithholdsTheResultAndTheUserMessage() {
        ForkedJvm.Result result = run("suppress=lookupCustomer", "lookup");
        assertThat(result.stdout()).as(result.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
        ForkedJvm.Result user = run(USER_SUPPRESSED, "email", "my password is hunter2");
        assertThat(user.stdout()).as(user.toString()).contains("MODEL SAW USER: [withheld by tracegate").doesNotContain("hunter2");
    }

    @Test
    void redactRemovesTheFieldBeforeTheToolRuns() {
        ForkedJvm.Result r = run(REDACTED, "ticket");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL createTicket ran title=printer broken email=null");
    }

    @Test
    void shadowChangesNothing() {
        ForkedJvm.Result r = run("shadow=true,block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran").contains("MODEL SAW TOOL RESULT sendEmail: \"email sent to bob@example.com\"");
        assertThat(r.stderr()).contains("SHADOW would BLOCK springai session=conv-42 tool=sendEmail");
    }

    // ---- streaming: ChatClient...stream() runs the tools on a Reactor worker thread ----

    /** The thread the app reported for the tool; the streaming tests are only meaningful when it is not the caller's. */
    private static String toolThread(ForkedJvm.Result r, String tool) {
        Matcher m = Pattern.compile("TOOL THREAD " + tool + " (\\S+)").matcher(r.stdout());
        assertThat(m.find()).as(r.toString()).isTrue();
        return m.group(1);
    }

    @Test
    void streamingToolCallIsSeenOnceInTheAdvisorConversationOnTheWorkerThread() {
        ForkedJvm.Result r = run(TRACED, "--stream", "--conversation=conv-stream-7", "email");
        assertThat(toolThread(r, "sendEmail")).as(r.toString()).isNotEqualTo("main");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: \"email sent to bob@example.com\"");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-stream-7 tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("USER springai session=conv-stream-7 -> KEEP")
                .doesNotContain("session=default");
    }

    /** A tool that throws on the Reactor worker: its error RETURN in the conversation; the model gets its message or the notice. */
    @Test
    void streamingToolThatThrowsIsAnErrorReturnOfTheConversationAndCanBeWithheld() {
        ForkedJvm.Result r = run(TRACED, "--stream", "--conversation=conv-s9", "archive");
        assertThat(toolThread(r, "archiveEmail")).as(r.toString()).isNotEqualTo("main");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT archiveEmail: the archive service is offline");
        assertThat(r.stderr()).as(r.toString()).contains("RETURN springai session=conv-s9 tool=archiveEmail -> KEEP");
        ForkedJvm.Result withheld = run("suppress=archiveEmail", "--stream", "--conversation=conv-s10", "archive");
        assertThat(withheld.stdout()).as(withheld.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT archiveEmail: [withheld by tracegate: the result of archiveEmail")
                .doesNotContain("the archive service is offline");
        assertThat(withheld.stderr()).as(withheld.toString()).contains("SUPPRESS springai session=conv-s10 tool=archiveEmail");
    }

    @Test
    void streamingBlockWithSubstitutionNamesTheConversation() {
        ForkedJvm.Result r = run(EMAIL_BLOCKED, "--stream", "--conversation=conv-stream-8", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK springai session=conv-stream-8 tool=sendEmail");
    }

    @Test
    void streamingBlockWithExceptionEndsTheStream() {
        ForkedJvm.Result r = run(EMAIL_THROWN, "--stream", "--conversation=conv-stream-9", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void streamingRedactRunsTheToolWithoutTheField() {
        ForkedJvm.Result r = run(REDACTED, "--stream", "--conversation=conv-stream-11", "ticket");
        assertThat(toolThread(r, "createTicket")).as(r.toString()).isNotEqualTo("main");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL createTicket ran title=printer broken email=null");
    }

    @Test
    void twoStreamedConversationsAtOnceKeepTheirOwnSessionsAndOnlyOneIsBlocked() {
        ForkedJvm.Result r = run("trace=true,block=sendEmail", "--parallel");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("ANSWER: conv-A done: tracegate blocked the call to sendEmail")
                .containsPattern("ANSWER: conv-B done: .*Alice");
        assertThat(toolThread(r, "lookupCustomer")).as(r.toString()).isNotEqualTo("main");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK springai session=conv-A tool=sendEmail")
                .contains("CALL springai session=conv-B tool=lookupCustomer")
                .contains("USER springai session=conv-A")
                .contains("USER springai session=conv-B")
                .doesNotContain("session=conv-B tool=sendEmail")
                .doesNotContain("session=conv-A tool=lookupCustomer")
                .doesNotContain("session=default");
    }

    @Test
    void streamingSuppressUserWithholdsTheMessage() {
        ForkedJvm.Result r = run(USER_SUPPRESSED, "--stream", "--conversation=conv-stream-10", "email", "my password is hunter2");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL SAW USER: [withheld by tracegate").doesNotContain("hunter2");
    }

    // ---- streamed answers (2.0.1): the model streams word chunks; the whole answer is one ASSISTANT event ----

    /** The chunks the app received, in order (words without their trailing space). */
    private static List<String> chunks(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("CHUNK: ")).map(l -> l.substring("CHUNK: ".length()).strip()).toList();
    }

    @Test
    void aStreamedAnswerIsOneAssistantEventOfTheConversationOnceItIsComplete() {
        ForkedJvm.Result r = run(TRACED, "--stream", "--chunks", "--conversation=conv-s1", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=conv-s1 -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-s1 -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aViolatingStreamedAnswerIsFollowedByTheNoticeAsItsLastChunk() {
        ForkedJvm.Result r = run(SECRET_BLOCKED, "--stream", "--chunks", "--conversation=conv-s2", "chat");
        List<String> received = chunks(r);
        // what was streamed cannot be recalled; the stream then carries the notice instead of completing silently
        assertThat(received.subList(0, 5)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(received).as(r.toString()).hasSize(6);
        assertThat(received.get(5)).startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT springai-stream session=conv-s2 contract=rule.blockOutput");
        // the ChatClient calls the model's stream(): the answer is checked there once, not again by the client
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aViolatingStreamedAnswerEndsTheStreamWithTheViolationWhenBlocksThrow() {
        ForkedJvm.Result r = run(SECRET_THROWN, "--stream", "--chunks", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aStreamWithAToolCallSupervisesTheToolAndChecksOnlyTheFinalAnswer() {
        ForkedJvm.Result r = run(TRACED, "--stream", "--chunks", "--conversation=conv-s3", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("ANSWER: done: \"email sent to bob@example.com\"");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-s3 tool=sendEmail")
                .contains("ASSISTANT springai-stream session=conv-s3 -> KEEP");
        // the round that asked for the tool is not model text: one ASSISTANT event, for the answer
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = run("blockOutput=email sent", "--stream", "--chunks", "--conversation=conv-s4", "email");
        assertThat(blocked.stdout()).as(blocked.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(chunks(blocked)).as(blocked.toString()).last().asString().startsWith("tracegate blocked model output");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK ASSISTANT springai-stream session=conv-s4");
    }

    @Test
    void aStreamedAnswerIsAuditedUnderAContractLibrary() throws IOException {
        ForkedJvm.Result r = run(NO_SECRETS, "--stream", "--chunks", "--conversation=conv-s5", "chat");
        assertOneAuditedBlock(r, NO_SECRETS.auditOf(Files.readString(batchDir.resolve("no-secrets-audit.jsonl")), "conv-s5"), "conv-s5");
    }

    /**
     * Runs the app under a contract library that forbids the answer "the secret code is 1234" and checks that the
     * streamed answer ended with the contract's notice and is one audit record, a block, in {@code session}.
     */
    private static void assertOneAuditedBlock(Path dir, java.util.function.BiFunction<String, String[], ForkedJvm.Result> runner,
                                              String session, String... args) throws IOException {
        Path library = write(dir.resolve("no-secrets.yaml"), noSecrets());
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = runner.apply("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear", args);
        assertOneAuditedBlock(r, Files.readString(audit), session);
    }

    /** The checks of {@link #assertOneAuditedBlock(Path, java.util.function.BiFunction, String, String...)} on a run and its audit log's records. */
    private static void assertOneAuditedBlock(ForkedJvm.Result r, String audit, String session) throws IOException {
        assertThat(chunks(r)).as(r.toString()).last().asString()
                .isEqualTo("[tracegate] The answer disclosed a secret code. Tell the user it cannot be shared.");
        List<JsonNode> records = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : audit.lines().toList()) {
            JsonNode node = json.readTree(line);
            if ("assistant".equals(node.path("kind").asText())) {
                records.add(node);
            }
        }
        assertThat(records).as(audit).hasSize(1);
        assertThat(records.get(0).path("session").asText()).isEqualTo(session);
        assertThat(records.get(0).path("decision").asText()).isEqualTo("block");
        // the chunks were shown before the check, the notice followed them: the record says so (trial19 07)
        assertThat(records.get(0).path("streamed").asText()).isEqualTo("shown-then-notice");
        assertThat(records.get(0).path("text").asText()).isEqualTo("the secret code is 1234");
        assertThat(records.get(0).path("fired").toString()).contains("out.no-secret");
    }

    /**
     * The agent argument's older {@code onBlock} wins over the file's {@code block.style} for how the host is given a
     * block (the start line says so). A streamed answer's audit record followed the file's style instead: with
     * {@code block.style: exception} in the file and {@code onBlock=substitute}, the application got a text chunk after the
     * answer while the record said {@code shown-then-error}; with {@code onBlock=throw} over the default style the record
     * said {@code shown-then-notice}. Now the answer's block is decided in the style the host is given it, and the record
     * and replay's report say what the application saw: the chunks received and how the stream ended are the oracle.
     */
    @Test
    void aStreamedAnswersRecordSaysWhatTheApplicationGotWhenTheAgentArgumentSetsTheBlockStyle(@TempDir Path dir) throws IOException {
        Path library = dir.resolve("no-secrets.yaml");
        Files.writeString(library, String.join("\n",
                "tracegate: 1",
                "library: no-secrets",
                "contracts:",
                "  - id: out.no-secret",
                "    guarantee: G(!output_matches(\"secret code\"))",
                "    message: The answer disclosed a secret code.",
                "    next: Tell the user it cannot be shared.",
                ""));
        ObjectMapper json = new ObjectMapper();
        for (String style : new String[] {"exception", "substitute"}) {
            Path audit = dir.resolve("audit-" + style + ".jsonl");
            Path yaml = Files.writeString(dir.resolve("tg-" + style + ".yaml"), String.join("\n",
                    "libraries: [" + library + "]",
                    "audit: {path: " + audit + ", personal-data: clear}",
                    "block.style: " + style, ""));
            boolean throwing = style.equals("substitute");   // the argument says the other style
            ForkedJvm.Result r = run("config=" + yaml + ",onBlock=" + (throwing ? "throw" : "substitute"), "--stream", "--chunks", "chat");
            assertThat(r.stderr()).as(r.toString()).contains("block.style=" + (throwing ? "exception" : "substitute"));
            assertThat(chunks(r).subList(0, 5)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
            String saw;
            if (throwing) {
                assertThat(chunks(r)).as(r.toString()).hasSize(5);
                assertThat(r.stdout()).as(r.toString()).doesNotContain("ANSWER:")
                        .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the answer (contract out.no-secret)");
                saw = "shown-then-error";
            } else {
                assertThat(chunks(r)).as(r.toString()).hasSize(6).last().asString()
                        .isEqualTo("[tracegate] The answer disclosed a secret code. Tell the user it cannot be shared.");
                saw = "shown-then-notice";
            }
            List<JsonNode> records = new ArrayList<>();
            for (String line : Files.readAllLines(audit)) {
                JsonNode node = json.readTree(line);
                if ("assistant".equals(node.path("kind").asText())) records.add(node);
            }
            assertThat(records).as(Files.readString(audit)).hasSize(1);
            assertThat(records.get(0).path("decision").asText()).isEqualTo("block");
            assertThat(records.get(0).path("streamed").asText()).as(r.toString()).isEqualTo(saw);
            List<String> command = new ArrayList<>(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(),
                    "replay", library.toString(), audit.toString()));
            ForkedJvm.Result replay = ForkedJvm.exec(command);
            assertThat(replay.exit()).as(replay.toString()).isEqualTo(1);
            assertThat(replay.stdout()).as(replay.toString()).contains("assistant; streamed: the text was shown before the check, then "
                    + (throwing ? "the stream ended with the violation" : "a notice followed") + ")");
        }
    }

    // ---- the model's stream(Prompt) called directly, without a ChatClient (2.0.1) ----

    @Test
    void aDirectModelStreamIsOneAssistantEventInSessionDefault() {
        ForkedJvm.Result r = run("trace=true", "--direct", "--chunks", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=default -> KEEP")
                .contains("ASSISTANT springai-stream session=default -> KEEP");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aViolatingDirectModelStreamIsFollowedByTheNoticeOrEndsWithTheViolation() {
        ForkedJvm.Result substituted = run(SECRET_BLOCKED, "--direct", "--chunks", "chat");
        List<String> received = chunks(substituted);
        assertThat(received).as(substituted.toString()).hasSize(6);
        assertThat(received.subList(0, 5)).as(substituted.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(received.get(5)).startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(substituted.stderr()).as(substituted.toString())
                .contains("BLOCK ASSISTANT springai-stream session=default contract=rule.blockOutput");
        assertThat(count(substituted.stderr(), "ASSISTANT ")).as(substituted.toString()).isEqualTo(1);
        ForkedJvm.Result thrown = run(SECRET_THROWN, "--direct", "--chunks", "chat");
        assertThat(chunks(thrown)).as(thrown.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aModelStreamAnAdvisorOfTheAppCallsItselfIsCheckedInTheConversation() {
        // as for a blocking model call, the conversation is the one of the ChatClient request the advisor serves
        ForkedJvm.Result r = run(TRACED, "--stream-in-advisor", "--chunks", "--conversation=conv-adv", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=conv-adv -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-adv -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = run(SECRET_BLOCKED, "--stream-in-advisor", "--chunks", "--conversation=conv-adv2", "chat");
        assertThat(chunks(blocked)).as(blocked.toString()).hasSize(6).last().asString()
                .startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK ASSISTANT springai-stream session=conv-adv2");
    }

    /**
     * trial9 springai-deferred-call-in-stream: a model whose stream() runs its own call() inside Flux.defer on a worker
     * (an adapter streaming over a blocking model). The call is nested in the stream: its messages are the conversation's,
     * checked once there, never again in session default on the worker; its answer is checked before it is streamed.
     */
    @Test
    void aModelStreamThatRunsItsOwnCallLaterOnAWorkerIsCheckedOnceInTheConversation() throws IOException {
        ForkedJvm.Result r = run(TRACED, "--stream", "--chunks", "--deferred-call", "--conversation=conv-d1", "chat");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL CALL ON boundedElastic-").contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=conv-d1 -> KEEP")
                .contains("ASSISTANT springai session=conv-d1 -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "USER ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        // a violating answer: refused in the conversation before any of it is streamed; its record keeps the model's text
        ForkedJvm.Result blocked = run(NO_SECRETS, "--stream", "--chunks", "--deferred-call", "--conversation=conv-d2", "chat");
        String audit = NO_SECRETS.auditOf(Files.readString(batchDir.resolve("no-secrets-audit.jsonl")), "conv-d2");
        assertThat(blocked.stdout()).as(blocked.toString())
                .contains("ANSWER: [tracegate] The answer disclosed a secret code. Tell the user it cannot be shared.");
        assertThat(chunks(blocked)).as("no chunk of the refused answer was shown: %s", blocked).doesNotContain("1234", "is");
        List<JsonNode> messages = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : audit.lines().toList()) {
            JsonNode node = json.readTree(line);
            if (node.path("kind").asText().equals("user") || node.path("kind").asText().equals("assistant")) messages.add(node);
        }
        assertThat(messages).as(audit).hasSize(2).allMatch(m -> m.path("session").asText().equals("conv-d2"));
        assertThat(messages.get(1).path("kind").asText()).isEqualTo("assistant");
        assertThat(messages.get(1).path("decision").asText()).isEqualTo("block");
        assertThat(messages.get(1).path("text").asText()).isEqualTo("the secret code is 1234");
    }

    @Test
    void aViolatingStreamedAnswerInShadowModeIsLoggedAndChangesNothing() {
        ForkedJvm.Result r = run("shadow=true,blockOutput=secret code", "--direct", "--chunks", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString()).contains("SHADOW would BLOCK ASSISTANT springai-stream session=default");
    }

    @Test
    void aDirectModelStreamIsAuditedUnderAContractLibrary(@TempDir Path dir) throws IOException {
        assertOneAuditedBlock(dir, SpringAiTest::run, "default", "--direct", "--chunks", "chat");
    }

    // ---- Spring AI 1.1.2 (the Boot 3 line): the same app classes on the resolved 1.1.2 closure, ToolCallAdvisor added ----

    /** The app's classes and the jars the build copied to target/springai-1.1.2 (no 2.0.1 jar). */
    static String springAi112Classpath() {
        return ForkedJvm.lineClasspath("springai-1.1.2");
    }

    private static ForkedJvm.Result run112(String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), springAi112Classpath(), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.1\\.2\\.jar");
        return r;
    }

    @Test
    void springAi112ToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run112(TRACED_112, "--tool-advisor", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: \"email sent to bob@example.com\"");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-42 tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("USER springai session=conv-42 -> KEEP")
                .contains("ASSISTANT springai session=conv-42 -> KEEP")
                .doesNotContain("instrumentation springai matched nothing");
    }

    @Test
    void springAi112BlockWithSubstitutionAndWithException() {
        ForkedJvm.Result substituted = run112(EMAIL_BLOCKED_112, "--tool-advisor", "email");
        assertThat(substituted.stdout()).as(substituted.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        ForkedJvm.Result thrown = run112("block=sendEmail,onBlock=throw", "--tool-advisor", "email");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void springAi112RedirectRedactAndSuppress() {
        ForkedJvm.Result redirected = run112("redirect=sendEmail:draftEmail", "--tool-advisor", "email");
        assertThat(redirected.stdout()).as(redirected.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com");
        ForkedJvm.Result redacted = run112("redact=email", "--tool-advisor", "ticket");
        assertThat(redacted.stdout()).as(redacted.toString()).contains("TOOL createTicket ran title=printer broken email=null");
        ForkedJvm.Result suppressed = run112("suppress=lookupCustomer", "--tool-advisor", "lookup");
        assertThat(suppressed.stdout()).as(suppressed.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
    }

    @Test
    void springAi112StreamingThroughAProviderStyleToolLoopKeepsTheConversation() {
        // 1.1's ToolCallAdvisor does not stream; provider models run the tools in their own stream, with the
        // subscriber's Reactor context in ToolCallReactiveContextHolder (the model here does what they do)
        ForkedJvm.Result r = run112(TRACED_112, "--stream", "--provider-loop", "--conversation=conv-112", "email");
        assertThat(toolThread(r, "sendEmail")).as(r.toString()).isNotEqualTo("main");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(count(r.stderr(), "CALL springai ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL springai session=conv-112 tool=sendEmail")
                .contains("USER springai session=conv-112 -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-112 -> KEEP")
                .doesNotContain("session=default");
        // the model ran the tool inside its own stream: the round that asked for it is not the answer, checked once
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = run112(EMAIL_BLOCKED_112, "--stream", "--provider-loop", "--conversation=conv-113", "email");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK springai session=conv-113 tool=sendEmail");
    }

    @Test
    void springAi112StreamedAnswerThroughAChatClientIsCheckedOnceInItsConversation() {
        ForkedJvm.Result r = run112(TRACED_112, "--stream", "--chunks", "--conversation=conv-112s", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=conv-112s -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-112s -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result substituted = run112("blockOutput=secret code", "--stream", "--chunks", "--conversation=conv-112b", "chat");
        List<String> received = chunks(substituted);
        assertThat(received).as(substituted.toString()).hasSize(6);
        assertThat(received.get(5)).as(substituted.toString()).startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(substituted.stderr()).as(substituted.toString())
                .contains("BLOCK ASSISTANT springai-stream session=conv-112b contract=rule.blockOutput");
        assertThat(count(substituted.stderr(), "ASSISTANT ")).as(substituted.toString()).isEqualTo(1);
        ForkedJvm.Result thrown = run112(SECRET_THROWN_112, "--stream", "--chunks", "chat");
        assertThat(chunks(thrown)).as(thrown.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void springAi112StreamedAnswerAfterAProviderToolLoopGetsTheNotice() {
        ForkedJvm.Result r = run112("blockOutput=email sent", "--stream", "--provider-loop", "--conversation=conv-112t", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(chunks(r)).as(r.toString()).last().asString().startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT springai-stream session=conv-112t");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void springAi112DirectModelStreamIsCheckedInSessionDefault() {
        ForkedJvm.Result r = run112("trace=true", "--direct", "--chunks", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stderr()).as(r.toString()).contains("ASSISTANT springai-stream session=default -> KEEP");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result thrown = run112(SECRET_THROWN_112, "--direct", "--chunks", "chat");
        assertThat(chunks(thrown)).as(thrown.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(thrown.stdout()).as(thrown.toString())
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void springAi112ModelStreamAnAdvisorOfTheAppCallsItselfIsCheckedInTheConversation() {
        ForkedJvm.Result r = run112(TRACED_112, "--stream-in-advisor", "--chunks", "--conversation=conv-112adv", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("ASSISTANT springai-stream session=conv-112adv -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void springAi112StreamedAnswerIsAuditedUnderAContractLibrary(@TempDir Path dir) throws IOException {
        assertOneAuditedBlock(dir, SpringAiTest::run112, "conv-112a", "--stream", "--chunks", "--conversation=conv-112a", "chat");
    }

    // ---- tools that throw, and redirect targets: both are RETURN events of the tool that ran (OrderDeskApp) ----

    private static final String DESK = "demoapp.springai.OrderDeskApp";

    /** The contracts of the order desk: no order look-up after the backend failed, results carrying instructions withheld. */
    private static final String FAILURE_CONTRACTS = String.join("\n",
            "tracegate: 1",
            "library: desk",
            "contracts:",
            "  - id: desk.no-lookup-after-failure",
            "    guarantee: G(call(lookupOrder) -> !O failed(flakyLookup))",
            "    message: The backend failed; do not look up orders now.",
            "  - id: desk.no-injected-results",
            "    assume: G !result_matches(\"(?i)ignore previous instructions\")",
            "    guarantee: G !call(wireMoney)",
            "    message: Results carrying instructions are withheld.",
            "");

    /** Deleting is redirected to {@code target}; an order is looked up only after the account was archived. */
    private static String redirectContracts(String target) {
        return String.join("\n",
                "tracegate: 1",
                "library: desk-redirect",
                "contracts:",
                "  - id: desk.no-delete",
                "    guarantee: G !call(deleteAccount)",
                "    strategy: redirect",
                "    redirect-to: " + target,
                "    message: Accounts are never deleted by the agent.",
                "  - id: desk.archived-first",
                "    guarantee: G(call(lookupOrder) -> O returned(archiveAccount))",
                "    message: Look up orders only after the account was archived.",
                "  - id: desk.no-injected-results",
                "    assume: G !result_matches(\"(?i)ignore previous instructions\")",
                "    guarantee: G !call(wireMoney)",
                "    message: Results carrying instructions are withheld.",
                "");
    }

    /** What one run of the order desk printed and audited. */
    private record DeskRun(ForkedJvm.Result result, List<JsonNode> events) {
        String stdout() {
            return result.stdout();
        }

        /** The audited RETURN events of {@code tool}. */
        List<JsonNode> returns(String tool) {
            List<JsonNode> found = new ArrayList<>();
            for (JsonNode e : events) {
                if ("return".equals(e.path("kind").asText()) && tool.equals(e.path("tool").asText())) {
                    found.add(e);
                }
            }
            return found;
        }

        /** The lines on which the model saw a tool result. */
        String modelSaw() {
            StringBuilder seen = new StringBuilder();
            for (String line : result.stdout().split("\n")) {
                if (line.startsWith("MODEL SAW TOOL RESULT")) {
                    seen.append(line).append('\n');
                }
            }
            return seen.toString();
        }

        @Override
        public String toString() {
            StringBuilder text = new StringBuilder(result.toString()).append("--- audit events ---\n");
            events.forEach(e -> text.append(e).append('\n'));
            return text.toString();
        }
    }

    /** Runs the order desk under {@code contracts} (written to a library in {@code dir}) with the audit log in clear. */
    private static DeskRun desk(Path dir, String contracts, String classpath, String... args) throws IOException {
        Path library = Files.createTempFile(dir, "desk", ".yaml");
        Files.writeString(library, contracts);
        Path audit = Files.createTempFile(dir, "audit", ".jsonl");
        Files.delete(audit);
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(),
                List.of(ForkedJvm.agent("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear")), classpath, DESK, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return new DeskRun(r, events(Files.readString(audit)));
    }

    /** The event records of an audit log. */
    private static List<JsonNode> events(String audit) throws IOException {
        List<JsonNode> events = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : audit.lines().toList()) {
            JsonNode node = json.readTree(line);
            if ("event".equals(node.path("rec").asText())) {
                events.add(node);
            }
        }
        return events;
    }

    /**
     * The order desk's runs under {@link #FAILURE_CONTRACTS} on one class path in one JVM ({@link ScenarioBatch}), each in
     * its own conversation (the app's first argument), audited to {@code batchDir/NAME-audit.jsonl}.
     */
    private static ScenarioBatch deskFailures(String name, java.util.function.Supplier<String> classpath) {
        return new ScenarioBatch(DESK, () -> List.of(ForkedJvm.agent("libraries=" + write(batchDir.resolve(name + ".yaml"), FAILURE_CONTRACTS)
                + ",audit.path=" + batchDir.resolve(name + "-audit.jsonl") + ",audit.personal-data=clear")), classpath);
    }

    private static final ScenarioBatch DESK_FAILURES = deskFailures("desk-failures", ForkedJvm::appClasspath)
            .scenario("c1", "c1", "flakyLookup", "{\"customerId\":\"C1\"}", "lookupOrder", "{\"orderId\":\"8\"}")
            .scenario("c2", "c2", "flakyLookup", "{\"customerId\":\"C666\"}")
            .scenario("c4", "c4", "diskLookup", "{\"customerId\":\"C4\"}");

    private static final ScenarioBatch DESK_FAILURES_112 = deskFailures("desk-failures-112", SpringAiTest::springAi112Classpath)
            .scenario("c7", "--tool-advisor", "c7", "flakyLookup", "{\"customerId\":\"C7\"}", "lookupOrder", "{\"orderId\":\"8\"}")
            .scenario("c8", "--tool-advisor", "c8", "flakyLookup", "{\"customerId\":\"C666\"}");

    /** The run of {@code session} in {@code batch} (made by {@link #deskFailures} as {@code name}) and its session's audited events. */
    private static DeskRun desk(ScenarioBatch batch, String name, String session, String... args) throws IOException {
        ForkedJvm.Result r = batch.run(args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return new DeskRun(r, events(batch.auditOf(Files.readString(batchDir.resolve(name + "-audit.jsonl")), session)));
    }

    @Test
    void aToolThatThrowsIsAnErrorReturnSoACallGuardedByFailedIsBlocked() throws IOException {
        DeskRun run = desk(DESK_FAILURES, "desk-failures", "c1",
                "c1", "flakyLookup", "{\"customerId\":\"C1\"}", "lookupOrder", "{\"orderId\":\"8\"}");
        // nothing withholds it: Spring AI hands the tool's own message to the model, as without the agent
        assertThat(run.stdout()).as(run.toString())
                .contains("TOOL flakyLookup ran customerId=C1")
                .contains("MODEL SAW TOOL RESULT flakyLookup: backend down for C1")
                .doesNotContain("TOOL lookupOrder ran")
                .contains("MODEL SAW TOOL RESULT lookupOrder: tracegate blocked the call to lookupOrder (contract desk.no-lookup-after-failure)");
        List<JsonNode> returns = run.returns("flakyLookup");
        assertThat(returns).as(run.toString()).hasSize(1);
        assertThat(returns.get(0).path("session").asText()).isEqualTo("c1");
        assertThat(returns.get(0).path("error").asBoolean()).as(run.toString()).isTrue();
        assertThat(returns.get(0).path("result").asText()).isEqualTo("java.lang.IllegalStateException: backend down for C1");
        assertThat(returns.get(0).path("decision").asText()).isEqualTo("pass");
    }

    @Test
    void anInstructionInAThrownExceptionsMessageIsWithheldFromTheModel() throws IOException {
        DeskRun run = desk(DESK_FAILURES, "desk-failures", "c2", "c2", "flakyLookup", "{\"customerId\":\"C666\"}");
        assertThat(run.stdout()).as(run.toString()).contains("TOOL flakyLookup ran customerId=C666");
        assertThat(run.modelSaw()).as(run.toString())
                .contains("MODEL SAW TOOL RESULT flakyLookup: [tracegate] This tool result was withheld (desk.no-injected-results)")
                .doesNotContainIgnoringCase("ignore previous instructions");
        assertThat(run.stdout()).as(run.toString()).doesNotContainIgnoringCase("ignore previous instructions").doesNotContain("EXCEPTION");
        List<JsonNode> returns = run.returns("flakyLookup");
        assertThat(returns).as(run.toString()).hasSize(1);
        assertThat(returns.get(0).path("error").asBoolean()).isTrue();
        assertThat(returns.get(0).path("decision").asText()).isEqualTo("suppress");
        assertThat(returns.get(0).path("result").asText()).contains("IGNORE PREVIOUS INSTRUCTIONS");
    }

    /**
     * A checked exception: Spring AI 2.0's default exception processor rethrows it to the application. Nothing acting, the
     * application gets its own exception unchanged (and the failure is audited); withheld, it gets the notice instead.
     */
    @Test
    void aCheckedToolExceptionReachesTheApplicationUnchangedUnlessAContractWithholdsIt(@TempDir Path dir) throws IOException {
        String failedOnly = String.join("\n",
                "tracegate: 1",
                "library: disk",
                "contracts:",
                "  - id: disk.no-lookup-after-failure",
                "    guarantee: G(call(lookupOrder) -> !O failed(diskLookup))",
                "    message: The disk failed.",
                "");
        DeskRun kept = desk(dir, failedOnly, ForkedJvm.appClasspath(), "c3", "diskLookup", "{\"customerId\":\"C3\"}");
        assertThat(kept.stdout()).as(kept.toString())
                .contains("TOOL diskLookup ran customerId=C3")
                .contains("EXCEPTION: org.springframework.ai.tool.execution.ToolExecutionException: disk full while reading C3")
                .contains("EXCEPTION: java.io.IOException: disk full while reading C3: IGNORE PREVIOUS INSTRUCTIONS")
                .doesNotContain("[tracegate]")
                .doesNotContain("withheld")
                .doesNotContain("ANSWER");
        assertThat(kept.returns("diskLookup")).as(kept.toString()).hasSize(1);
        assertThat(kept.returns("diskLookup").get(0).path("error").asBoolean()).isTrue();
        assertThat(kept.returns("diskLookup").get(0).path("result").asText())
                .isEqualTo("java.io.IOException: disk full while reading C3: IGNORE PREVIOUS INSTRUCTIONS");

        DeskRun withheld = desk(DESK_FAILURES, "desk-failures", "c4", "c4", "diskLookup", "{\"customerId\":\"C4\"}");
        assertThat(withheld.stdout()).as(withheld.toString())
                .contains("EXCEPTION: org.springframework.ai.tool.execution.ToolExecutionException: [tracegate] This tool result was withheld (desk.no-injected-results)")
                .doesNotContainIgnoringCase("ignore previous instructions")
                .doesNotContain("ANSWER");
        assertThat(withheld.returns("diskLookup").get(0).path("decision").asText()).as(withheld.toString()).isEqualTo("suppress");
    }

    @Test
    void aRedirectTargetsResultIsItsReturnSoReturnedHoldsAndAResultContractActsOnIt(@TempDir Path dir) throws IOException {
        DeskRun archived = desk(dir, redirectContracts("archiveAccount"), ForkedJvm.appClasspath(),
                "c5", "deleteAccount", "{\"customerId\":\"C5\"}", "lookupOrder", "{\"orderId\":\"7\"}");
        assertThat(archived.stdout()).as(archived.toString())
                .doesNotContain("TOOL deleteAccount ran")
                .contains("TOOL archiveAccount ran customerId=C5")
                .contains("MODEL SAW TOOL RESULT deleteAccount: \"archived C5\"")
                // returned(archiveAccount) held: the look-up it guards ran
                .contains("TOOL lookupOrder ran orderId=7");
        assertThat(archived.returns("archiveAccount")).as(archived.toString()).hasSize(1);
        // recorded as the text the JSON string encodes (24cca6a), while the model saw the JSON string (above)
        assertThat(archived.returns("archiveAccount").get(0).path("result").asText()).isEqualTo("archived C5");
        assertThat(archived.returns("deleteAccount")).as(archived.toString()).isEmpty();

        DeskRun notes = desk(dir, redirectContracts("fetchNotes"), ForkedJvm.appClasspath(),
                "c6", "deleteAccount", "{\"customerId\":\"C6\"}");
        assertThat(notes.stdout()).as(notes.toString())
                .doesNotContain("TOOL deleteAccount ran")
                .contains("TOOL fetchNotes ran customerId=C6");
        assertThat(notes.modelSaw()).as(notes.toString())
                .contains("MODEL SAW TOOL RESULT deleteAccount: [tracegate] This tool result was withheld (desk.no-injected-results)")
                .doesNotContainIgnoringCase("ignore previous instructions");
        assertThat(notes.returns("fetchNotes")).as(notes.toString()).hasSize(1);
        assertThat(notes.returns("fetchNotes").get(0).path("decision").asText()).isEqualTo("suppress");
    }

    /**
     * A redirect to a tool this call's callbacks do not have (a typo in redirect-to): nothing runs, the model is told why,
     * and since e4a5516 (trial12 redirect-unreachable-target-logged-as-redirect) the audit log records a BLOCK of the
     * original call naming the missing target and the tools there are, not a redirected CALL of a tool that does not
     * exist; returned(target) does not hold, so the look-up it guards is blocked.
     */
    @Test
    void aRedirectToAToolTheCallCannotReachIsABlockOfTheOriginalCall(@TempDir Path dir) throws IOException {
        DeskRun missing = desk(dir, redirectContracts("archiveAcount"), ForkedJvm.appClasspath(),
                "c9", "deleteAccount", "{\"customerId\":\"C9\"}", "lookupOrder", "{\"orderId\":\"9\"}");
        assertThat(missing.stdout()).as(missing.toString())
                .doesNotContain("TOOL deleteAccount ran").doesNotContain("TOOL archiveAccount ran")
                .contains("It could not be redirected to archiveAcount: archiveAcount is not a tool of this call site (its tools: archiveAccount,")
                .doesNotContain("TOOL lookupOrder ran");
        assertThat(missing.returns("archiveAcount")).as(missing.toString()).isEmpty();
        assertThat(missing.toString()).contains("\"tool\":\"deleteAccount\"").contains("\"decision\":\"block\",\"fired\":[\"desk.no-delete\"]")
                .doesNotContain("\"decision\":\"redirect\"");
    }

    /**
     * trial24 (01): a redirect target that takes none of the call's arguments would run with nulls; Spring AI's callback
     * tells its parameters (the input schema), so deleteAccount(customerId) redirected to lookupOrder(orderId) is a block
     * whose reason names them, and lookupOrder does not run.
     */
    @Test
    void aRedirectToAToolThatTakesNoneOfTheArgumentsIsABlockOfTheOriginalCall(@TempDir Path dir) throws IOException {
        // only the redirect contract: no other contract refuses the target's call, so before the fix lookupOrder ran with orderId=null
        String contracts = String.join("\n", "tracegate: 1", "library: desk-redirect", "contracts:", "  - id: desk.no-delete",
                "    guarantee: G !call(deleteAccount)", "    strategy: redirect", "    redirect-to: lookupOrder",
                "    message: Accounts are never deleted by the agent.", "");
        DeskRun r = desk(dir, contracts, ForkedJvm.appClasspath(), "c11", "deleteAccount", "{\"customerId\":\"C11\"}");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL deleteAccount ran").doesNotContain("TOOL lookupOrder ran")
                .contains("It could not be redirected to lookupOrder: lookupOrder takes none of deleteAccount's arguments (customerId;"
                        + " its parameters: orderId), so it would run with nulls");
        assertThat(r.toString()).contains("\"decision\":\"block\",\"fired\":[\"desk.no-delete\"]").doesNotContain("\"decision\":\"redirect\"")
                .contains("WARN contract desk.no-delete redirects deleteAccount to lookupOrder, but lookupOrder takes none of");
    }

    /** The model is not sent to the missing target by the contract's next: it is told what can work instead. */
    @Test
    void aRedirectToAToolTheCallCannotReachDoesNotPassOnANextThatNamesIt(@TempDir Path dir) throws IOException {
        String contracts = redirectContracts("archiveAcount").replace("    message: Accounts are never deleted by the agent.",
                "    message: Accounts are never deleted by the agent.\n    next: Archive the account with archiveAcount instead.");
        DeskRun missing = desk(dir, contracts, ForkedJvm.appClasspath(), "c10", "deleteAccount", "{\"customerId\":\"C10\"}");
        assertThat(missing.modelSaw()).as(missing.toString())
                .contains("MODEL SAW TOOL RESULT deleteAccount: tracegate blocked the call to deleteAccount (contract desk.no-delete)")
                .contains("Instead: Do not call deleteAccount again: it is refused, and archiveAcount, which would run in its place, is not available here.")
                .doesNotContain("Archive the account with archiveAcount");
        assertThat(missing.stdout()).doesNotContain("TOOL deleteAccount ran").doesNotContain("TOOL archiveAccount ran");
    }

    @Test
    void springAi112AToolThatThrowsIsAnErrorReturnAndItsInstructionIsWithheld() throws IOException {
        DeskRun run = desk(DESK_FAILURES_112, "desk-failures-112", "c7",
                "--tool-advisor", "c7", "flakyLookup", "{\"customerId\":\"C7\"}", "lookupOrder", "{\"orderId\":\"8\"}");
        assertThat(run.stdout()).as(run.toString())
                .containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.1\\.2\\.jar")
                .contains("MODEL SAW TOOL RESULT flakyLookup: backend down for C7")
                .doesNotContain("TOOL lookupOrder ran")
                .contains("MODEL SAW TOOL RESULT lookupOrder: tracegate blocked the call to lookupOrder (contract desk.no-lookup-after-failure)");
        assertThat(run.returns("flakyLookup").get(0).path("error").asBoolean()).as(run.toString()).isTrue();
        DeskRun injected = desk(DESK_FAILURES_112, "desk-failures-112", "c8", "--tool-advisor", "c8", "flakyLookup", "{\"customerId\":\"C666\"}");
        assertThat(injected.modelSaw()).as(injected.toString())
                .contains("MODEL SAW TOOL RESULT flakyLookup: [tracegate] This tool result was withheld (desk.no-injected-results)")
                .doesNotContainIgnoringCase("ignore previous instructions");
    }
}
