package dev.tracegate.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A LangChain4j AI service with real @Tool methods (and MCP tools through langchain4j-mcp), run in a forked JVM under the built agent jar. */
class LangChain4jTest {

    private static final String APP = "demoapp.langchain4j.LangChain4jApp";

    private static ForkedJvm.Result runOn(String java, String options, String... args) {
        ForkedJvm.Result result = ForkedJvm.run(java, List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), APP, args);
        assertThat(result.exit()).as(result.toString()).isZero();
        return result;
    }

    private static ForkedJvm.Result run(String options, String... args) {
        return runOn(ForkedJvm.java(), options, args);
    }

    /**
     * The AI service's scenarios under {@code trace=true} alone, in one JVM ({@link ScenarioBatch}): each in a chat memory
     * of its own ({@code --memory-id}, the session of its agent lines; the first keeps the app's "alice").
     */
    private static final ScenarioBatch TRACED = new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent("trace=true")), ForkedJvm::appClasspath)
            .scenario("alice", "email")
            .scenario("ann", "--memory-id=ann", "archive")
            .scenario("amy", "--memory-id=amy", "archive-rethrow")
            .scenario("pat", "--memory-id=pat", "parallel");

    /** The scenario's part of its batch's JVM, which must have exited normally. */
    private static ForkedJvm.Result run(ScenarioBatch batch, String... args) {
        ForkedJvm.Result result = batch.run(args);
        assertThat(result.exit()).as(result.toString()).isZero();
        return result;
    }

    @Test
    void withoutRulesEveryCallIsSeenWithTheChatMemoryIdAsSessionAndNothingChanges() {
        ForkedJvm.Result r = run(TRACED, "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: email sent to bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("RETURN langchain4j session=alice tool=sendEmail -> KEEP")
                .contains("USER langchain4j session=alice -> KEEP")
                .contains("ASSISTANT langchain4j session=alice -> KEEP")
                .doesNotContain("instrumentation langchain4j matched nothing")
                // Spring AI is on this app's class path but never used: one warning names it
                .contains("WARN instrumentation springai matched nothing (org.springframework.ai.tool.ToolCallback was never loaded)");
    }

    @Test
    void blockWithSubstitutionTheToolDoesNotRunAndTheModelGetsTheReason() {
        ForkedJvm.Result r = run("block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)")
                .contains("Instead: answer without calling sendEmail");
    }

    @Test
    void blockWithExceptionTheHostGetsATracegateViolation() {
        ForkedJvm.Result r = run("block=sendEmail,onBlock=throw", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void redirectRunsTheNamedToolInstead() {
        ForkedJvm.Result r = run("redirect=sendEmail:draftEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com")
                .contains("draft saved for bob@example.com");
    }

    /**
     * A redirect to a tool the AI service lacks (a typo in redirect-to) is a block of the call (e4a5516); the text the
     * model gets names the missing target and no longer passes on the contract's next, which sends the model to it.
     */
    @Test
    void aRedirectToAMissingToolTellsTheModelWhatCanWorkNotToCallTheMissingTool(@TempDir Path dir) throws IOException {
        Path library = Files.writeString(dir.resolve("mail.yaml"), String.join("\n",
                "library: mail",
                "contracts:",
                "  - id: mail.drafts-only",
                "    guarantee: G !call(sendEmail)",
                "    strategy: redirect",
                "    redirect-to: drftEmail",
                "    message: E-mail is drafted, not sent.",
                "    next: Call drftEmail with the same arguments instead.", ""));
        // its audit log in the test's directory: without audit.path it is tracegate-audit.jsonl in the working directory, it/ of the checkout
        ForkedJvm.Result r = run("libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl"), "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran").doesNotContain("TOOL draftEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract mail.drafts-only)")
                .contains("It could not be redirected to drftEmail: drftEmail is not a tool of this call site")
                .contains("Instead: Do not call sendEmail again: it is refused, and drftEmail, which would run in its place, is not available here.")
                .doesNotContain("Call drftEmail with the same arguments instead");
        assertThat(dir.resolve("audit.jsonl")).as(r.toString()).exists();
    }

    /**
     * trial24 (01): a redirect target that takes none of the call's arguments ran with every parameter null (send_email in
     * place of refund). With the real AI service's tool table: lookupCustomer(name) as the target of sendEmail(to, body)
     * does not run; the call is blocked with a reason that names the target's parameters, and a WARN says so.
     */
    @Test
    void aRedirectToAToolThatTakesNoneOfTheArgumentsIsABlockNotARunWithNulls(@TempDir Path dir) throws IOException {
        Path library = Files.writeString(dir.resolve("mail.yaml"), String.join("\n",
                "library: mail",
                "contracts:",
                "  - id: mail.no-send",
                "    guarantee: G !call(sendEmail)",
                "    strategy: redirect",
                "    redirect-to: lookupCustomer",
                "    message: E-mail is not sent from here.", ""));
        ForkedJvm.Result r = run("libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl"), "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran").doesNotContain("TOOL lookupCustomer ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract mail.no-send)")
                .contains("It could not be redirected to lookupCustomer: lookupCustomer takes none of sendEmail's arguments (")
                .contains("its parameters: name), so it would run with nulls")
                .contains("lookupCustomer, which would run in its place, cannot take this call's arguments.");
        assertThat(r.stderr()).as(r.toString())
                .contains("WARN contract mail.no-send redirects sendEmail to lookupCustomer, but lookupCustomer takes none of sendEmail's arguments");
    }

    /** The redirect target's result is a RETURN of the target, so a result contract on the target acts on what the model gets. */
    @Test
    void aRedirectTargetsResultIsItsReturnAndCanBeWithheld() {
        ForkedJvm.Result r = run("trace=true,redirect=sendEmail:draftEmail,suppress=draftEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: [withheld by tracegate: the result of draftEmail")
                .doesNotContain("draft saved for");
        assertThat(r.stderr()).as(r.toString())
                .contains("SUPPRESS langchain4j session=alice tool=draftEmail contract=rule.suppress")
                .doesNotContain("RETURN langchain4j session=alice tool=sendEmail");
    }

    /**
     * A tool that throws: by default LangChain4j hands the model an error result (an error RETURN); when the application's
     * error handler rethrows, the exception reaches the application unchanged and is still the tool's error RETURN.
     */
    @Test
    void aToolThatThrowsIsAnErrorReturnAlsoWhenTheApplicationsErrorHandlerRethrows() {
        ForkedJvm.Result handled = run(TRACED, "--memory-id=ann", "archive");
        assertThat(handled.stdout()).as(handled.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT archiveEmail: the archive service is offline");
        assertThat(handled.stderr()).as(handled.toString()).contains("RETURN langchain4j session=ann tool=archiveEmail -> KEEP");
        ForkedJvm.Result rethrown = run(TRACED, "--memory-id=amy", "archive-rethrow");
        assertThat(rethrown.stdout()).as(rethrown.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("EXCEPTION: java.lang.IllegalStateException: the archive service is offline")
                .doesNotContain("ANSWER:");
        // the rethrown exception is the tool's RETURN too (without the hook no RETURN line is printed); since 4f350a5 it
        // takes the ordinary result path, so its trace line is the same as the handled one's
        assertThat(rethrown.stderr()).as(rethrown.toString()).contains("RETURN langchain4j session=amy tool=archiveEmail -> KEEP");
    }

    @Test
    void suppressWithholdsTheToolResultFromTheModel() {
        ForkedJvm.Result r = run("suppress=lookupCustomer", "lookup");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL lookupCustomer ran name=Alice")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
    }

    @Test
    void suppressWithholdsAUserMessage() {
        ForkedJvm.Result r = run("suppressUser=password", "email", "my password is hunter2, email it to bob");
        assertThat(r.stdout()).as(r.toString())
                .contains("MODEL SAW USER: [withheld by tracegate")
                .doesNotContain("hunter2");
    }

    @Test
    void redactRemovesTheArgumentFieldBeforeTheToolRuns() {
        ForkedJvm.Result r = run("redact=email", "ticket");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL createTicket ran title=printer broken email=null");
        assertThat(r.stderr()).contains("REDACT langchain4j session=alice tool=createTicket");
    }

    @Test
    void blockedModelOutputThrows() {
        ForkedJvm.Result r = run("blockOutput=secret code,onBlock=throw", "chat");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
    }

    @Test
    void shadowModeDecidesAndLogsButChangesNothing() {
        ForkedJvm.Result r = run("shadow=true,block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: email sent to bob@example.com");
        assertThat(r.stderr()).contains("SHADOW would BLOCK langchain4j session=alice tool=sendEmail contract=rule.block");
    }

    @Test
    void aLambdaToolExecutorIsSupervisedAtTheFrameworksDispatch() {
        ForkedJvm.Result r = run("block=weather", "lambda");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL weather ran")
                .contains("MODEL SAW TOOL RESULT weather: tracegate blocked the call to weather");
    }

    @Test
    void concurrentToolExecutionOnWorkerThreadsKeepsTheSessionAndCanRedirect() {
        ForkedJvm.Result r = run("trace=true,block=lookupCustomer,redirect=sendEmail:draftEmail", "parallel");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL lookupCustomer ran")
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: tracegate blocked the call to lookupCustomer")
                .contains("MODEL SAW TOOL RESULT sendEmail: draft saved for bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK langchain4j session=alice tool=lookupCustomer")
                .contains("REDIRECT langchain4j session=alice tool=sendEmail");
        ForkedJvm.Result plain = run(TRACED, "--memory-id=pat", "parallel");
        assertThat(plain.stdout()).as(plain.toString()).containsPattern("TOOL lookupCustomer ran name=Alice thread=(?!main\\b)\\S+");
    }

    @Test
    void anInternalErrorOfTheSupervisorFollowsTheFailurePolicyAndNeverReachesTheHostOtherwise() {
        ForkedJvm.Result closed = run("failOn=sendEmail", "email");
        assertThat(closed.stdout()).as(closed.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("EXCEPTION")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate could not check tool call sendEmail (internal error: IllegalStateException); refused because fail=closed");
        ForkedJvm.Result closedThrow = run("failOn=sendEmail,onBlock=throw", "email");
        assertThat(closedThrow.stdout()).as(closedThrow.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check tool call sendEmail");
        ForkedJvm.Result open = run("failOn=sendEmail,fail=open", "email");
        assertThat(open.stdout()).as(open.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .doesNotContain("EXCEPTION");
        assertThat(open.stderr()).contains("internal error at tool call sendEmail (fail=open: let through)");
    }

    @Test
    void theSameScenarioRunsOnJava25() {
        Assumptions.assumeTrue(ForkedJvm.java25Present(), "no Java 25 at " + ForkedJvm.JAVA_25);
        ForkedJvm.Result r = runOn(ForkedJvm.JAVA_25, "block=sendEmail", "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("JAVA 25")
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail");
        System.out.println("[it] LangChain4j block scenario ran on Java 25");
    }

    // ---- streaming AI services (TokenStream): the model streams chunks from its own thread ----

    private static final String STREAM_APP = "demoapp.langchain4j.LangChain4jStreamApp";

    private static ForkedJvm.Result stream(String options, String... args) {
        return streamed(ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), STREAM_APP, args));
    }

    /** The scenario's part of its batch's JVM (its args without the batch's {@code --no-exit}), checked as {@link #stream(String, String...)} checks a JVM. */
    private static ForkedJvm.Result stream(StreamBatch batch, String... args) {
        return streamed(batch.run(args));
    }

    private static ForkedJvm.Result streamed(ForkedJvm.Result r) {
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).doesNotContain("TIMEOUT");
        return r;
    }

    /**
     * The streaming scenarios under one option set in one JVM ({@link ScenarioBatch}), each in its own session (its
     * memory id; "default" for the model called directly): all but the last return from main ({@code --no-exit}) instead
     * of ending the JVM. The model called directly under {@code trace=true} keeps a JVM of its own, so that no line of
     * {@link #STREAM_TRACED}'s may name session default.
     */
    private record StreamBatch(ScenarioBatch batch, List<List<String>> scenarios) {
        static StreamBatch of(String options, List<List<String>> scenarios) {
            ScenarioBatch batch = new ScenarioBatch(STREAM_APP, () -> List.of(ForkedJvm.agent(options)), ForkedJvm::appClasspath);
            for (int i = 0; i < scenarios.size(); i++) {
                List<String> s = scenarios.get(i);
                batch.scenario(s.get(0).equals("direct") ? "default" : s.size() > 1 ? s.get(1) : "alice", args(scenarios, s));
            }
            return new StreamBatch(batch, scenarios);
        }

        private static String[] args(List<List<String>> scenarios, List<String> scenario) {
            List<String> args = new ArrayList<>();
            if (!scenario.equals(scenarios.get(scenarios.size() - 1))) args.add("--no-exit");
            args.addAll(scenario);
            return args.toArray(new String[0]);
        }

        ForkedJvm.Result run(String... args) {
            return batch.run(args(scenarios, List.of(args)));
        }
    }

    private static final StreamBatch STREAM_TRACED = StreamBatch.of("trace=true", List.of(List.of("chat", "carol"), List.of("email")));
    private static final StreamBatch STREAM_SECRET_BLOCKED = StreamBatch.of("blockOutput=secret code", List.of(List.of("chat"), List.of("direct")));
    private static final StreamBatch STREAM_SECRET_THROWN = StreamBatch.of("blockOutput=secret code,onBlock=throw", List.of(List.of("chat"), List.of("direct")));
    private static final StreamBatch STREAM_EMAIL_BLOCKED = StreamBatch.of("block=sendEmail", List.of(List.of("email"), List.of("email-direct", "bea")));
    private static final StreamBatch STREAM_EMAIL_THROWN = StreamBatch.of("block=sendEmail,onBlock=throw", List.of(List.of("email"), List.of("email-direct", "bea")));

    @Test
    void aStreamedAnswerIsOneAssistantEventOfTheChatMemoryIdOnceItIsComplete() {
        ForkedJvm.Result r = stream(STREAM_TRACED, "chat", "carol");
        assertThat(r.stdout()).as(r.toString())
                .contains("CHUNK: the secret \nCHUNK: code is \nCHUNK: 1234")
                .contains("COMPLETE: the secret code is 1234")
                .contains("MEMORY LAST AI: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER langchain4j session=carol -> KEEP")
                .contains("ASSISTANT langchain4j-stream session=carol -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void aViolatingStreamedAnswerIsReplacedInTheCompleteResponseAndTheMemoryAfterItsChunksWentOut() {
        ForkedJvm.Result r = stream(STREAM_SECRET_BLOCKED, "chat");
        assertThat(r.stdout()).as(r.toString())
                // what was streamed cannot be recalled ...
                .contains("CHUNK: the secret \nCHUNK: code is \nCHUNK: 1234")
                // ... but the complete response and what the conversation remembers are the notice
                .contains("COMPLETE: tracegate blocked model output (contract rule.blockOutput)")
                .contains("MEMORY LAST AI: tracegate blocked model output (contract rule.blockOutput)")
                .doesNotContain("COMPLETE: the secret")
                .doesNotContain("MEMORY LAST AI: the secret");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT langchain4j-stream session=alice contract=rule.blockOutput");
    }

    @Test
    void aViolatingStreamedAnswerEndsTheStreamWithTheViolationWhenBlocksThrow() {
        ForkedJvm.Result r = stream(STREAM_SECRET_THROWN, "chat");
        assertThat(r.stdout()).as(r.toString())
                .contains("CHUNK: 1234")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)")
                .doesNotContain("COMPLETE:")
                .contains("MEMORY LAST AI: null");
    }

    @Test
    void toolCallsRequestedInAStreamStaySupervisedAndTheFinalAnswerIsChecked() {
        ForkedJvm.Result passed = stream(STREAM_TRACED, "email");
        assertThat(passed.stdout()).as(passed.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("COMPLETE: done: email sent to bob@example.com");
        assertThat(passed.stderr()).as(passed.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("RETURN langchain4j session=alice tool=sendEmail -> KEEP")
                // the response that only asked for the tool has no text: one ASSISTANT event, the final answer
                .contains("ASSISTANT langchain4j-stream session=alice -> KEEP");
        assertThat(count(passed.stderr(), "ASSISTANT ")).as(passed.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = stream(STREAM_EMAIL_BLOCKED, "email");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)")
                .contains("COMPLETE: done: tracegate blocked the call to sendEmail");
        ForkedJvm.Result thrown = stream(STREAM_EMAIL_THROWN, "email");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("COMPLETE:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    /**
     * trial12 stream-tool-block-exception-never-reaches-handler: a provider that calls the AI service's handler itself
     * (not through LangChain4j's handler utilities) got the violation of a blocked tool thrown onto its thread, and the
     * TokenStream heard neither onError nor onCompleteResponse. The violation now ends the stream through onError, as a
     * blocked streamed answer does.
     */
    @Test
    void aToolBlockedInAStreamEndsTheStreamThroughOnErrorAlsoWhenTheProviderCallsTheHandlerItself() {
        ForkedJvm.Result thrown = stream(STREAM_EMAIL_THROWN, "email-direct", "bea");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("COMPLETE:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
        assertThat(thrown.stderr()).as(thrown.toString()).doesNotContain("Exception in thread \"provider-stream\"");
        ForkedJvm.Result substituted = stream(STREAM_EMAIL_BLOCKED, "email-direct", "bea");
        assertThat(substituted.stdout()).as(substituted.toString())
                .contains("COMPLETE: done: tracegate blocked the call to sendEmail");
    }

    @Test
    void aStreamingAiServiceWithholdsAUserMessageBeforeTheModelSeesIt() {
        ForkedJvm.Result r = stream("suppressUser=password", "chat", "erin", "my password is hunter2");
        assertThat(r.stdout()).as(r.toString())
                .contains("MODEL SAW USER: [withheld by tracegate")
                .doesNotContain("hunter2");
        assertThat(r.stderr()).as(r.toString()).contains("SUPPRESS USER langchain4j session=erin");
    }

    @Test
    void aStreamingModelCalledDirectlyIsCheckedWhenItsResponseIsComplete() {
        ForkedJvm.Result passed = stream("trace=true", "direct");
        assertThat(passed.stdout()).as(passed.toString()).contains("COMPLETE: the secret code is 1234");
        assertThat(passed.stderr()).as(passed.toString())
                .contains("USER langchain4j session=default -> KEEP")
                .contains("ASSISTANT langchain4j-stream session=default -> KEEP");
        assertThat(count(passed.stderr(), "ASSISTANT ")).as(passed.toString()).isEqualTo(1);
        ForkedJvm.Result substituted = stream(STREAM_SECRET_BLOCKED, "direct");
        assertThat(substituted.stdout()).as(substituted.toString())
                .contains("CHUNK: 1234")
                .contains("COMPLETE: tracegate blocked model output (contract rule.blockOutput)");
        ForkedJvm.Result thrown = stream(STREAM_SECRET_THROWN, "direct");
        assertThat(thrown.stdout()).as(thrown.toString())
                .contains("CHUNK: 1234")
                .doesNotContain("COMPLETE:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aStreamedAnswerIsAuditedUnderAContractLibrary(@TempDir Path dir) throws IOException {
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
        ForkedJvm.Result r = stream("libraries=" + library + ",audit.path=" + audit + ",audit.personal-data=clear", "chat", "dave");
        assertThat(r.stdout()).as(r.toString())
                .contains("CHUNK: 1234")
                .contains("COMPLETE: [tracegate] The answer disclosed a secret code. Tell the user it cannot be shared.")
                .contains("MEMORY LAST AI: [tracegate] The answer disclosed a secret code.");
        List<JsonNode> records = new ArrayList<>();
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(audit)) {
            JsonNode node = json.readTree(line);
            if ("assistant".equals(node.path("kind").asText())) {
                records.add(node);
            }
        }
        assertThat(records).as(Files.readString(audit)).hasSize(1);
        JsonNode record = records.get(0);
        assertThat(record.path("session").asText()).isEqualTo("dave");
        assertThat(record.path("decision").asText()).isEqualTo("block");
        // the partial responses were shown before the check, the complete response is the notice: the record says so (trial19 07)
        assertThat(record.path("streamed").asText()).isEqualTo("shown-then-notice");
        assertThat(record.path("text").asText()).isEqualTo("the secret code is 1234");
        assertThat(record.path("fired").toString()).contains("out.no-secret");
        ForkedJvm.Result verify = ForkedJvm.exec(List.of(ForkedJvm.java(), "-jar", ForkedJvm.agentJar().toString(), "audit", "verify", audit.toString()));
        assertThat(verify.exit()).as(verify.toString()).isZero();
    }

    // ---- langchain4j-mcp: MCP tools inside an AI service through LangChain4j's own MCP client ----

    private static final String MCP_APP = "demoapp.langchain4j.LangChain4jMcpApp";

    /** Runs the LangChain4j MCP client under the agent against an MCP SDK server subprocess without one, whose lines go to {@code serverLog}. */
    private static ForkedJvm.Result runMcp(String options, Path serverLog, String mode, String scenario) {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), MCP_APP,
                mcpArgs(serverLog, mode, scenario));
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static String[] mcpArgs(Path serverLog, String mode, String scenario) {
        String cp = ForkedJvm.appClasspath();
        return new String[] {mode, scenario, ForkedJvm.java(), "-Ddemo.serverLog=" + serverLog, "-cp", cp, "demoapp.mcp.McpApp", "server"};
    }

    /** The server logs of {@link #mcpBlocked}'s scenarios, one server each: {@code service.log}, {@code direct.log}. */
    @TempDir
    static Path mcpBlockedLogs;
    private static ScenarioBatch mcpBlocked;

    /**
     * The client's part of one JVM under {@code block=sendEmail} ({@link ScenarioBatch}) that runs the AI service (session
     * alice) and then the direct client call (session default), each against a server of its own that logs to
     * {@code mcpBlockedLogs/MODE.log}; the first returns from main ({@code --no-exit}), the last ends the JVM as the app does.
     * The two under {@code trace=true} keep a JVM each: the AI service's test counts every CALL and RETURN line of its JVM,
     * and a nested hook's line in session default would be the direct call's part of a batch.
     */
    private static synchronized ForkedJvm.Result runMcpBlocked(String mode) {
        if (mcpBlocked == null) {
            mcpBlocked = new ScenarioBatch(MCP_APP, () -> List.of(ForkedJvm.agent("block=sendEmail")), ForkedJvm::appClasspath)
                    .scenario("alice", mcpBlockedArgs("service"))
                    .scenario("default", mcpBlockedArgs("direct"));
        }
        ForkedJvm.Result r = mcpBlocked.run(mcpBlockedArgs(mode));
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private static String[] mcpBlockedArgs(String mode) {
        List<String> args = new ArrayList<>();
        if (mode.equals("service")) args.add("--no-exit");
        args.addAll(List.of(mcpArgs(mcpBlockedLogs.resolve(mode + ".log"), mode, "email")));
        return args.toArray(new String[0]);
    }

    private static int count(String text, String needle) {
        return ForkedJvm.count(text, needle);
    }

    @Test
    void mcpToolsInAnAiServiceAreSeenOnceWithTheChatMemoryIdAsSession(@TempDir Path dir) throws IOException {
        Path server = dir.resolve("server.log");
        ForkedJvm.Result r = runMcp("trace=true", server, "service", "email");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL SAW TOOL RESULT sendEmail: email sent to bob@example.com");
        assertThat(Files.readString(server)).contains("TOOL sendEmail ran to=bob@example.com");
        // the choke point supervises it; the MCP client hook below it is nested (and has the same tool-call id)
        assertThat(count(r.stderr(), "CALL ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail args={\"to\":\"bob@example.com\"")
                .doesNotContain("CALL langchain4j-mcp");
    }

    @Test
    void anMcpToolInAnAiServiceIsBlockedBeforeTheRequestLeaves() throws IOException {
        ForkedJvm.Result r = runMcpBlocked("service");
        Path server = mcpBlockedLogs.resolve("service.log");
        assertThat(r.stdout()).as(r.toString())
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(Files.readString(server)).contains("MCP SDK").doesNotContain("TOOL sendEmail ran");
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK langchain4j session=alice tool=sendEmail");
    }

    @Test
    void aDirectMcpClientCallOutsideAnAiServiceIsSupervisedToo(@TempDir Path dir) throws IOException {
        Path passed = dir.resolve("passed.log");
        ForkedJvm.Result r = runMcp("trace=true", passed, "direct", "email");
        assertThat(r.stdout()).as(r.toString()).contains("DIRECT RESULT isError=false: email sent to carol@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j-mcp session=default tool=sendEmail args={\"to\":\"carol@example.com\"")
                .contains("RETURN langchain4j-mcp session=default tool=sendEmail");
        ForkedJvm.Result b = runMcpBlocked("direct");
        Path blocked = mcpBlockedLogs.resolve("direct.log");
        assertThat(b.stdout()).as(b.toString()).contains("DIRECT RESULT isError=true: tracegate blocked the call to sendEmail");
        assertThat(Files.readString(blocked)).contains("MCP SDK").doesNotContain("TOOL sendEmail ran");
    }

    @Test
    void aDirectMcpClientCallIsRedirectedToAToolOfTheSameServerOrRedacted(@TempDir Path dir) throws IOException {
        Path redirected = dir.resolve("redirected.log");
        ForkedJvm.Result r = runMcp("redirect=sendEmail:draftEmail", redirected, "direct", "email");
        assertThat(r.stdout()).as(r.toString()).contains("DIRECT RESULT isError=false: draft saved for carol@example.com");
        assertThat(Files.readString(redirected)).contains("TOOL draftEmail ran to=carol@example.com").doesNotContain("TOOL sendEmail ran");
        Path redacted = dir.resolve("redacted.log");
        ForkedJvm.Result d = runMcp("redact=body", redacted, "direct", "email");
        assertThat(d.stdout()).as(d.toString()).contains("DIRECT RESULT isError=false: email sent to carol@example.com");
        assertThat(Files.readString(redacted)).contains("TOOL sendEmail ran to=carol@example.com body=null");
    }
}
