package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A LangChain4j tool declared {@code @Tool(returnBehavior = ReturnBehavior.IMMEDIATE)} ends the turn with its result and
 * no model round: what the application then gets ({@code Result.toolExecutions()}, or on 1.19.0 the method's own value)
 * is the conversation's answer, checked as an ASSISTANT event after the tool's RETURN (trial24). Real LangChain4j 1.19.0
 * in forked JVMs under the built agent jar; the app never imports tracegate (1.11.0: LangChain4jLinesTest).
 */
class LangChain4jImmediateToolTest {

    private static final String APP = "demoapp.langchain4j.ImmediateToolApp";
    private static final String SECRET = "SECRET-TOKEN-42";
    private static final String NOTICE = "tracegate blocked model output (contract rule.blockOutput): it contains a forbidden word";

    private static ForkedJvm.Result run(String options, String... args) {
        return checked(ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent(options)), ForkedJvm.appClasspath(), APP, args));
    }

    /** The scenario's part of its batch's JVM ({@link ScenarioBatch}), checked as {@link #run(String, String...)} checks a JVM. */
    private static ForkedJvm.Result run(ScenarioBatch batch, String... args) {
        return checked(batch.run(args));
    }

    private static ForkedJvm.Result checked(ForkedJvm.Result r) {
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.stdout()).as(r.toString()).doesNotContain("MODEL SAW TOOL RESULT");   // IMMEDIATE: no model round
        return r;
    }

    private static ScenarioBatch batch(String options) {
        return new ScenarioBatch(APP, () -> List.of(ForkedJvm.agent(options)), ForkedJvm::appClasspath);
    }

    /*
     * The scenarios under the same agent options share a JVM, each in a conversation of its own (ScenarioBatch): the memory
     * id the app is given, else its default "alice"; two scenarios with the same conversation go to different batches. A
     * streamed scenario ends the JVM when it is done (System.exit), so it comes last, one per batch. The exception-style
     * scenarios all run in "alice" and keep a JVM each.
     */
    private static final ScenarioBatch BLOCKED = batch("trace=true,blockOutput=SECRET")
            .scenario("alice", "result", "alice")
            .scenario("carol", "after-lookup", "carol")
            .scenario("gina", "result+callbacks", "gina")
            .scenario("jane", "provider+callbacks", "jane")
            .scenario("dave", "stream", "dave");

    /** The same options, for the scenarios whose conversation is one of {@link #BLOCKED}'s. */
    private static final ScenarioBatch BLOCKED_AGAIN = batch("trace=true,blockOutput=SECRET")
            .scenario("alice", "object")
            .scenario("carol", "two", "carol")
            .scenario("ivan", "stream+callbacks-only", "ivan");

    /** A third streamed scenario under these options, which two tests read. */
    private static final ScenarioBatch STREAM_CALLBACKS = batch("trace=true,blockOutput=SECRET")
            .scenario("ivan", "stream+callbacks", "ivan");

    private static final ScenarioBatch PASSING = batch("trace=true")
            .scenario("bob", "result", "bob")
            .scenario("alice", "object")
            .scenario("hank", "result+callbacks", "hank")
            .scenario("erin", "stream", "erin");

    private static String line(ForkedJvm.Result r, String prefix) {
        return r.stdout().lines().filter(l -> l.startsWith(prefix)).findFirst().orElse("(no " + prefix.strip() + ")");
    }

    @Test
    void anImmediateToolsResultIsTheTurnsAnswerAndAnAnswerContractReplacesIt() {
        ForkedJvm.Result r = run(BLOCKED, "result", "alice");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL orderStatus ran id=7").contains("CONTENT: null");
        // what the application reads, as text and as the tool's returned object, is the notice
        assertThat(line(r, "TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "TOOL OBJECT orderStatus: ")).as(r.toString()).isEqualTo("TOOL OBJECT orderStatus: " + NOTICE);
        assertThat(r.stdout()).as(r.toString()).doesNotContain(SECRET);
        String err = r.stderr();
        // the tool's RETURN is not an answer: the same text passes there, then the answer made of it is blocked
        assertThat(err).as(r.toString())
                .contains("RETURN langchain4j session=alice tool=orderStatus -> KEEP")
                .contains("BLOCK ASSISTANT langchain4j session=alice contract=rule.blockOutput");
        assertThat(err.indexOf("RETURN langchain4j session=alice tool=orderStatus")).as(r.toString())
                .isLessThan(err.indexOf("BLOCK ASSISTANT langchain4j session=alice"));
        assertThat(ForkedJvm.count(err, "ASSISTANT ")).as(r.toString()).isEqualTo(1);

        ForkedJvm.Result passing = run(PASSING, "result", "bob");
        assertThat(line(passing, "TOOL RESULT orderStatus: ")).as(passing.toString())
                .isEqualTo("TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000");
        assertThat(passing.stderr()).as(passing.toString()).contains("ASSISTANT langchain4j session=bob -> KEEP");
    }

    /**
     * Result.toolExecutions() holds the executions of every round of the turn; only the last round's immediate results
     * are its answer. Before (review17), an ordinary tool's result of an earlier round (read by the model) was checked
     * as a second ASSISTANT event: an answer contract replaced it in toolExecutions() with the notice, and under
     * block.style: exception the AI service threw although its answer was clean.
     */
    @Test
    void anEarlierRoundsToolResultInTheExecutionsIsNoAnswer() {
        ForkedJvm.Result r = run(BLOCKED, "after-lookup", "carol");
        assertThat(r.stdout()).as(r.toString()).contains("MODEL SAW LOOKUP RESULT").contains("TOOL trackingNote ran id=7");
        assertThat(line(r, "TOOL RESULT customerNote: ")).as(r.toString())
                .isEqualTo("TOOL RESULT customerNote: customer note on order 7: courier token SECRET-TOKEN-42");
        assertThat(line(r, "TOOL RESULT trackingNote: ")).as(r.toString())
                .isEqualTo("TOOL RESULT trackingNote: order 7 arrives on Friday");
        assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString()).contains("ASSISTANT langchain4j session=carol -> KEEP")
                .doesNotContain("BLOCK ASSISTANT");

        ForkedJvm.Result thrown = run("blockOutput=SECRET,onBlock=throw", "after-lookup", "dave");
        assertThat(thrown.stdout()).as(thrown.toString()).doesNotContain("EXCEPTION:")
                .contains("TOOL RESULT trackingNote: order 7 arrives on Friday");
    }

    @Test
    void aBlockedImmediateResultUnderExceptionStyleThrowsToTheCaller() {
        ForkedJvm.Result r = run("blockOutput=SECRET,onBlock=throw", "result");
        assertThat(r.stdout()).as(r.toString())
                .contains("TOOL orderStatus ran id=7")
                .doesNotContain("CONTENT:")
                .doesNotContain(SECRET)
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE);
    }

    @Test
    void anImmediateResultIsMaskedInPlaceAlsoWhenItIsTheMethodsOwnValue(@TempDir Path dir) throws IOException {
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
        String options = "trace=true,libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl");
        ForkedJvm.Result viaResult = run(options, "result");
        assertThat(line(viaResult, "TOOL RESULT orderStatus: ")).as(viaResult.toString())
                .isEqualTo("TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to [redacted: iban]");
        assertThat(viaResult.stdout()).as(viaResult.toString()).doesNotContain("DE89370400440532013000");
        assertThat(viaResult.stderr()).as(viaResult.toString()).contains("REPLACE ASSISTANT langchain4j session=alice contract=out.no-iban");

        // 1.19.0 returns a text result as the String method's own value: that value is the masked one
        ForkedJvm.Result direct = run(options, "direct");
        assertThat(line(direct, "DIRECT: ")).as(direct.toString())
                .isEqualTo("DIRECT: order 7: shipped; courier token SECRET-TOKEN-42, refund to [redacted: iban]");
    }

    @Test
    void aReplacedResultOfAnotherTypeIsNullAsTheMethodsOwnValue() {
        // the notice cannot be an OrderInfo: the application gets null rather than the record that carried the secret
        ForkedJvm.Result r = run(BLOCKED_AGAIN, "object");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL orderInfo ran id=7").contains("DIRECT OBJECT: null").doesNotContain(SECRET);
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT langchain4j session=alice contract=rule.blockOutput");

        ForkedJvm.Result passing = run(PASSING, "object");
        assertThat(passing.stdout()).as(passing.toString()).contains("DIRECT OBJECT: OrderInfo[id=7, status=shipped, courierToken=SECRET-TOKEN-42]");
    }

    @Test
    void eachImmediateResultOfARoundIsAnAnswerOfItsOwn() {
        ForkedJvm.Result r = run(BLOCKED_AGAIN, "two", "carol");
        assertThat(line(r, "TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "TOOL RESULT trackingNote: ")).as(r.toString()).isEqualTo("TOOL RESULT trackingNote: order 7 arrives on Friday");
        assertThat(r.stderr()).as(r.toString())
                .contains("BLOCK ASSISTANT langchain4j session=carol contract=rule.blockOutput")
                .contains("ASSISTANT langchain4j session=carol -> KEEP");
        assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(2);
    }

    // ---- a streaming AI service (TokenStream): onToolExecuted is where the application gets an IMMEDIATE tool's result ----

    private static String streamed(ForkedJvm.Result r) {
        // what the stream's handlers received (the chat memory's own line is printed apart)
        return String.join("\n", r.stdout().lines().filter(l -> l.startsWith("STREAM ") || l.startsWith("CHUNK") || l.startsWith("EXCEPTION")).toList());
    }

    @Test
    void aStreamedImmediateResultIsCheckedBeforeOnToolExecutedGetsIt() {
        ForkedJvm.Result r = run(BLOCKED, "stream", "dave");
        assertThat(line(r, "STREAM TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("STREAM TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "STREAM TOOL OBJECT orderStatus: ")).as(r.toString()).isEqualTo("STREAM TOOL OBJECT orderStatus: " + NOTICE);
        // the stream completes as LangChain4j ends an immediate round: with the model's tool request, no text
        assertThat(r.stdout()).as(r.toString()).contains("STREAM COMPLETE: text=null tool requests=1").doesNotContain("TIMEOUT");
        assertThat(streamed(r)).as(r.toString()).doesNotContain(SECRET);
        // the chat memory keeps the result as its RETURN left it: the model's input of a next turn, as for any tool
        assertThat(line(r, "MEMORY TOOL RESULT: ")).as(r.toString()).contains(SECRET);
        String err = r.stderr();
        assertThat(err).as(r.toString())
                .contains("RETURN langchain4j session=dave tool=orderStatus -> KEEP")
                .contains("BLOCK ASSISTANT langchain4j-stream session=dave contract=rule.blockOutput");
        assertThat(err.indexOf("RETURN langchain4j session=dave tool=orderStatus")).as(r.toString())
                .isLessThan(err.indexOf("BLOCK ASSISTANT langchain4j-stream session=dave"));
        assertThat(ForkedJvm.count(err, "ASSISTANT ")).as(r.toString()).isEqualTo(1);

        ForkedJvm.Result passing = run(PASSING, "stream", "erin");
        assertThat(line(passing, "STREAM TOOL RESULT orderStatus: ")).as(passing.toString())
                .isEqualTo("STREAM TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000");
        assertThat(passing.stderr()).as(passing.toString()).contains("ASSISTANT langchain4j-stream session=erin -> KEEP");
    }

    @Test
    void aBlockedStreamedImmediateResultUnderExceptionStyleEndsTheStreamWithTheViolation() {
        // the tool runs on the provider's thread, or (concurrent) on an executor's: either way onError gets the violation
        for (String scenario : List.of("stream", "stream-concurrent")) {
            ForkedJvm.Result r = run("blockOutput=SECRET,onBlock=throw", scenario);
            assertThat(r.stdout()).as(r.toString())
                    .contains("TOOL orderStatus ran id=7")
                    .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE)
                    .doesNotContain("STREAM TOOL RESULT")
                    .doesNotContain("STREAM COMPLETE")
                    .doesNotContain("TIMEOUT");
            assertThat(streamed(r)).as(r.toString()).doesNotContain(SECRET);
        }
    }

    @Test
    void aStreamedImmediateResultIsMaskedInPlaceAlsoWithConcurrentTools(@TempDir Path dir) throws IOException {
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
        ForkedJvm.Result r = run("trace=true,libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl"), "stream-concurrent", "frank");
        assertThat(line(r, "STREAM TOOL RESULT orderStatus: ")).as(r.toString())
                .isEqualTo("STREAM TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to [redacted: iban]");
        assertThat(line(r, "STREAM TOOL OBJECT orderStatus: ")).as(r.toString())
                .isEqualTo("STREAM TOOL OBJECT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to [redacted: iban]");
        assertThat(streamed(r)).as(r.toString()).doesNotContain("DE89370400440532013000").contains("STREAM COMPLETE: text=null tool requests=1");
        assertThat(r.stderr()).as(r.toString()).contains("REPLACE ASSISTANT langchain4j-stream session=frank contract=out.no-iban");
    }

    // ---- the AI service's own tool callbacks: afterToolExecution(...) and a listener's ToolExecutedEvent ----

    @Test
    void theToolCallbacksOfABlockingServiceGetWhatTheAnswerCheckLeaves() {
        ForkedJvm.Result r = run(BLOCKED, "result+callbacks", "gina");
        // before: both got 'order 7: shipped; courier token SECRET-TOKEN-42, ...' as the tool ended, unchecked
        assertThat(line(r, "AFTER TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("AFTER TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "EVENT TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("EVENT TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("TOOL RESULT orderStatus: " + NOTICE);
        assertThat(r.stdout()).as(r.toString()).doesNotContain(SECRET);
        // one check, where the tool ended, whose decision the AI service's return takes over
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT langchain4j session=gina contract=rule.blockOutput");
        assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);

        ForkedJvm.Result passing = run(PASSING, "result+callbacks", "hank");
        assertThat(line(passing, "AFTER TOOL RESULT orderStatus: ")).as(passing.toString())
                .isEqualTo("AFTER TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000");
        assertThat(line(passing, "EVENT TOOL RESULT orderStatus: ")).as(passing.toString())
                .isEqualTo("EVENT TOOL RESULT orderStatus: order 7: shipped; courier token SECRET-TOKEN-42, refund to DE89370400440532013000");
        assertThat(ForkedJvm.count(passing.stderr(), "ASSISTANT ")).as(passing.toString()).isEqualTo(1);
    }

    @Test
    void theToolCallbacksGetTheMaskedTextOfARedactedAnswer(@TempDir Path dir) throws IOException {
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
        String options = "trace=true,libraries=" + library + ",audit.path=" + dir.resolve("audit.jsonl");
        String masked = "order 7: shipped; courier token SECRET-TOKEN-42, refund to [redacted: iban]";
        for (String scenario : List.of("result+callbacks", "stream-concurrent+callbacks")) {
            ForkedJvm.Result r = run(options, scenario);
            assertThat(line(r, "AFTER TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("AFTER TOOL RESULT orderStatus: " + masked);
            assertThat(line(r, "EVENT TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("EVENT TOOL RESULT orderStatus: " + masked);
            assertThat(r.stdout().lines().filter(l -> !l.startsWith("MEMORY ")).toList()).as(r.toString())
                    .noneMatch(l -> l.contains("DE89370400440532013000"));
            assertThat(ForkedJvm.count(r.stderr(), "REPLACE ASSISTANT ")).as(r.toString()).isEqualTo(1);
        }
    }

    @Test
    void theToolCallbacksOfAStreamGetWhatTheAnswerCheckLeavesAlsoWithoutOnToolExecuted() {
        for (ScenarioBatch batch : List.of(STREAM_CALLBACKS, BLOCKED_AGAIN)) {
            String scenario = batch == STREAM_CALLBACKS ? "stream+callbacks" : "stream+callbacks-only";
            ForkedJvm.Result r = run(batch, scenario, "ivan");
            assertThat(line(r, "AFTER TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("AFTER TOOL RESULT orderStatus: " + NOTICE);
            assertThat(line(r, "EVENT TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("EVENT TOOL RESULT orderStatus: " + NOTICE);
            assertThat(r.stdout()).as(r.toString()).contains("STREAM COMPLETE: text=null tool requests=1");
            assertThat(r.stdout().lines().filter(l -> !l.startsWith("MEMORY ")).toList()).as(r.toString())
                    .noneMatch(l -> l.contains(SECRET));
            assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT langchain4j-stream session=ivan contract=rule.blockOutput");
            assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
        }
        ForkedJvm.Result handler = run(STREAM_CALLBACKS, "stream+callbacks", "ivan");
        assertThat(line(handler, "STREAM TOOL RESULT orderStatus: ")).as(handler.toString()).isEqualTo("STREAM TOOL RESULT orderStatus: " + NOTICE);
    }

    @Test
    void aBlockedImmediateResultUnderExceptionStyleReachesNoCallback() {
        for (String scenario : List.of("result+callbacks", "stream+callbacks", "stream-concurrent+callbacks")) {
            ForkedJvm.Result r = run("blockOutput=SECRET,onBlock=throw", scenario);
            assertThat(r.stdout()).as(r.toString())
                    .contains("TOOL orderStatus ran id=7")
                    .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: " + NOTICE)
                    .doesNotContain("AFTER TOOL RESULT")
                    .doesNotContain("EVENT TOOL RESULT")
                    .doesNotContain("STREAM TOOL RESULT")
                    .doesNotContain("STREAM COMPLETE")
                    .doesNotContain("TIMEOUT");
        }
    }

    @Test
    void aToolProvidersImmediateToolIsCheckedBeforeItsCallbacksGetIt() {
        // only the invocation's tool context knows it is immediate, not the tool service: the loop marks its request
        ForkedJvm.Result r = run(BLOCKED, "provider+callbacks", "jane");
        assertThat(r.stdout()).as(r.toString()).contains("TOOL orderStatus ran id=7 (provider)").contains("CONTENT: null");
        assertThat(line(r, "AFTER TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("AFTER TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "EVENT TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("EVENT TOOL RESULT orderStatus: " + NOTICE);
        assertThat(line(r, "TOOL RESULT orderStatus: ")).as(r.toString()).isEqualTo("TOOL RESULT orderStatus: " + NOTICE);
        assertThat(r.stdout()).as(r.toString()).doesNotContain(SECRET);
        assertThat(r.stderr()).as(r.toString()).contains("BLOCK ASSISTANT langchain4j session=jane contract=rule.blockOutput");
        assertThat(ForkedJvm.count(r.stderr(), "ASSISTANT ")).as(r.toString()).isEqualTo(1);
    }
}
