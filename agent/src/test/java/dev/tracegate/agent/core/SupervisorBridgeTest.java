package dev.tracegate.agent.core;

import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.bootstrap.TracegateViolation;
import dev.tracegate.agent.instrumentation.configured.ConfiguredMethods;
import dev.tracegate.agent.rules.RuleSupervisor;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class SupervisorBridgeTest {

    private static SupervisorBridge bridge(String options) {
        AgentArguments args = AgentArguments.parse(options);
        JsonCodec json = new JsonCodec();
        return new SupervisorBridge(new RuleSupervisor(args, json), args, json, ConfiguredMethods.none());
    }

    /**
     * {@code stderr.decisions: false} (file, property, variable or agent argument) turns the decision lines off; the
     * decisions themselves are unchanged. A WARN or ERROR line still prints.
     */
    @Test
    void stderrDecisionsFalseFromTheEnvironmentPrintsNoDecisionLineAndTheDecisionsStand() {
        java.util.Map<String, String> env = java.util.Map.of("TRACEGATE_STDERR_DECISIONS", "false");
        for (String arguments : new String[] {"block=sendEmail,suppress=lookup", "block=sendEmail,suppress=lookup,stderr.decisions=false"}) {
            dev.tracegate.agent.config.AgentConfig config = dev.tracegate.agent.config.AgentConfig.load(arguments,
                    arguments.contains("stderr") ? java.util.Map.of() : env, java.util.Map.of(), AgentCore.FREE_KEYS);
            assertThat(config.stderrDecisions()).isFalse();
            AgentArguments args = AgentArguments.parse(arguments);
            JsonCodec json = new JsonCodec();
            SupervisorBridge b = new SupervisorBridge(new RuleSupervisor(args, json), AgentCore.bridgeOptions(arguments, args, config), json,
                    ConfiguredMethods.none());
            java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
            AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
            Ruling r;
            String notice;
            try {
                r = b.onToolCall("lc", "s", "sendEmail", "{}", null);
                notice = b.onToolResult("lc", "s", "lookup", null, "text", false);
            } finally {
                AgentLog.captureForTest(null);
            }
            assertThat(r).as(arguments).isNotNull();
            assertThat(r.kind).isEqualTo(Ruling.SUBSTITUTE);
            assertThat(notice).as("the result is withheld").isNotNull();
            assertThat(b.counts()[SupervisorBridge.BLOCKED]).isEqualTo(1);
            assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).as(arguments).doesNotContain("BLOCK").doesNotContain("SUPPRESS");
        }
        // the default prints them
        SupervisorBridge b = bridge("block=sendEmail");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            b.onToolCall("lc", "s", "sendEmail", "{}", null);
        } finally {
            AgentLog.captureForTest(null);
        }
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8)).contains("[tracegate] BLOCK lc session=s tool=sendEmail contract=rule.block (substitute)");
    }

    /**
     * A session id or tool name is whatever the application or the model chose: it cannot forge a decision line (trial43
     * 03: a memory id `u1 tool=x contract=none` + line break + `[tracegate] INFO ...` + an escape code printed a BLOCK
     * line naming contract `none` and a second, invented line). Such a value is one quoted field with its line breaks
     * and control characters escaped; a plain word is printed as it is.
     */
    @Test
    void aSessionIdOrToolNameFromOutsideCannotForgeADecisionLine() {
        SupervisorBridge b = bridge("block=sendEmail");
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        String hostile = "u1 tool=x contract=none\n[tracegate] INFO audit log rotated, all calls passed\u001b[2K";
        try {
            assertThat(b.onToolCall("lc", hostile, "sendEmail", "{}", null)).isNotNull();
            assertThat(b.onToolCall("lc", "s2", "sendEmail\r\n[tracegate] INFO ok \"x\"", "{}", null)).isNull();
            assertThat(b.onToolCall("lc", "plain-id_7", "sendEmail", "{}", null)).isNotNull();
        } finally {
            AgentLog.captureForTest(null);
        }
        String out = err.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertThat(out.lines()).allSatisfy(l -> assertThat(l).startsWith("[tracegate] ").doesNotContain("\u001b"));
        assertThat(out.lines().filter(l -> l.startsWith("[tracegate] INFO audit"))).isEmpty();
        assertThat(out).contains("[tracegate] BLOCK lc session=\"u1 tool=x contract=none\\n[tracegate] INFO audit log rotated, all calls passed\\u001b[2K\" tool=sendEmail contract=rule.block (substitute)")
                .contains("[tracegate] BLOCK lc session=plain-id_7 tool=sendEmail contract=rule.block (substitute)");
        assertThat(AgentLog.field("a \"b\" \\ c")).isEqualTo("\"a \\\"b\\\" \\\\ c\"");
        assertThat(AgentLog.field("")).isEqualTo("\"\"");
        assertThat(AgentLog.field("k\u00fcnde-\u202eexe")).isEqualTo("\"k\u00fcnde-\\u202eexe\"");
        assertThat(AgentLog.field("k\u00fcnde")).isEqualTo("k\u00fcnde");
    }

    @Test
    void proceedIsNullAndBlockBecomesASubstituteNamingTheContract() {
        SupervisorBridge b = bridge("block=sendEmail");
        assertThat(b.onToolCall("lc", "s", "readFile", "{}", null)).isNull();
        Ruling r = b.onToolCall("lc", "s", "SendEmail ", "{}", null);
        assertThat(r.kind).isEqualTo(Ruling.SUBSTITUTE);
        assertThat(r.text).startsWith("tracegate blocked the call to SendEmail  (contract rule.block)");
        assertThat(b.counts()[SupervisorBridge.BLOCKED]).isEqualTo(1);
    }

    @Test
    void onBlockThrowGivesAThrowRuling() {
        Ruling r = bridge("block=sendEmail,onBlock=throw").onToolCall("lc", "s", "sendEmail", "{}", null);
        assertThat(r.kind).isEqualTo(Ruling.THROW);
        assertThat(r.violation()).isInstanceOf(TracegateViolation.class).hasMessageContaining("rule.block");
    }

    @Test
    void aCallSiteThatCannotReturnTheSubstituteTextGetsAThrowRulingWhateverTheStyle() {
        SupervisorBridge b = bridge("block=sendEmail");
        assertThat(b.onToolCall("configured", "s", "sendEmail", dev.tracegate.matchers.event.Args.ofJson("{}"), null, false).kind)
                .as("a method returning int has no place for the text: the block throws (and its stderr line says (throw))").isEqualTo(Ruling.THROW);
        assertThat(b.onToolCall("configured", "s", "sendEmail", "{}", null, false).kind).isEqualTo(Ruling.THROW);
        assertThat(b.onToolCall("configured", "s", "sendEmail", dev.tracegate.matchers.event.Args.ofJson("{}"), null, true).kind)
                .isEqualTo(Ruling.SUBSTITUTE);
        assertThat(b.counts()[SupervisorBridge.BLOCKED]).isEqualTo(3);
    }

    /**
     * A framework tool that threw where only the host sees the exception (Spring AI outside its exception processor,
     * LangChain4j's rethrowing handler) reaches the bridge through Dispatcher.onToolThrown: an error RETURN is
     * recorded, and a contract that would withhold it is told as what it is (nothing can be withheld), not as a SUPPRESS.
     */
    @Test
    void aThrownToolThatOnlyTheHostSeesIsReportedAndAWithholdingIsOnlyLogged() {
        SupervisorBridge b = bridge("suppress=lookup");
        dev.tracegate.agent.bootstrap.Dispatcher.install(b);
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            dev.tracegate.agent.bootstrap.Dispatcher.onToolThrown("springai", "s1", "lookup", null, new IllegalStateException("backend down"));
        } finally {
            AgentLog.captureForTest(null);
            dev.tracegate.agent.bootstrap.Dispatcher.install(null);
        }
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("would withhold the result of lookup (session=s1), but the call threw: the host gets its own exception")
                .doesNotContain("SUPPRESS");
        assertThat(b.counts()[SupervisorBridge.SUPPRESSED]).as("nothing was withheld").isZero();
    }

    /** The block text names the contract once (trial5: "(contract injection.untrusted-target): injection.untrusted-target: ..."). */
    @Test
    void theBlockTextNamesTheContractOnce() {
        SupervisorBridge b = bridge("");
        Ruling r = b.enforce(new ToolCall("lc", "s", "send_money", "{}", null),
                ToolDecision.block("injection.untrusted-target", "injection.untrusted-target: This call sends to a target that came from a tool's output.", null));
        assertThat(r.text).isEqualTo("tracegate blocked the call to send_money (contract injection.untrusted-target): This call sends to a target"
                + " that came from a tool's output.");
        Ruling two = b.enforce(new ToolCall("lc", "s", "pay", "{}", null),
                ToolDecision.block("a.one", "a.one: too much. a.two: too often.", null));
        assertThat(two.text).as("a second contract's id stays").isEqualTo("tracegate blocked the call to pay (contract a.one): too much. a.two: too often.");
    }

    @Test
    void shadowDecidesButReturnsNothingToEnforce() {
        SupervisorBridge b = bridge("block=sendEmail,suppress=lookup,shadow=true");
        assertThat(b.onToolCall("lc", "s", "sendEmail", "{}", null)).isNull();
        assertThat(b.onToolResult("lc", "s", "lookup", null, "secret", false)).isNull();
        assertThat(b.counts()[SupervisorBridge.SHADOWED]).isEqualTo(2);
        assertThat(b.counts()[SupervisorBridge.BLOCKED]).isZero();
    }

    @Test
    void redactRewritesArgumentsAndRedirectNamesTheTarget() {
        Ruling redact = bridge("redact=card").onToolCall("lc", "s", "pay", "{\"amount\":3,\"card\":\"4111\",\"nested\":{\"card\":1}}", null);
        assertThat(redact.kind).isEqualTo(Ruling.REWRITE);
        assertThat(redact.arguments).isEqualTo("{\"amount\":3,\"nested\":{}}");
        assertThat(bridge("redact=card").onToolCall("lc", "s", "pay", "{\"amount\":3}", null)).isNull();

        Ruling redirect = bridge("redirect=sendEmail:draftEmail").onToolCall("lc", "s", "sendEmail", "{\"to\":\"b\"}", null);
        assertThat(redirect.kind).isEqualTo(Ruling.REDIRECT);
        assertThat(redirect.tool).isEqualTo("draftEmail");
        assertThat(redirect.arguments).isEqualTo("{\"to\":\"b\"}");
    }

    /**
     * The REDACT line gives the decision's reason, as the BLOCK line does, so every contract that acted is named on
     * standard error (their {@code id: message} pairs), not only the first (trial37 02: the audit record's {@code fired}
     * had two contracts, the line one).
     */
    @Test
    void theRedactLineGivesTheReasonThatNamesEveryContractThatActed() {
        java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
        AgentLog.captureForTest(new java.io.PrintStream(err, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            bridge("redact=card").onToolCall("lc", "s", "pay", "{\"amount\":3,\"card\":\"4111\"}", null);
        } finally {
            AgentLog.captureForTest(null);
        }
        assertThat(err.toString(java.nio.charset.StandardCharsets.UTF_8))
                .contains("[tracegate] REDACT lc session=s tool=pay contract=rule.redact removed=[card] masked=[] reason=fields [card] are not needed")
                .doesNotContain("4111");
    }

    @Test
    void aCallIdSeenThroughAnotherFrameworkIsNotSupervisedTwiceButARepeatedIdInOneFrameworkIs() {
        SupervisorBridge b = bridge("block=sendEmail");
        assertThat(b.onToolCall("langchain4j", "s", "sendEmail", "{}", "id-1")).isNotNull();
        assertThat(b.onToolCall("mcp-client", "s", "sendEmail", "{}", "id-1")).isNull();
        assertThat(b.counts()[SupervisorBridge.DUPLICATES]).isEqualTo(1);
        // a model that reuses ids across turns must not get a free pass
        assertThat(b.onToolCall("langchain4j", "s", "sendEmail", "{}", "id-1")).isNotNull();
    }

    @Test
    void internalErrorsFollowTheFailurePolicy() {
        assertThat(bridge("fail=open").onInternalError("tool call x", new IllegalStateException("boom"))).isNull();
        Ruling closed = bridge("fail=closed").onInternalError("tool call x", new IllegalStateException("boom"));
        assertThat(closed.kind).isEqualTo(Ruling.SUBSTITUTE);
        assertThat(closed.text).contains("refused because fail=closed");
    }

    @Test
    void unknownOptionValuesAreRefusedWithTheAlternatives() {
        assertThatThrownBy(() -> bridge("onBlock=explode")).hasMessageContaining("onBlock=explode is unknown; use onBlock=substitute");
        assertThatThrownBy(() -> bridge("fail=sometimes")).hasMessageContaining("use fail=closed or fail=open");
    }

    @Test
    void blockedModelOutputThrowsOnlyWhenConfigured() {
        assertThatThrownBy(() -> bridge("blockOutput=secret,onBlock=throw").onAssistantMessage("lc", "s", "the Secret is 1"))
                .isInstanceOf(TracegateViolation.class);
        assertThat(bridge("blockOutput=secret").onAssistantMessage("lc", "s", "the secret is 1")).contains("rule.blockOutput");
        assertThat(bridge("blockOutput=secret").onAssistantMessage("lc", "s", "nothing here")).isNull();
    }

    /** A contract without a {@code next} action gives a block text that ends with its reason, not with ". Instead: " (finding 14). */
    @Test
    void aBlockWithoutAnInsteadHasNoDanglingInstead() {
        Supervisor blocking = new Supervisor() {
            @Override public ToolDecision onToolCall(ToolCall call) { return ToolDecision.block("c.no-next", "not allowed here", ""); }
            @Override public ResultDecision onToolResult(ToolResult result) { return null; }
            @Override public MessageDecision onUserMessage(Message message) { return null; }
            @Override public MessageDecision onAssistantMessage(Message message) { return null; }
            @Override public void endSession(String sessionId) { }
        };
        AgentArguments args = AgentArguments.parse("");
        JsonCodec json = new JsonCodec();
        Ruling r = new SupervisorBridge(blocking, args, json, ConfiguredMethods.none()).onToolCall("lc", "s", "pay", "{}", null);
        assertThat(r.text).isEqualTo("tracegate blocked the call to pay (contract c.no-next): not allowed here");
    }

    /** A reason that ends a sentence is followed by " Instead:", not by ".. Instead:" (C2). */
    @Test
    void aReasonEndingInAPeriodGetsNoSecondPeriodBeforeInstead() {
        Supervisor blocking = new Supervisor() {
            @Override public ToolDecision onToolCall(ToolCall call) {
                return ToolDecision.block("c.next", "Transfers need a verified identity.", "Call verifyIdentity first.");
            }
            @Override public ResultDecision onToolResult(ToolResult result) { return null; }
            @Override public MessageDecision onUserMessage(Message message) { return null; }
            @Override public MessageDecision onAssistantMessage(Message message) { return null; }
            @Override public void endSession(String sessionId) { }
        };
        Ruling r = new SupervisorBridge(blocking, AgentArguments.parse(""), new JsonCodec(), ConfiguredMethods.none())
                .onToolCall("lc", "s", "pay", "{}", null);
        assertThat(r.text).isEqualTo("tracegate blocked the call to pay (contract c.next): Transfers need a verified identity."
                + " Instead: Call verifyIdentity first.");
    }

    /** An error of the bridge itself is counted by the supervisor too (the MBean's InternalErrors), under the policy applied (finding 7). */
    @Test
    void aBridgeInternalErrorReachesTheSupervisorsCount() {
        java.util.List<Boolean> seen = new java.util.ArrayList<>();
        Supervisor counting = new Supervisor() {
            @Override public ToolDecision onToolCall(ToolCall call) { return ToolDecision.proceed(); }
            @Override public ResultDecision onToolResult(ToolResult result) { return null; }
            @Override public MessageDecision onUserMessage(Message message) { return null; }
            @Override public MessageDecision onAssistantMessage(Message message) { return null; }
            @Override public void endSession(String sessionId) { }
            @Override public void onInternalError(String where, Throwable error, boolean refused) { seen.add(refused); }
        };
        JsonCodec json = new JsonCodec();
        new SupervisorBridge(counting, AgentArguments.parse("fail=closed"), json, ConfiguredMethods.none()).onInternalError("x", new IllegalStateException());
        new SupervisorBridge(counting, AgentArguments.parse("fail=open"), json, ConfiguredMethods.none()).onInternalError("x", new IllegalStateException());
        assertThat(seen).containsExactly(true, false);
    }

    @Test
    void aRedactionIsLoggedByFieldNamesWithoutValues() {
        String line = SupervisorBridge.redactedFields("{\"name\":\"Ada Lovelace\",\"email\":\"ada@example.com\",\"note\":\"call +44 20 7946 0958\"}",
                "{\"name\":\"Ada Lovelace\",\"note\":\"call [phone]\"}");
        org.assertj.core.api.Assertions.assertThat(line).isEqualTo("removed=[email] masked=[note]")
                .doesNotContain("Ada").doesNotContain("example.com");
        org.assertj.core.api.Assertions.assertThat(SupervisorBridge.redactedFields(
                "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\",\"card\":\"4111 1111 1111 1111\"},\"notes\":[\"card 4111 1111 1111 1111\",\"hi\"]}",
                "{\"customer_id\":\"C1\",\"profile\":{\"id\":\"C1\"},\"notes\":[\"hi\"]}"))
                .as("trial9: a nested removal is named by its path, not as the whole argument").isEqualTo("removed=[profile.card, notes.0] masked=[]");
    }
}
