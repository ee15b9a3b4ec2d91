package dev.tracegate.it;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * quarkus-langchain4j 1.10.0 on Quarkus 3.33.2, as a prod fast-jar ({@code java -jar quarkus-app/quarkus-run.jar}, built
 * from it/src/test/quarkus-app by {@link QuarkusApp}): an {@code @RegisterAiService} with {@code @Tool}s of an
 * {@code @ApplicationScoped} bean, {@code @MemoryId} per user, a scripted model (trial34). The app imports nothing of
 * tracegate; it reads commands on standard input ({@code demoquarkus.Main}).
 */
class QuarkusLangChain4jTest {

    private static final String NO_DELETE = String.join("\n",
            "library: shop",
            "contracts:",
            "  - id: shop.no-delete",
            "    guarantee: G !call(deleteAccount)",
            "    message: Accounts are not deleted by the assistant.",
            "    next: Tell the user to contact support.", "");

    @TempDir
    Path dir;

    private ForkedJvm.Result run(String library, String config, String... commands) throws IOException {
        Files.writeString(dir.resolve("shop.yaml"), library);
        Files.writeString(dir.resolve("tracegate.yaml"), "libraries: [shop.yaml]\naudit.path: audit.jsonl\naudit.personal-data: clear\n" + config);
        ForkedJvm.Result r = QuarkusApp.run(dir, List.of(ForkedJvm.agent("config=tracegate.yaml")), commands);
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    private String audit() throws IOException {
        return Files.readString(dir.resolve("audit.jsonl"));
    }

    /**
     * trial34 01: quarkus-langchain4j runs an AI service's tools itself (AiServiceMethodImplementationSupport#executeTool,
     * build-time generated invokers), never through LangChain4j's ToolService, so before, a {@code @Tool} call ran with no
     * CALL event and {@code G !call(deleteAccount)} did not stop it. Now it is blocked (substitute), once.
     */
    @Test
    void aToolCallOfARegisteredAiServiceIsBlockedAndCountedOnce() throws IOException {
        ForkedJvm.Result r = run(NO_DELETE, "", "chat alice delete alice", "chat alice lookup 7", "runs");
        assertThat(r.stdout()).as(r.toString())
                .contains("ANSWER Done: [deleteAccount -> tracegate blocked the call to deleteAccount (contract shop.no-delete)")
                .contains("ANSWER Done: [lookupOrder -> \"order 7: shipped\"]")
                .contains("RUNS {lookupOrder=1}");
        assertThat(ForkedJvm.count(r.stderr(), "BLOCK langchain4j session=alice tool=deleteAccount contract=shop.no-delete")).as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString()).doesNotContain("none of the methods");
        String audit = audit();
        assertThat(ForkedJvm.count(audit, "\"kind\":\"call\"")).as(audit).isEqualTo(2);
        assertThat(ForkedJvm.count(audit, "\"kind\":\"return\"")).as(audit).isEqualTo(1);
    }

    /** The same under {@code block.style: exception}: the AI service method throws, the tool does not run. */
    @Test
    void underBlockStyleExceptionTheAiServiceMethodThrowsAndTheToolDoesNotRun() throws IOException {
        ForkedJvm.Result r = run(NO_DELETE, "block.style: exception\n", "chat alice delete alice", "runs");
        assertThat(r.stdout()).as(r.toString())
                .contains("ERROR dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to deleteAccount (contract shop.no-delete)")
                .contains("RUNS {}");
    }

    /** A redirect runs the safe tool of the same AI service instead, with the call's arguments. */
    @Test
    void aRedirectRunsTheOtherToolOfTheAiService() throws IOException {
        ForkedJvm.Result r = run(String.join("\n",
                "library: shop",
                "contracts:",
                "  - id: shop.deactivate",
                "    guarantee: G !call(deleteAccount)",
                "    strategy: redirect",
                "    redirect-to: deactivateAccount",
                "    message: Accounts are deactivated, not deleted.", ""), "", "chat alice delete alice", "runs");
        assertThat(r.stdout()).as(r.toString())
                .contains("ANSWER Done: [deleteAccount -> \"deactivated alice\"]")
                .contains("RUNS {deactivateAccount=1}");
        assertThat(r.stderr()).as(r.toString()).contains("REDIRECT langchain4j session=alice tool=deleteAccount");
    }

    /**
     * trial34 02: the USER and ASSISTANT events of a quarkus-langchain4j AI service are in the session of its
     * {@code @MemoryId} (before, all in {@code default}: Alice's "unlock" let Bob have the secret). Alice and Bob talk at
     * once (both in the model together): Bob, who never unlocked, is refused; the tool call is in Alice's session.
     */
    @Test
    void eachUsersEventsAreInTheSessionOfHisMemoryIdAlsoTwoAtOnce() throws IOException {
        ForkedJvm.Result r = run(String.join("\n",
                "library: shop",
                "contracts:",
                "  - id: shop.no-secret",
                "    guarantee: G(output_matches(\"SECRET\") -> O user_matches(\"^sync unlock\"))",
                "    message: Secrets only after this user unlocked them.", ""), "",
                "together alice sync unlock | bob sync secret", "chat alice delete alice");
        assertThat(r.stdout()).as(r.toString())
                .contains("ANSWER You said: unlock")
                .contains("ANSWER [tracegate] Secrets only after this user unlocked them.")
                .doesNotContain("SECRET-42");
        String audit = audit();
        assertThat(audit).as(audit)
                .contains("\"session\":\"alice\"")
                .contains("\"session\":\"bob\"")
                .doesNotContain("\"session\":\"default\"");
        assertThat(r.stderr()).as(r.toString()).doesNotContain("none of the methods");
    }

    private static final String NO_SECRET = String.join("\n",
            "library: shop",
            "contracts:",
            "  - id: shop.no-secret",
            "    guarantee: G(assistant -> !output_matches(\"SECRET\"))",
            "    message: Never tell secrets.",
            "    next: Say you cannot help with that.", "");

    /**
     * trial34 06: a {@code Multi<String>} streamed answer under {@code block.style: substitute}. quarkus-langchain4j hands
     * the subscriber the partial responses only, so before, the notice put in the complete response was never seen: the
     * subscriber got the secret and completed, while the audit record said {@code shown-then-notice}. Now the notice
     * follows the chunks as one more item, as the record says, in the user's session.
     */
    @Test
    void aBlockedMultiStreamGetsTheNoticeAfterTheChunksAsTheRecordSays() throws IOException {
        ForkedJvm.Result r = run(NO_SECRET, "", "stream alice secret", "stream bob hello");
        assertThat(r.stdout()).as(r.toString())
                .contains("STREAM The admin password is SECRET-42.[tracegate] Never tell secrets. Say you cannot help with that.")
                .contains("STREAM You said: hello");
        String audit = audit();
        assertThat(ForkedJvm.count(audit, "\"streamed\":\"shown-then-notice\"")).as(audit).isEqualTo(1);
        assertThat(audit).as(audit).contains("\"session\":\"alice\"").contains("\"session\":\"bob\"")
                .doesNotContain("\"session\":\"default\"");
        assertThat(ForkedJvm.count(r.stderr(), "REPLACE ASSISTANT langchain4j-stream session=alice")).as(r.toString()).isEqualTo(1);
    }

    /** The same under {@code block.style: exception}: the {@code Multi} fails with the violation, recorded {@code shown-then-error}. */
    @Test
    void underBlockStyleExceptionTheMultiFailsWithTheViolation() throws IOException {
        ForkedJvm.Result r = run(NO_SECRET, "block.style: exception\n", "stream alice secret");
        assertThat(r.stdout()).as(r.toString()).contains("ERROR dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the answer");
        assertThat(audit()).contains("\"streamed\":\"shown-then-error\"");
    }

    /**
     * trial34 05: the model asks for a tool in a response the agent saw, the tool runs, and no tool event ever comes (here
     * the application's own tool loop around a model it calls itself; in trial34, quarkus-langchain4j's tool path before
     * this session). Before, not one line said so and the operator believed {@code G !call(deleteAccount)} enforced; now
     * one WARN at exit names the tool, the likely cause and the configured-methods workaround.
     */
    @Test
    void aToolTheModelAskedForWhoseCallNeverCameIsSaidOnceAtExit() throws IOException {
        ForkedJvm.Result r = run(NO_DELETE, "", "ownloop alice delete alice", "ownloop bob delete bob", "chat carol lookup 9", "runs");
        assertThat(r.stdout()).as(r.toString()).contains("OWN deleteAccount -> deleted alice").contains("RUNS {deleteAccount=2, lookupOrder=1}");
        assertThat(ForkedJvm.count(r.stderr(), "the model asked for a tool that never reached tracegate: deleteAccount (asked for 2 times)"))
                .as(r.toString()).isEqualTo(1);
        assertThat(r.stderr()).as(r.toString())
                .contains("configured-methods: [{class: <the class that declares deleteAccount>, method: deleteAccount, kind: tool}]")
                .doesNotContain("lookupOrder (asked for");
    }

    /**
     * trial34 03: attached before the first turn (Quarkus loads LangChain4j's classes at the first AI request), the agent
     * said "instrumentation langchain4j matched nothing" and then supervised LangChain4j. Now the attach notes that it
     * has matched nothing yet; the turn is supervised; no "matched nothing" WARN for langchain4j, at the attach or at exit.
     */
    @Test
    void anAttachBeforeTheFirstTurnDoesNotSayLangChain4jMatchedNothing() throws IOException {
        Files.writeString(dir.resolve("shop.yaml"), NO_SECRET);
        ForkedJvm.Result r = QuarkusApp.runAttached(dir, "libraries=" + dir.resolve("shop.yaml") + ",audit.path=" + dir.resolve("audit.jsonl"),
                "chat alice secret");
        assertThat(r.stdout()).as(r.toString()).contains("ANSWER [tracegate] Never tell secrets. Say you cannot help with that.");
        assertThat(r.stderr()).as(r.toString()).doesNotContain("instrumentation langchain4j matched nothing");
    }
}
