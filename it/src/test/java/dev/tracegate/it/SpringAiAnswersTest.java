package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What a Spring AI application receives as the answer is checked in the request's conversation, however it is made
 * (trial15): a conversation named in the {@code ToolContext}, a {@code returnDirect} tool's result, text a streamed
 * round shows before it asks for a tool, text a blocking round returns beside its request for tools, and every generation
 * of a blocking answer. Forked JVMs under the built agent jar, the app never imports tracegate.
 */
class SpringAiAnswersTest {

    private static final String APP = "demoapp.springai.SpringAiApp";

    private static ForkedJvm.Result runOn(String classpath, String options, String... args) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), classpath, APP, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static ForkedJvm.Result run(String options, String... args) {
        return runOn(ForkedJvm.appClasspath(), options, args);
    }

    /** The scenario's part of its batch's JVM ({@link ScenarioBatch}), which must have exited normally. */
    private static ForkedJvm.Result run(ScenarioBatch batch, String... args) {
        ForkedJvm.Result r = batch.run(args);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static ScenarioBatch batch(String options) {
        return new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent(options)), ForkedJvm::appClasspath);
    }

    /*
     * The scenarios under the same agent options share a JVM, each in a conversation of its own (ScenarioBatch): the app's
     * --conversation, else conv-42; an own tool loop (--own-loop) has none, so its session is "default", and the second
     * such scenario under the same options keeps a JVM of its own.
     */
    private static final ScenarioBatch TRACED = batch("trace=true")
            .scenario("k1", "--tool-context", "--conversation=k1", "email")
            .scenario("k2", "--stream", "--tool-context", "--conversation=k2", "email")
            .scenario("conv-42", "show");

    private static final ScenarioBatch BLOCKED = batch("trace=true,blockOutput=secret")
            .scenario("conv-42", "show")
            .scenario("conv-t", "--stream", "--think-aloud", "--conversation=conv-t", "email")
            .scenario("default", "--own-loop", "email")
            .scenario("conv-b", "--text-beside-tools", "--conversation=conv-b", "email");

    private static final ScenarioBatch THROWN = batch("blockOutput=secret,onBlock=throw")
            .scenario("conv-42", "show")
            .scenario("conv-u", "--stream", "--think-aloud", "--conversation=conv-u", "email")
            .scenario("default", "--own-loop", "email");

    private static ForkedJvm.Result run112(String options, String... args) {
        ForkedJvm.Result r = runOn(ForkedJvm.lineClasspath("springai-1.1.2"), options, args);
        assertThat(r.stdout()).as(r.toString()).containsPattern("SPRING AI \\S*spring-ai-client-chat-1\\.1\\.2\\.jar");
        return r;
    }

    private static List<String> chunks(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("CHUNK: ")).map(l -> l.substring("CHUNK: ".length()).strip()).toList();
    }

    /** The text of each round that asked for tools, as an application running the tools itself showed it. */
    private static List<String> shown(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("SHOWN: ")).map(l -> l.substring("SHOWN: ".length())).toList();
    }

    /** Each generation of the answer, as an application that reads them all showed it ({@code text [finish=REASON]}). */
    private static List<String> generations(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("GENERATION: ")).map(l -> l.substring("GENERATION: ".length())).toList();
    }

    private static final String NOTICE = "tracegate blocked model output (contract rule.blockOutput): it contains a forbidden word";

    private static String answer(ForkedJvm.Result r) {
        return r.stdout().lines().filter(l -> l.startsWith("ANSWER: ")).findFirst().orElse("(no answer)");
    }

    @Test
    void aConversationNamedOnlyInTheToolContextIsTheSessionOfItsUserMessageToolCallAndAnswer() {
        ForkedJvm.Result r = run(TRACED, "--tool-context", "--conversation=k1", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=k1 -> KEEP")
                .contains("CALL springai session=k1 tool=sendEmail")
                .contains("ASSISTANT springai session=k1 -> KEEP")
                .doesNotContain("session=default");
    }

    @Test
    void aStreamedConversationNamedOnlyInTheToolContextIsOneSession() {
        ForkedJvm.Result r = run(TRACED, "--stream", "--tool-context", "--conversation=k2", "email");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER springai session=k2 -> KEEP")
                .contains("CALL springai session=k2 tool=sendEmail")
                .contains("ASSISTANT springai-stream session=k2 -> KEEP")
                .doesNotContain("session=default");
    }

    @Test
    void aReturnDirectToolResultIsTheConversationsAnswerAndIsChecked() {
        ForkedJvm.Result r = run(BLOCKED, "show");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL showAccount ran id=A1");
        // Spring AI hands the result to the application as the answer, with no model round: that answer is checked
        assertThat(answer(r)).as(r.toString())
                .doesNotContain("the secret is 42")
                .contains("tracegate blocked model output (contract rule.blockOutput)");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("MODEL SAW TOOL RESULT showAccount");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT springai session=conv-42 contract=rule.blockOutput");
        // the tool's own RETURN is not an answer: the same text passes there
        assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);

        ForkedJvm.Result passing = run(TRACED, "show");
        // Spring AI hands the result on as the tool call's JSON text: here a quoted string
        assertThat(answer(passing)).as(passing.toString()).isEqualTo("ANSWER: \"Account A1: IBAN DE89370400440532013000, the secret is 42\"");
        assertThat(passing.stderr()).as(passing.toString()).contains("ASSISTANT springai session=conv-42 -> KEEP");
    }

    @Test
    void aStreamedReturnDirectToolResultIsChecked() {
        ForkedJvm.Result r = run("blockOutput=secret", "--stream", "--conversation=conv-d", "show");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL showAccount ran id=A1");
        assertThat(chunks(r)).as(r.toString()).noneMatch(c -> c.contains("the secret is 42"));
        assertThat(answer(r)).as(r.toString()).contains("tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aReturnDirectToolResultThatIsBlockedUnderExceptionStyleThrowsToTheCaller() {
        ForkedJvm.Result r = run(THROWN, "show");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void springAi112ReturnDirectToolResultIsChecked() {
        ForkedJvm.Result r = run112("blockOutput=secret", "--tool-advisor", "show");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL showAccount ran id=A1");
        assertThat(answer(r)).as(r.toString())
                .doesNotContain("the secret is 42")
                .contains("tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void textStreamedBeforeARequestForToolsIsCheckedAsAnAnswerBeforeTheToolRuns() {
        ForkedJvm.Result r = run(BLOCKED, "--stream", "--think-aloud", "--conversation=conv-t", "email");
        // shown as it came (it cannot be recalled), then the notice, and the tool still runs: the text, not the call, violated
        assertThat(chunks(r)).as(r.toString()).startsWith("let me check", "the secret records");
        assertThat(chunks(r)).as(r.toString()).anyMatch(c -> c.startsWith("tracegate blocked model output (contract rule.blockOutput)"));
        assertThat(r.stdout()).as(r.toString()).contains("TOOL sendEmail ran to=bob@example.com");
        String err = r.stderr();
        int text = err.indexOf("ASSISTANT springai-stream session=conv-t");
        int call = err.indexOf("CALL springai session=conv-t tool=sendEmail");
        assertThat(text).as(r.toString()).isNotNegative();
        assertThat(call).as(r.toString()).isGreaterThan(text);
        // two answers: the text before the request and the final one
        assertThat(ForkedJvm.count(err, "ASSISTANT springai-stream session=conv-t")).as(r.toString()).isEqualTo(2);
    }

    @Test
    void aBlockOfTextStreamedBeforeARequestForToolsEndsTheStreamBeforeTheToolRunsWhenBlocksThrow() {
        ForkedJvm.Result r = run(THROWN, "--stream", "--think-aloud", "--conversation=conv-u", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void textBesideARequestForToolsInABlockingRoundIsCheckedBeforeTheToolRuns() {
        // the application runs the tools itself (user-controlled tool execution) and shows each round's text
        ForkedJvm.Result r = run(BLOCKED, "--own-loop", "email");
        // what it shows is the notice, and the round still asks for its tool: the text, not the call, violated
        assertThat(shown(r)).as(r.toString()).containsExactly(NOTICE + " [tools=1]");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("secret records")
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW ITS TEXT: " + NOTICE)
                .contains("ANSWER: done: \"email sent to bob@example.com\"");
        String err = r.stderr();
        int text = err.indexOf("BLOCK ASSISTANT springai session=default contract=rule.blockOutput");
        int call = err.indexOf("CALL springai session=default tool=sendEmail");
        assertThat(text).as(r.toString()).isNotNegative();
        assertThat(call).as(r.toString()).isGreaterThan(text);
        // two answers: the text beside the request and the final one
        assertThat(ForkedJvm.count(err, "ASSISTANT springai session=default")).as(r.toString()).isEqualTo(2);

        // shadow: the same decision, logged, and the text passes as it came
        ForkedJvm.Result shadow = run("trace=true,shadow=true,blockOutput=secret", "--own-loop", "email");
        assertThat(shadow.stderr()).as(shadow.toString()).contains("SHADOW would BLOCK ASSISTANT springai session=default contract=rule.blockOutput");
        assertThat(shown(shadow)).as(shadow.toString()).containsExactly("let me check the secret records of DE89370400440532013000 [tools=1]");
        assertThat(shadow.stdout()).as(shadow.toString()).contains("TOOL sendEmail ran to=bob@example.com");
    }

    @Test
    void aBlockOfTextBesideARequestForToolsRefusesTheRoundWhenBlocksThrow() {
        ForkedJvm.Result r = run(THROWN, "--own-loop", "email");
        // the round is refused before the application sees it: its text is not shown and its tool does not run
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("SHOWN:")
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE);
    }

    @Test
    void textBesideARequestForToolsIsRedactedInPlaceAndTheToolStillRuns(@TempDir Path dir) throws IOException {
        Path library = dir.resolve("no-iban.yaml");
        Files.writeString(library, String.join("\n",
                "tracegate: 1",
                "library: no-iban",
                "contracts:",
                "  - id: out.no-iban",
                "    guarantee: G(assistant -> !category(iban))",
                "    strategy: redact",
                "    message: The answer carried an IBAN.",
                ""));
        ForkedJvm.Result r = run("trace=true,libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl"), "--own-loop", "email");
        assertThat(shown(r)).as(r.toString()).containsExactly("let me check the secret records of [redacted: iban] [tools=1]");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("DE89370400440532013000")
                .contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(r.stderr()).as(r.toString()).contains("REPLACE ASSISTANT springai session=default contract=out.no-iban");
    }

    @Test
    void aChatClientRoundsTextBesideItsRequestForToolsIsCheckedInItsConversation() {
        // 2.0.x: the ChatClient's own ToolCallAdvisor runs the loop; the round's text goes back to the model in the history
        ForkedJvm.Result r = run(BLOCKED, "--text-beside-tools", "--conversation=conv-b", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("secret records")
                .contains("MODEL SAW ITS TEXT: " + NOTICE)
                .contains("TOOL sendEmail ran to=bob@example.com");
        String err = r.stderr();
        int text = err.indexOf("BLOCK ASSISTANT springai session=conv-b contract=rule.blockOutput");
        int call = err.indexOf("CALL springai session=conv-b tool=sendEmail");
        assertThat(text).as(r.toString()).isNotNegative();
        assertThat(call).as(r.toString()).isGreaterThan(text);
        assertThat(answer(r)).as(r.toString()).isEqualTo("ANSWER: done: \"email sent to bob@example.com\"");
    }

    @Test
    void springAi112TextBesideARequestForToolsIsCheckedBeforeTheChatMemoryKeepsIt() {
        // 1.1.x: MessageChatMemoryAdvisor's default order puts it inside ToolCallAdvisor's loop, so it keeps every round
        ForkedJvm.Result r = run112("blockOutput=secret", "--tool-advisor", "--text-beside-tools", "--memory", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("secret records")
                .contains("MEMORY: ASSISTANT " + NOTICE + " [tools=1]")
                .contains("TOOL sendEmail ran to=bob@example.com");

        ForkedJvm.Result thrown = run112("blockOutput=secret,onBlock=throw", "--tool-advisor", "--text-beside-tools", "--memory", "email");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("secret records")
                .doesNotContain("TOOL sendEmail ran")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE);
    }

    @Test
    void eachGenerationOfABlockingAnswerIsCheckedAndOnlyTheOneThatBrokeTheContractIsReplaced() {
        // a provider that returns its reasoning as a generation before the answer's: the second one says the secret
        ForkedJvm.Result r = run("trace=true,blockOutput=secret", "--own-loop", "--generations", "chat");
        assertThat(generations(r)).as(r.toString()).containsExactly(
                "thinking: the user wants the code [finish=REASONING]",
                NOTICE + " [finish=STOP]");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("secret code");
        String err = r.stderr();
        assertThat(err).as(r.toString()).contains("BLOCK ASSISTANT springai session=default contract=rule.blockOutput");
        // two answers, one per generation, in generation order: the reasoning passes, the answer is blocked
        assertThat(ForkedJvm.count(err, "ASSISTANT springai session=default")).as(r.toString()).isEqualTo(2);
        assertThat(err.indexOf("ASSISTANT springai session=default -> KEEP")).as(r.toString())
                .isNotNegative()
                .isLessThan(err.indexOf("BLOCK ASSISTANT springai session=default"));

        // shadow: the same decision, logged, and both generations pass as they came
        ForkedJvm.Result shadow = run("trace=true,shadow=true,blockOutput=secret", "--own-loop", "--generations", "chat");
        assertThat(shadow.stderr()).as(shadow.toString()).contains("SHADOW would BLOCK ASSISTANT springai session=default contract=rule.blockOutput");
        assertThat(generations(shadow)).as(shadow.toString()).containsExactly(
                "thinking: the user wants the code [finish=REASONING]",
                "the secret code is 1234 [finish=STOP]");
    }

    @Test
    void aBlockOfALaterGenerationRefusesTheAnswerWhenBlocksThrow() {
        ForkedJvm.Result r = run("blockOutput=secret,onBlock=throw", "--own-loop", "--generations", "chat");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("GENERATION:")
                .doesNotContain("ANSWER:")
                .doesNotContain("secret code")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE);
    }
}
