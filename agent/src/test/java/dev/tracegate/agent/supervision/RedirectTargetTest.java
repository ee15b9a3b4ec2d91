package dev.tracegate.agent.supervision;

import dev.tracegate.agent.audit.AuditWriter;
import dev.tracegate.agent.bootstrap.Dispatcher;
import dev.tracegate.agent.config.AgentConfig;
import dev.tracegate.agent.core.AgentLog;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.metrics.SupervisorMetrics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial12 redirect-unreachable-target-logged-as-redirect: a redirect to a tool the framework's call site does not have
 * (a typo in redirect-to) ran nothing, yet was logged on stderr as REDIRECT and recorded as a redirect call of the missing
 * tool. Now it is a block of the original call whose reason names the target, with one WARN per contract and target.
 */
class RedirectTargetTest {
    @TempDir Path dir;

    @Test
    void aRedirectToAToolTheCallSiteLacksIsABlockThatNamesTheTarget() throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), """
                library: r
                contracts:
                  - id: r.external-mail
                    guarantee: G !call(send_email)
                    strategy: redirect
                    redirect-to: drft_email
                    message: External e-mail is drafted, not sent.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        // the tool table a LangChain4j AI service's hook puts on the calling thread: name -> executor
        Object previous = Dispatcher.swapTools(Map.of("send_email", new Object(), "draft_email", new Object()));
        try {
            for (String id : List.of("c1", "c2")) {
                ToolDecision d = s.onToolCall(new ToolCall("langchain4j", "s1", "send_email", "{\"to\":\"x@gmail.com\"}", id));
                assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
                assertThat(d.contract()).isEqualTo("r.external-mail");
                assertThat(d.reason()).contains("It could not be redirected to drft_email: drft_email is not a tool of this call site"
                        + " (its tools: draft_email, send_email)");
            }
            String warned = err.toString(StandardCharsets.UTF_8);
            assertThat(warned).contains("WARN").contains("contract r.external-mail redirects send_email to drft_email, but drft_email is not a tool");
            assertThat(warned.indexOf("redirects send_email")).as("warned once").isEqualTo(warned.lastIndexOf("redirects send_email"));
        } finally {
            Dispatcher.swapTools(previous);
            AgentLog.captureForTest(null);
        }
        // no tool table on the thread (a site that cannot tell): the redirect stands as before, the site reports its outcome
        assertThat(s.onToolCall(new ToolCall("langchain4j", "s2", "send_email", "{}", "c3")).kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
        s.close();
        assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        List<String> calls = Files.readAllLines(log).stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).hasSize(3);
        assertThat(calls.get(0)).contains("\"session\":\"s1\"").contains("\"tool\":\"send_email\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(1)).contains("\"tool\":\"send_email\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(2)).contains("\"session\":\"s2\"").contains("\"tool\":\"drft_email\"").contains("\"decision\":\"redirect\"");
    }

    @Test
    void aRedirectToAToolTheCallSiteHasStaysARedirect() throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), """
                library: r
                contracts:
                  - id: r.external-mail
                    guarantee: G !call(send_email)
                    strategy: redirect
                    redirect-to: draft_email
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        Object previous = Dispatcher.swapTools(Map.of("send_email", new Object(), "draft_email", new Object()));
        try {
            ToolDecision d = s.onToolCall(new ToolCall("langchain4j", "s1", "send_email", "{}", "c1"));
            assertThat(d.kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
            assertThat(d.targetTool()).isEqualTo("draft_email");
        } finally {
            Dispatcher.swapTools(previous);
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    /**
     * The text the model gets for such a block does not pass on the contract's own {@code next} when it names the
     * missing target (the model would call a tool that is not there); it says what can work instead.
     */
    @Test
    void theBlockOfARedirectToAMissingToolDoesNotSendTheModelToThatTool() throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), """
                library: r
                contracts:
                  - id: r.external-mail
                    guarantee: G !call(send_email)
                    strategy: redirect
                    redirect-to: drft_email
                    message: External e-mail is drafted, not sent.
                    next: Call drft_email with the same arguments instead.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        Object previous = Dispatcher.swapTools(Map.of("send_email", new Object(), "draft_email", new Object()));
        try {
            ToolDecision d = s.onToolCall(new ToolCall("langchain4j", "s1", "send_email", "{}", "c1"));
            assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
            assertThat(d.instead()).doesNotContainIgnoringCase("call drft_email")
                    .isEqualTo("Do not call send_email again: it is refused, and drft_email, which would run in its place, is not available here."
                            + " Tell the user that this cannot be done now.");
            // with the target there, the contract's next is what a block of it says (unchanged)
            Dispatcher.swapTools(Map.of("send_email", new Object(), "drft_email", new Object()));
            assertThat(s.onToolCall(new ToolCall("langchain4j", "s2", "send_email", "{}", "c2")).kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
        } finally {
            Dispatcher.swapTools(previous);
            s.close();
            audit.close(10, TimeUnit.SECONDS);
        }
    }

    /** A tool's Java method, as LangChain4j's DefaultToolExecutor keeps it (this test is compiled without -parameters: arg0, arg1). */
    public static final class Mailer {
        public String sendEmail(String to, String body) { return "sent"; }
    }

    /** What the agent reads of a LangChain4j DefaultToolExecutor: its originalMethod. */
    static final class FakeExecutor {
        private final java.lang.reflect.Method originalMethod;

        FakeExecutor(java.lang.reflect.Method m) { this.originalMethod = m; }
    }

    /** What the agent reads of a Spring AI ToolCallback: getToolDefinition().name() and inputSchema(). */
    public record Definition(String name, String inputSchema) {}

    public record Callback(Definition definition) {
        public Definition getToolDefinition() { return definition; }
    }

    /**
     * trial24 (01): a redirect target that takes none of the refused call's arguments ran with every parameter null
     * (send_email in place of refund: the model saw "sent to null"), logged as a redirect with arguments the target never
     * got. Now, where the framework's tool table tells the target's parameters, it is a block whose reason says so, with
     * one WARN per contract and target; a target that lacks a parameter it requires is blocked too.
     */
    @Test
    void aRedirectToATargetThatTakesNoneOfTheArgumentsIsABlockThatSaysSo() throws Exception {
        Path lib = Files.writeString(dir.resolve("r.yaml"), """
                library: r
                contracts:
                  - id: r.cap
                    guarantee: G !call(refund)
                    strategy: redirect
                    redirect-to: send_email
                    message: Refunds go to a manager.
                """);
        Path log = dir.resolve("audit.jsonl");
        AgentConfig config = AgentConfig.load("libraries=" + lib + ",audit.personal-data=clear,audit.path=" + log, Map.of(), Map.of(), Set.of());
        AuditWriter audit = AuditWriter.start(log, AuditWriter.Settings.from(config));
        ContractSupervisor s = new ContractSupervisor(config, audit, new SupervisorMetrics(), null);
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        AgentLog.captureForTest(new PrintStream(err, true, StandardCharsets.UTF_8));
        java.lang.reflect.Method send = Mailer.class.getMethod("sendEmail", String.class, String.class);
        Object previous = Dispatcher.swapTools(Map.of("refund", new Object(), "send_email", new FakeExecutor(send)));
        try {
            for (String id : List.of("c1", "c2")) {
                ToolDecision d = s.onToolCall(new ToolCall("langchain4j", "s1", "refund", "{\"orderId\":\"A2\",\"amount\":100}", id));
                assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
                assertThat(d.reason()).contains("It could not be redirected to send_email: send_email takes none of refund's arguments"
                        + " (orderId, amount; its parameters: arg0, arg1), so it would run with nulls");
            }
            String warned = err.toString(StandardCharsets.UTF_8);
            assertThat(warned).contains("WARN").contains("contract r.cap redirects refund to send_email, but send_email takes none of refund's arguments");
            assertThat(warned.indexOf("redirects refund")).as("warned once").isEqualTo(warned.lastIndexOf("redirects refund"));
        } finally {
            Dispatcher.swapTools(previous);
            AgentLog.captureForTest(null);
        }
        // Spring AI: the target's input schema; one it requires is missing -> block; all there -> the redirect stands
        String schema = "{\"type\":\"object\",\"properties\":{\"orderId\":{\"type\":\"string\"},\"reason\":{\"type\":\"string\"}},"
                + "\"required\":[\"orderId\",\"reason\"]}";
        previous = Dispatcher.swapTools(List.of(new Callback(new Definition("refund", "{}")), new Callback(new Definition("send_email", schema))));
        try {
            ToolDecision d = s.onToolCall(new ToolCall("spring-ai", "s2", "refund", "{\"orderId\":\"A2\",\"amount\":100}", "c3"));
            assertThat(d.kind()).isEqualTo(ToolDecision.Kind.BLOCK);
            assertThat(d.reason()).contains("send_email requires reason, which refund's arguments (orderId, amount) do not have");
            ToolDecision ok = s.onToolCall(new ToolCall("spring-ai", "s3", "refund", "{\"orderId\":\"A2\",\"reason\":\"late\"}", "c4"));
            assertThat(ok.kind()).isEqualTo(ToolDecision.Kind.REDIRECT);
            assertThat(ok.targetTool()).isEqualTo("send_email");
        } finally {
            Dispatcher.swapTools(previous);
            s.close();
            assertThat(audit.close(10, TimeUnit.SECONDS)).isTrue();
        }
        List<String> calls = Files.readAllLines(log).stream().filter(l -> l.contains("\"kind\":\"call\"")).toList();
        assertThat(calls).hasSize(4);
        assertThat(calls.get(0)).contains("\"tool\":\"refund\"").contains("\"decision\":\"block\"");
        assertThat(calls.get(3)).contains("\"tool\":\"send_email\"").contains("\"decision\":\"redirect\"");
    }
}
