package dev.tracegate.it.hardening;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static dev.tracegate.it.hardening.FaultInjectionTest.metric;
import static dev.tracegate.it.hardening.FaultInjectionTest.metrics;
import static dev.tracegate.it.hardening.FaultInjectionTest.records;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The agent's inlined advice failing in its own code, outside the agent core (trial2 R13 in general): the
 * application's own objects make reading the call fail, a conversation key whose {@code toString} refuses (Spring AI
 * {@code ToolContext} and {@code ChatClient} conversation id, LangChain4j {@code @MemoryId}, MCP transport context)
 * or a tool callback whose definition cannot be loaded. Such a failure used to be suppressed and the tool ran
 * unsupervised whatever {@code fail} said (and the answer checks threw the key's exception into the host). Now it follows the failure policy like any internal error:
 * {@code fail=closed} refuses (the tool does not run), {@code fail=open} lets it run; both counted in the MBean,
 * and the same thread is supervised afterwards (the nesting guard stays balanced).
 */
class AdviceFailureTest {
    private static final String APP = "demoapp.hardening.AdviceFaultApp";
    private static final String LIBRARY = """
            library: advice-faults
            contracts:
              - id: no-delete
                guarantee: G !call(delete_account)
                message: Accounts are never deleted by the agent.
              - id: no-draft
                guarantee: G !call(draftEmail)
                message: Drafts are written by people.
            """;
    private static final String STATELESS_APP = "demoapp.mcp.McpStatelessApp";
    private static final String EMAIL = "{\"to\":\"bob\",\"body\":\"the numbers\"}";

    @TempDir Path dir;

    private Forked.Output app(String options, String... commands) throws Exception {
        return Forked.run(Forked.command(Forked.java(), options, APP, commands));
    }

    private String options(String fail, Path audit) throws IOException {
        Path lib = Files.writeString(dir.resolve("lib.yaml"), LIBRARY);
        return "libraries=" + lib + ",audit.path=" + audit + ",view=off,fail=" + fail;
    }

    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anAdviceThatCannotReadTheCallFollowsTheFailurePolicy(String fail) throws Exception {
        Path audit = dir.resolve("audit.jsonl");
        Forked.Output r = app(options(fail, audit), "springai-context", "springai-definition", "springai-chat", "springai-stream",
                "lc4j", "lc4j-stream", "springai-delete", "metrics");
        String out = r.stdout();
        if (fail.equals("closed")) {
            assertThat(out).as(r.toString())
                    .doesNotContain("TOOL lookup ran")
                    // Spring AI: the callback's result is the refusal
                    .contains("RESULT springai: tracegate could not check springai tool call lookup (internal error: IllegalStateException);"
                            + " refused because fail=closed")
                    .contains("RESULT springai: tracegate could not check springai tool call (internal error: IllegalStateException);"
                            + " refused because fail=closed")
                    // a ChatClient conversation: the user message replaced; the first round's text beside its request for
                    // tools could not be checked (e711044 checks it), which refuses the round, so its tool never runs
                    .contains("MODEL SAW USER tracegate could not check springai user message")
                    .doesNotContain("MODEL SAW TOOL RESULT lookup: tracegate could not check springai tool call lookup")
                    .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check springai assistant message")
                    // the same conversation streamed: the stream whose answer could not be checked is the violation
                    .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check springai streamed answer")
                    // LangChain4j: the user message that could not be checked is replaced, the tool refused, the answer refused
                    .contains("MODEL SAW USER tracegate could not check langchain4j user message")
                    .doesNotContain("MODEL SAW USER what did I order?")
                    .contains("MODEL SAW TOOL RESULT lookup: tracegate could not check langchain4j tool call")
                    .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check langchain4j assistant message")
                    // LangChain4j streaming: the complete answer that could not be checked ends the stream with the violation
                    .contains("STREAM ERROR dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check langchain4j-stream assistant message")
                    .doesNotContain("COMPLETE:");
        } else {
            assertThat(out).as(r.toString())
                    .contains("TOOL lookup ran customer=c-17\nRESULT springai: 2 orders")
                    .contains("TOOL lookup ran input={\"customer\":\"c-17\"}\nRESULT springai: found {\"customer\":\"c-17\"}")
                    .contains("MODEL SAW USER what did I order?")
                    .contains("RESULT springai-chat: you have orders")
                    .contains("RESULT springai-stream: you have orders")
                    .contains("MODEL SAW TOOL RESULT lookup: 2 orders for c-17")
                    .contains("RESULT lc4j: you have orders")
                    .contains("COMPLETE: you have orders")
                    .doesNotContain("HOST CAUGHT");
        }
        // the failed calls left the thread's nesting guard balanced: the next call on it is supervised and blocked
        assertThat(out).as(r.toString()).doesNotContain("TOOL delete_account ran")
                .contains("RESULT springai: tracegate blocked the call to delete_account (contract no-delete)");
        // two direct Spring AI tool calls; the Spring AI ChatClient conversation: its user message and its first round's text
        // beside the request for tools, which ends it under closed (open goes on to its tool call and answer); the user
        // message, tool call and answer of the LangChain4j conversation; the user message and answer of the LangChain4j
        // stream; the Spring AI stream: its user message and first round's answer stream, which ends it under closed;
        // open goes on to its tool call and second round
        Map<String, String> m = metrics(out);
        assertThat(metric(m, "InternalErrors." + fail)).as(r.toString()).isEqualTo(fail.equals("closed") ? 11 : 15);
        assertThat(metric(m, "InternalErrors." + (fail.equals("closed") ? "open" : "closed"))).isZero();
        assertThat(r.stderr()).contains("internal error at springai tool call lookup (fail=" + fail)
                .contains("internal error at langchain4j tool call (fail=" + fail)
                .contains("internal error at springai user message (fail=" + fail)
                .contains("internal error at springai assistant message (fail=" + fail)
                .contains("customer keys are never printed (personal data)")
                .contains("schema registry unreachable");
        // every failure is counted, but a kind already reported is not logged again
        List<String> logged = r.stderr().lines().filter(l -> l.contains("ERROR internal error at "))
                .map(l -> l.substring(l.indexOf("internal error at "), l.indexOf(" (fail="))).toList();
        assertThat(logged).as(r.stderr()).doesNotHaveDuplicates().hasSizeLessThan(fail.equals("closed") ? 12 : 14);
        // a call the supervisor never saw leaves no half record (a RETURN without its CALL) under either policy
        assertThat(records(audit)).as("the audit log records tool names").anySatisfy(e -> assertThat(e.path("tool").asText()).isEqualTo("delete_account"))
                .noneSatisfy(e -> assertThat(e.path("tool").asText()).isEqualTo("lookup"));
    }

    /**
     * MCP stateless server: the application's transport context names the conversation with a handle that cannot be
     * printed. The client runs without the agent; the server under it, its lines echoed as "SERVER: ...".
     */
    @ParameterizedTest @ValueSource(strings = {"closed", "open"})
    void anMcpServerCallWhoseSessionCannotBeReadFollowsTheFailurePolicy(String fail) throws Exception {
        String cp = Forked.appClasspath();
        Forked.Output r = Forked.run(List.of(Forked.java(), "-cp", cp, STATELESS_APP, "client",
                "opaque:conv-1", "sendEmail", EMAIL, "conv-2", "draftEmail", EMAIL, "--",
                Forked.java(), "-javaagent:" + Forked.agentJar() + "=" + options(fail, dir.resolve("audit.jsonl")), "-cp", cp, STATELESS_APP, "server"));
        String out = r.stdout();
        assertThat(out).as(r.toString()).contains("SERVER: SERVER READY")
                .contains("SERVER: [tracegate] ERROR internal error at mcp-server tool call (fail=" + fail)
                .contains("conversation handles are never printed")
                // the server goes on supervising: the next call, in another conversation, is blocked
                .contains("RESULT conv-2 draftEmail isError=true: tracegate blocked the call to draftEmail (contract no-draft)")
                .doesNotContain("TOOL draftEmail ran");
        if (fail.equals("closed")) {
            assertThat(out).as(r.toString()).doesNotContain("TOOL sendEmail ran")
                    .contains("RESULT opaque:conv-1 sendEmail isError=true: tracegate could not check mcp-server tool call"
                            + " (internal error: IllegalStateException); refused because fail=closed");
        } else {
            assertThat(out).as(r.toString()).contains("SERVER: TOOL sendEmail ran to=bob")
                    .contains("RESULT opaque:conv-1 sendEmail isError=false: email sent to bob");
        }
    }

    /** Under {@code block.style=exception} the closed refusal of a failed advice is the configured violation. */
    @Test
    void underBlockStyleExceptionTheRefusalIsTheViolation() throws Exception {
        Forked.Output r = app(options("closed", dir.resolve("audit.jsonl")) + ",block.style=exception",
                "springai-context", "springai-definition", "metrics");
        assertThat(r.stdout()).as(r.toString()).doesNotContain("TOOL lookup ran")
                .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check springai tool call lookup")
                .contains("HOST CAUGHT dev.tracegate.agent.bootstrap.TracegateViolation: tracegate could not check springai tool call (");
        assertThat(metric(metrics(r.stdout()), "InternalErrors.closed")).isEqualTo(2);
    }
}
