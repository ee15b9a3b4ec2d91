package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

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

    private static int count(String text, String needle) {
        Matcher m = Pattern.compile(Pattern.quote(needle)).matcher(text);
        int n = 0;
        while (m.find()) {
            n++;
        }
        return n;
    }

    @Test
    void aToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run("trace=true", "email");
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
        ForkedJvm.Result r = run("block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
    }

    @Test
    void blockWithException() {
        ForkedJvm.Result r = run("block=sendEmail,onBlock=throw", "email");
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
        ForkedJvm.Result r = run("redirect=sendEmail:archiveEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate: this call was redirected to archiveEmail, which failed (")
                .contains("the archive service is offline");
    }

    @Test
    void suppressWithholdsTheResultAndTheUserMessage() {
        ForkedJvm.Result result = run("suppress=lookupCustomer", "lookup");
        assertThat(result.stdout()).as(result.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
        ForkedJvm.Result user = run("suppressUser=password", "email", "my password is hunter2");
        assertThat(user.stdout()).as(user.toString()).contains("MODEL SAW USER: [withheld by tracegate").doesNotContain("hunter2");
    }

    @Test
    void redactRemovesTheFieldBeforeTheToolRuns() {
        ForkedJvm.Result r = run("redact=email", "ticket");
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
        ForkedJvm.Result r = run("trace=true", "--stream", "--conversation=conv-stream-7", "email");
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

    @Test
    void streamingBlockWithSubstitutionNamesTheConversation() {
        ForkedJvm.Result r = run("block=sendEmail", "--stream", "--conversation=conv-stream-8", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK springai session=conv-stream-8 tool=sendEmail");
    }

    @Test
    void streamingBlockWithExceptionEndsTheStream() {
        ForkedJvm.Result r = run("block=sendEmail,onBlock=throw", "--stream", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void streamingRedactRunsTheToolWithoutTheField() {
        ForkedJvm.Result r = run("redact=email", "--stream", "ticket");
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
        ForkedJvm.Result r = run("suppressUser=password", "--stream", "email", "my password is hunter2");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL SAW USER: [withheld by tracegate").doesNotContain("hunter2");
    }

    // ---- streamed answers (2.0.1): the model streams word chunks; the whole answer is one ASSISTANT event ----

    /** The chunks the app received, in order (words without their trailing space). */
    private static List<String> chunks(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("CHUNK: ")).map(l -> l.substring("CHUNK: ".length()).strip()).toList();
    }

    @Test
    void aStreamedAnswerIsOneAssistantEventOfTheConversationOnceItIsComplete() {
        ForkedJvm.Result r = run("trace=true", "--stream", "--chunks", "--conversation=conv-s1", "chat");
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
        ForkedJvm.Result r = run("blockOutput=secret code", "--stream", "--chunks", "--conversation=conv-s2", "chat");
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
        ForkedJvm.Result r = run("blockOutput=secret code,onBlock=throw", "--stream", "--chunks", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aStreamWithAToolCallSupervisesTheToolAndChecksOnlyTheFinalAnswer() {
        ForkedJvm.Result r = run("trace=true", "--stream", "--chunks", "--conversation=conv-s3", "email");
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
    void aStreamedAnswerIsAuditedUnderAContractLibrary(@TempDir Path dir) throws IOException {
        assertOneAuditedBlock(dir, SpringAiTest::run, "conv-s5", "--stream", "--chunks", "--conversation=conv-s5", "chat");
    }

    /**
     * Runs the app under a contract library that forbids the answer "the secret code is 1234" and checks that the
     * streamed answer ended with the contract's notice and is one audit record, a block, in {@code session}.
     */
    private static void assertOneAuditedBlock(Path dir, java.util.function.BiFunction<String, String[], ForkedJvm.Result> runner,
                                              String session, String... args) throws IOException {
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
        Path audit = dir.resolve("audit.jsonl");
        ForkedJvm.Result r = runner.apply("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear", args);
        assertThat(chunks(r)).as(r.toString()).last().asString()
                .isEqualTo("[tracegate] The answer disclosed a secret code. Tell the user it cannot be shared.");
        List<JsonNode> records = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(line);
            if ("assistant".equals(node.path("kind").asText())) {
                records.add(node);
            }
        }
        assertThat(records).as(Files.readString(audit)).hasSize(1);
        assertThat(records.get(0).path("session").asText()).isEqualTo(session);
        assertThat(records.get(0).path("decision").asText()).isEqualTo("block");
        assertThat(records.get(0).path("text").asText()).isEqualTo("the secret code is 1234");
        assertThat(records.get(0).path("fired").toString()).contains("out.no-secret");
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
        ForkedJvm.Result substituted = run("blockOutput=secret code", "--direct", "--chunks", "chat");
        List<String> received = chunks(substituted);
        assertThat(received).as(substituted.toString()).hasSize(6);
        assertThat(received.subList(0, 5)).as(substituted.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(received.get(5)).startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(substituted.stderr()).as(substituted.toString())
                .contains("BLOCK ASSISTANT springai-stream session=default contract=rule.blockOutput");
        assertThat(count(substituted.stderr(), "ASSISTANT ")).as(substituted.toString()).isEqualTo(1);
        ForkedJvm.Result thrown = run("blockOutput=secret code,onBlock=throw", "--direct", "--chunks", "chat");
        assertThat(chunks(thrown)).as(thrown.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aModelStreamAnAdvisorOfTheAppCallsItselfIsCheckedInTheConversation() {
        // as for a blocking model call, the conversation is the one of the ChatClient request the advisor serves
        ForkedJvm.Result r = run("trace=true", "--stream-in-advisor", "--chunks", "--conversation=conv-adv", "chat");
        assertThat(chunks(r)).as(r.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=conv-adv -> KEEP")
                .contains("ASSISTANT springai-stream session=conv-adv -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = run("blockOutput=secret code", "--stream-in-advisor", "--chunks", "--conversation=conv-adv2", "chat");
        assertThat(chunks(blocked)).as(blocked.toString()).hasSize(6).last().asString()
                .startsWith("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK ASSISTANT springai-stream session=conv-adv2");
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
        Path classes = Path.of(System.getProperty("tracegate.app.classes", "target/classes"));
        Path jars = classes.resolveSibling("springai-1.1.2");
        StringBuilder cp = new StringBuilder(classes.toString());
        try (Stream<Path> files = Files.list(jars)) {
            files.sorted().forEach(f -> cp.append(File.pathSeparator).append(f.toAbsolutePath()));
        } catch (IOException e) {
            throw new IllegalStateException("Spring AI 1.1.2 jars missing in " + jars + " (the it module's generate-test-resources phase copies them)", e);
        }
        return cp.toString();
    }

    private static ForkedJvm.Result run112(String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), springAi112Classpath(), APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.1\\.2\\.jar");
        return r;
    }

    @Test
    void springAi112ToolCallIsSeenOnceWithTheAdvisorConversationIdAsSession() {
        ForkedJvm.Result r = run112("trace=true", "--tool-advisor", "email");
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
        ForkedJvm.Result substituted = run112("block=sendEmail", "--tool-advisor", "email");
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
        ForkedJvm.Result r = run112("trace=true", "--stream", "--provider-loop", "--conversation=conv-112", "email");
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
        ForkedJvm.Result blocked = run112("block=sendEmail", "--stream", "--provider-loop", "--conversation=conv-113", "email");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(blocked.stderr()).as(blocked.toString()).contains("BLOCK springai session=conv-113 tool=sendEmail");
    }

    @Test
    void springAi112StreamedAnswerThroughAChatClientIsCheckedOnceInItsConversation() {
        ForkedJvm.Result r = run112("trace=true", "--stream", "--chunks", "--conversation=conv-112s", "chat");
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
        ForkedJvm.Result thrown = run112("blockOutput=secret code,onBlock=throw", "--stream", "--chunks", "chat");
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
        ForkedJvm.Result thrown = run112("blockOutput=secret code,onBlock=throw", "--direct", "--chunks", "chat");
        assertThat(chunks(thrown)).as(thrown.toString()).containsExactly("the", "secret", "code", "is", "1234");
        assertThat(thrown.stdout()).as(thrown.toString())
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void springAi112ModelStreamAnAdvisorOfTheAppCallsItselfIsCheckedInTheConversation() {
        ForkedJvm.Result r = run112("trace=true", "--stream-in-advisor", "--chunks", "--conversation=conv-112adv", "chat");
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
}
