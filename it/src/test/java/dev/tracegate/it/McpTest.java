package dev.tracegate.it;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The MCP Java SDK 2.1.0: a stdio server in one forked JVM, a client in another; the agent in either. */
class McpTest {

    private static final String APP = "demoapp.mcp.McpApp";
    private static final String EMAIL = "{\"to\":\"bob\",\"body\":\"the numbers\"}";

    /** Runs the client (agent options or null) against a server subprocess (agent options or null). */
    private static ForkedJvm.Result run(String clientOptions, String serverOptions, String tool, String arguments) {
        String cp = ForkedJvm.appClasspath();
        List<String> clientJvm = clientOptions == null ? List.of() : List.of(ForkedJvm.agent(clientOptions));
        List<String> args = new ArrayList<>(List.of("client", tool, arguments, ForkedJvm.java()));
        if (serverOptions != null) {
            args.add(ForkedJvm.agent(serverOptions));
        }
        args.addAll(List.of("-cp", cp, APP, "server"));
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), clientJvm, cp, APP, args.toArray(new String[0]));
        assertThat(r.exit()).as(r.toString()).isZero();
        return r;
    }

    @Test
    void serverToolCallsAreSeenWithTheExchangeSessionId() {
        ForkedJvm.Result r = run(null, "trace=true", "sendEmail", EMAIL);
        assertThat(r.stdout()).as(r.toString())
                .contains("SERVER: TOOL sendEmail ran to=bob body=the numbers")
                .contains("RESULT isError=false: email sent to bob")
                .containsPattern("SERVER: \\[tracegate\\] CALL mcp-server session=(?!default)\\S+ tool=sendEmail args=\\{\"to\":\"bob\"")
                .contains("RETURN mcp-server");
    }

    @Test
    void serverBlockSubstitutesAnErrorResult() {
        ForkedJvm.Result r = run(null, "block=sendEmail", "sendEmail", EMAIL);
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("RESULT isError=true: tracegate blocked the call to sendEmail (contract rule.block)");
    }

    @Test
    void serverRedirectRunsTheOtherTool() {
        ForkedJvm.Result r = run(null, "redirect=sendEmail:draftEmail", "sendEmail", EMAIL);
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .contains("SERVER: TOOL draftEmail ran to=bob")
                .contains("RESULT isError=false: draft saved for bob");
    }

    @Test
    void serverRedactDropsTheField() {
        ForkedJvm.Result r = run(null, "redact=body", "sendEmail", EMAIL);
        assertThat(r.stdout()).as(r.toString()).contains("SERVER: TOOL sendEmail ran to=bob body=null");
    }

    @Test
    void serverSuppressWithholdsTheResult() {
        ForkedJvm.Result r = run(null, "suppress=lookupCustomer", "lookupCustomer", "{\"name\":\"Alice\"}");
        assertThat(r.stdout()).as(r.toString())
                .contains("SERVER: TOOL lookupCustomer ran name=Alice")
                .contains("RESULT isError=false: [withheld by tracegate")
                .doesNotContain("DE89370400440532013000");
    }

    @Test
    void clientBlockThrowsBeforeTheRequestLeaves() {
        ForkedJvm.Result r = run("block=sendEmail,onBlock=throw", null, "sendEmail", EMAIL);
        assertThat(r.stdout()).as(r.toString())
                .doesNotContain("TOOL sendEmail ran")
                .doesNotContain("RESULT")
                .contains("EXCEPTION: dev.tracegate.agent.bootstrap.TracegateViolation: tracegate blocked the call to sendEmail");
    }

    @Test
    void clientSuppressAndShadowOnTheClientSide() {
        ForkedJvm.Result suppressed = run("suppress=sendEmail", null, "sendEmail", EMAIL);
        assertThat(suppressed.stdout()).as(suppressed.toString())
                .contains("SERVER: TOOL sendEmail ran")
                .contains("RESULT isError=false: [withheld by tracegate: the result of sendEmail");
        ForkedJvm.Result shadow = run("shadow=true,block=sendEmail", null, "sendEmail", EMAIL);
        assertThat(shadow.stdout()).as(shadow.toString()).contains("RESULT isError=false: email sent to bob");
        assertThat(shadow.stderr()).contains("SHADOW would BLOCK mcp-client");
    }

    @Test
    void clientAndServerInOneJvmSuperviseTheCallOnce() {
        ForkedJvm.Result r = ForkedJvm.run(ForkedJvm.java(), List.of(ForkedJvm.agent("trace=true")), ForkedJvm.appClasspath(), APP,
                "inprocess", "sendEmail", EMAIL);
        assertThat(r.exit()).as(r.toString()).isZero();
        assertThat(r.all()).as(r.toString())
                .contains("TOOL sendEmail ran to=bob")
                .contains("RESULT isError=false: email sent to bob")
                .contains("CALL mcp-client session=default tool=sendEmail")
                .doesNotContain("CALL mcp-server")
                .doesNotContain("RETURN mcp-server")
                // the server hook was woven in this JVM: it skipped the call because the client had supervised it
                .doesNotContain("instrumentation mcp-server matched nothing");
    }
}
