package dev.tracegate.it;

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
 * The LangChain4j apps (compiled against 1.19.0) on the resolved closure of LangChain4j 1.11.0 with langchain4j-mcp
 * 1.11.0-beta19 (target/langchain4j-1.11.0, no 1.19.0 jar), under the built agent jar in forked JVMs. Each run logs
 * the JVM's class loading to a file, and the test checks there that the framework classes came from the 1.11.0 jars.
 */
class LangChain4jLinesTest {

    private static final String APP = "demoapp.langchain4j.LangChain4jApp";
    private static final String STREAM_APP = "demoapp.langchain4j.LangChain4jStreamApp";
    private static final String MCP_APP = "demoapp.langchain4j.LangChain4jMcpApp";
    private static final String IMMEDIATE_APP = "demoapp.langchain4j.ImmediateToolApp";

    @TempDir
    Path dir;

    /** The app's classes and the jars the build copied to target/langchain4j-1.11.0. */
    static String langChain4j111Classpath() {
        return ForkedJvm.lineClasspath("langchain4j-1.11.0");
    }

    /** Runs {@code main} on the 1.11.0 class path under the agent; checks that it exited normally on the 1.11.0 jars. */
    private ForkedJvm.Result run111(String options, String main, String... args) {
        Path loaded;
        try {
            loaded = Files.createTempFile(dir, "class-load", ".log");
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        List<String> jvm = List.of(ForkedJvm.agent(options), "-Xlog:class+load=info:file=" + loaded);
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), jvm, langChain4j111Classpath(), main, args);
        assertThat(r.exit()).as(r.toString()).isZero();
        String log;
        try {
            log = Files.readString(loaded);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        // every LangChain4j class the run loaded from a file came from a 1.11.0 jar (core, AI services, langchain4j-mcp
        // 1.11.0-beta19); lambdas name their host class as source
        Matcher loadedClass = Pattern.compile("(dev\\.langchain4j\\.\\S+) source: (file:\\S+|jar:\\S+)").matcher(log);
        List<String> fromOtherJars = new ArrayList<>();
        int framework = 0;
        while (loadedClass.find()) {
            framework++;
            if (!loadedClass.group(2).matches(".*/langchain4j(-core|-mcp)?-1\\.11\\.0(-beta19)?\\.jar")) {
                fromOtherJars.add(loadedClass.group(1) + " from " + loadedClass.group(2));
            }
        }
        assertThat(framework).as("LangChain4j classes loaded by " + r.command()).isGreaterThan(20);
        assertThat(fromOtherJars).as("LangChain4j classes not from the 1.11.0 jars").isEmpty();
        return r;
    }

    private static int count(String text, String needle) {
        return ForkedJvm.count(text, needle);
    }

    @Test
    void everyCallAndMessageIsSeenOnceWithTheChatMemoryIdAsSession() {
        ForkedJvm.Result r = run111("trace=true", APP, "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT sendEmail: email sent to bob@example.com")
                .contains("ANSWER: done: email sent to bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail args={\"to\":\"bob@example.com\"")
                .contains("RETURN langchain4j session=alice tool=sendEmail -> KEEP")
                // 1.11.0's prepareSystemMessage takes the memory id, not the invocation context: the model events still know it
                .contains("USER langchain4j session=alice -> KEEP")
                .contains("ASSISTANT langchain4j session=alice -> KEEP")
                .doesNotContain("session=default")
                .doesNotContain("instrumentation langchain4j matched nothing");
        assertThat(count(r.stderr(), "CALL langchain4j ")).as(r.toString()).isEqualTo(1);
        assertThat(count(r.stderr(), "RETURN langchain4j ")).as(r.toString()).isEqualTo(1);
    }

    @Test
    void blockWithSubstitutionAndWithException() {
        ForkedJvm.Result substituted = run111("block=sendEmail", APP, "email");
        assertThat(substituted.stdout()).as(substituted.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        ForkedJvm.Result thrown = run111("block=sendEmail,onBlock=throw", APP, "email");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void aToolThatThrowsIsAnErrorReturnAlsoWhenTheApplicationsErrorHandlerRethrows() {
        ForkedJvm.Result handled = run111("trace=true", APP, "archive");
        assertThat(handled.stdout()).as(handled.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT archiveEmail: the archive service is offline");
        assertThat(handled.stderr()).as(handled.toString()).contains("RETURN langchain4j session=alice tool=archiveEmail -> KEEP");
        ForkedJvm.Result rethrown = run111("trace=true", APP, "archive-rethrow");
        assertThat(rethrown.stdout()).as(rethrown.toString())
                .contains("TOOL archiveEmail ran to=bob@example.com")
                .contains("EXCEPTION: java.lang.IllegalStateException: the archive service is offline")
                .doesNotContain("ANSWER:");
        // the call ended in the exception, with no result: only the advice's thrown path reports this RETURN
        assertThat(rethrown.stderr()).as(rethrown.toString()).contains("RETURN langchain4j session=alice tool=archiveEmail");
    }

    @Test
    void redirectRedactAndSuppressChangeWhatRunsAndWhatTheModelSees() {
        ForkedJvm.Result redirected = run111("redirect=sendEmail:draftEmail", APP, "email");
        assertThat(redirected.stdout()).as(redirected.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("TOOL draftEmail ran to=bob@example.com");
        ForkedJvm.Result redacted = run111("redact=email", APP, "ticket");
        assertThat(redacted.stdout()).as(redacted.toString()).contains("TOOL createTicket ran title=printer broken email=null");
        ForkedJvm.Result suppressed = run111("suppressUser=password", APP, "email", "my password is hunter2, email it to bob");
        assertThat(suppressed.stdout()).as(suppressed.toString())
                .contains("MODEL SAW USER: [withheld by tracegate")
                .doesNotContain("hunter2");
    }

    @Test
    void blockedModelOutputIsReplacedOrThrown() {
        // the agent builds the replacement with AiMessage#withText: 1.11.0 has no AiMessage#toBuilder
        ForkedJvm.Result substituted = run111("blockOutput=secret code", APP, "chat");
        assertThat(substituted.stdout()).as(substituted.toString())
                .contains("ANSWER: tracegate blocked model output (contract rule.blockOutput)")
                .doesNotContain("1234");
        assertThat(substituted.stderr()).as(substituted.toString())
                .contains("BLOCK ASSISTANT langchain4j session=alice contract=rule.blockOutput")
                .doesNotContain("NoSuchMethodError");
        ForkedJvm.Result thrown = run111("blockOutput=secret code,onBlock=throw", APP, "chat");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("ANSWER:")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
    }

    @Test
    void concurrentToolExecutionKeepsTheSession() {
        ForkedJvm.Result r = run111("trace=true,block=lookupCustomer", APP, "parallel");
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL lookupCustomer ran")
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("MODEL SAW TOOL RESULT lookupCustomer: tracegate blocked the call to lookupCustomer");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK langchain4j session=alice tool=lookupCustomer")
                .contains("CALL langchain4j session=alice tool=sendEmail");
    }

    @Test
    void aStreamedAnswerIsOneAssistantEventOfTheChatMemoryIdAndCanBeReplaced() {
        ForkedJvm.Result r = run111("trace=true", STREAM_APP, "chat", "carol");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("TIMEOUT").contains("COMPLETE: the secret code is 1234");
        assertThat(r.stderr()).as(r.toString())
                .contains("USER langchain4j session=carol -> KEEP")
                .contains("ASSISTANT langchain4j-stream session=carol -> KEEP")
                .doesNotContain("session=default");
        assertThat(count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        ForkedJvm.Result blocked = run111("blockOutput=secret code", STREAM_APP, "chat");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TIMEOUT")
                .contains("COMPLETE: tracegate blocked model output (contract rule.blockOutput)")
                .contains("MEMORY LAST AI: tracegate blocked model output (contract rule.blockOutput)");
    }

    @Test
    void aToolRequestedInAStreamIsSupervisedInTheSession() {
        ForkedJvm.Result r = run111("trace=true", STREAM_APP, "email");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob@example.com")
                .contains("COMPLETE: done: email sent to bob@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail")
                .contains("USER langchain4j session=alice -> KEEP")
                .contains("ASSISTANT langchain4j-stream session=alice -> KEEP");
        ForkedJvm.Result blocked = run111("block=sendEmail", STREAM_APP, "email");
        assertThat(blocked.stdout()).as(blocked.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("COMPLETE: done: tracegate blocked the call to sendEmail");
    }

    @Test
    void anImmediateToolsResultIsCheckedAsTheTurnsAnswer() {
        // 1.11.0 has only the loop overload that takes a boolean: the answer the application reads is checked there too
        ForkedJvm.Result r = run111("trace=true,blockOutput=SECRET", IMMEDIATE_APP, "result");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL orderStatus ran id=7")
                .contains("TOOL RESULT orderStatus: tracegate blocked model output (contract rule.blockOutput)")
                .doesNotContain("SECRET-TOKEN-42")
                .doesNotContain("MODEL SAW TOOL RESULT");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK ASSISTANT langchain4j session=alice contract=rule.blockOutput")
                .doesNotContain("NoSuchMethodError")
                .doesNotContain("but none of the methods it reads");
        ForkedJvm.Result thrown = run111("blockOutput=SECRET,onBlock=throw", IMMEDIATE_APP, "result");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("TOOL RESULT")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
    }

    @Test
    void aStreamedImmediateToolsResultIsCheckedBeforeOnToolExecutedGetsIt() {
        // 1.11.0's streaming handler has no tool context: the ToolService says which tools are IMMEDIATE
        ForkedJvm.Result r = run111("trace=true,blockOutput=SECRET", IMMEDIATE_APP, "stream");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL orderStatus ran id=7")
                .contains("STREAM TOOL RESULT orderStatus: tracegate blocked model output (contract rule.blockOutput)")
                .contains("STREAM COMPLETE: text=null tool requests=1")
                .doesNotContain("STREAM TOOL RESULT orderStatus: order 7")
                .doesNotContain("MODEL SAW TOOL RESULT");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK ASSISTANT langchain4j-stream session=alice contract=rule.blockOutput")
                .doesNotContain("NoSuchMethodError")
                .doesNotContain("but none of the methods it reads");
        ForkedJvm.Result thrown = run111("blockOutput=SECRET,onBlock=throw", IMMEDIATE_APP, "stream-concurrent");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("STREAM TOOL RESULT")
                .doesNotContain("STREAM COMPLETE")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
    }

    @Test
    void theToolCallbacksGetWhatTheImmediateAnswerCheckLeaves() {
        // afterToolExecution(...) and a ToolExecutedEvent listener, blocking (also a ToolProvider's immediate tool) and
        // streamed (1.11.0's event has text only)
        String notice = "tracegate blocked model output (contract rule.blockOutput): it contains a forbidden word";
        for (String scenario : List.of("result+callbacks", "provider+callbacks", "stream+callbacks-only", "stream-concurrent+callbacks")) {
            ForkedJvm.Result r = run111("trace=true,blockOutput=SECRET", IMMEDIATE_APP, scenario);
            assertThat(r.stdout()).as(r.toString())
                    .contains("TOOL orderStatus ran id=7")
                    .contains("AFTER TOOL RESULT orderStatus: " + notice)
                    .doesNotContain("AFTER TOOL RESULT orderStatus: order 7")
                    .contains("EVENT TOOL RESULT orderStatus: " + notice)
                    .doesNotContain("MODEL SAW TOOL RESULT");
            assertThat(r.stdout().lines().filter(l -> !l.startsWith("MEMORY ")).toList()).as(r.toString())
                    .noneMatch(l -> l.contains("SECRET-TOKEN-42"));
            assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
            assertThat(r.stderr()).as(r.toString()).doesNotContain("NoSuchMethodError").doesNotContain("LinkageError");
        }
        ForkedJvm.Result thrown = run111("blockOutput=SECRET,onBlock=throw", IMMEDIATE_APP, "result+callbacks");
        assertThat(thrown.stdout()).as(thrown.toString())
                .doesNotContain("AFTER TOOL RESULT")
                .doesNotContain("EVENT TOOL RESULT")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked model output");
    }

    // ---- langchain4j-mcp 1.11.0-beta19: the client on the 1.11.0 class path, the MCP SDK server on the app's own ----

    private ForkedJvm.Result runMcp(String options, Path serverLog, String mode) {
        ForkedJvm.Result r = run111(options, MCP_APP, mode, "email", ForkedJvm.java(), "-Ddemo.serverLog=" + serverLog,
                "-cp", ForkedJvm.appClasspath(), "demoapp.mcp.McpApp", "server");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("EXCEPTION");
        return r;
    }

    @Test
    void anMcpToolInAnAiServiceIsSeenOnceInTheSessionAndCanBeBlocked() throws IOException {
        Path passed = dir.resolve("passed.log");
        ForkedJvm.Result r = runMcp("trace=true", passed, "service");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL SAW TOOL RESULT sendEmail: email sent to bob@example.com");
        assertThat(Files.readString(passed)).contains("TOOL sendEmail ran to=bob@example.com");
        assertThat(count(r.stderr(), "CALL ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j session=alice tool=sendEmail args={\"to\":\"bob@example.com\"")
                .doesNotContain("CALL langchain4j-mcp");
        Path blocked = dir.resolve("blocked.log");
        ForkedJvm.Result b = runMcp("block=sendEmail", blocked, "service");
        assertThat(b.stdout()).as(b.toString())
                .contains("MODEL SAW TOOL RESULT sendEmail: tracegate blocked the call to sendEmail (contract rule.block)");
        assertThat(Files.readString(blocked)).contains("MCP SDK").doesNotContain("TOOL sendEmail ran");
    }

    @Test
    void aDirectMcpClientCallIsSupervised() throws IOException {
        Path passed = dir.resolve("direct.log");
        ForkedJvm.Result r = runMcp("trace=true", passed, "direct");
        assertThat(r.stdout()).as(r.toString()).contains("DIRECT RESULT isError=false: email sent to carol@example.com");
        assertThat(r.stderr()).as(r.toString())
                .contains("CALL langchain4j-mcp session=default tool=sendEmail args={\"to\":\"carol@example.com\"")
                .contains("RETURN langchain4j-mcp session=default tool=sendEmail");
        Path blocked = dir.resolve("direct-blocked.log");
        ForkedJvm.Result b = runMcp("block=sendEmail", blocked, "direct");
        assertThat(b.stdout()).as(b.toString()).contains("DIRECT RESULT isError=true: tracegate blocked the call to sendEmail");
        assertThat(Files.readString(blocked)).contains("MCP SDK").doesNotContain("TOOL sendEmail ran");
    }
}
