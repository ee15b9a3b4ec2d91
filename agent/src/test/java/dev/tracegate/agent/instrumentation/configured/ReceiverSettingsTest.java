package dev.tracegate.agent.instrumentation.configured;

import dev.tracegate.agent.bootstrap.Ruling;
import dev.tracegate.agent.core.AgentArguments;
import dev.tracegate.agent.core.JsonCodec;
import dev.tracegate.agent.core.Message;
import dev.tracegate.agent.core.MessageDecision;
import dev.tracegate.agent.core.ResultDecision;
import dev.tracegate.agent.core.Supervisor;
import dev.tracegate.agent.core.SupervisorBridge;
import dev.tracegate.agent.core.ToolCall;
import dev.tracegate.agent.core.ToolDecision;
import dev.tracegate.agent.core.ToolResult;
import net.bytebuddy.description.method.MethodDescription;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * {@code this}, the object a configured method is called on, as a root the settings read (session 23): trial46 06, the
 * Anthropic SDK's BetaToolRunner calls {@code Supplier<String>#get()} on a tool object whose fields hold the model's input
 * (the arguments were {@code {}}, and {@code G !call(send_email, "evil")} let the mail to evil through); trial46 07, a
 * {@code tool-name} field path ({@code 0.name}) on a method that receives a tool object (ADK's {@code Functions.callTool}).
 */
class ReceiverSettingsTest {

    /** A command-pattern tool: the framework fills its fields from the model's input, then calls get(). */
    public static final class SendEmail implements Supplier<String> {
        public String to;
        public String body;
        private final Conversation conversation;
        private final String name;

        SendEmail(String name, String conversation, String to, String body) {
            this.name = name;
            this.conversation = new Conversation(conversation);
            this.to = to;
            this.body = body;
        }

        @Override
        public String get() {
            return "sent to " + to;
        }

        public static String helper() {
            return "static";
        }
    }

    /** The conversation a tool object carries: its id only through a getter. */
    public static final class Conversation {
        private final String key;

        Conversation(String key) {
            this.key = key;
        }

        public String getId() {
            return key;
        }
    }

    /** What ADK's BaseTool is to Functions.callTool: the tool object, whose name() names the tool. */
    public static final class Tool {
        private final String label;
        private final Conversation home = new Conversation("h");

        Tool(String label) {
            this.label = label;
        }

        public String name() {
            return label;
        }
    }

    private static final String GET = SendEmail.class.getName() + ".get()Ljava/lang/Object;";
    private static final String CALL_TOOL = "r.Functions.callTool(Lr/Tool;Ljava/util/Map;)Ljava/lang/String;";

    private static class Recording implements Supervisor {
        final List<ToolCall> calls = new ArrayList<>();
        final List<ToolResult> results = new ArrayList<>();

        @Override public ToolDecision onToolCall(ToolCall call) { calls.add(call); return ToolDecision.proceed(); }
        @Override public ResultDecision onToolResult(ToolResult result) { results.add(result); return null; }
        @Override public MessageDecision onUserMessage(Message message) { return null; }
        @Override public MessageDecision onAssistantMessage(Message message) { return null; }
        @Override public void endSession(String sessionId) { }
    }

    /**
     * args-param: this makes the receiver's fields the arguments (as a parameter object's are); session-param and tool-name
     * read paths from this (a getter on the way too); the RETURN is in the same session under the same tool.
     */
    @Test
    void theReceiversFieldsAreTheArgumentsAndItsPathsTheSessionAndTheTool() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + SendEmail.class.getName()
                + "#get name=this.name args=this session=this.conversation.id"));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse("fail=closed"), new JsonCodec(), m);
        SendEmail ada = new SendEmail("send_email", "conv-A", "ada@example.com", "hi");
        SendEmail eve = new SendEmail("send_email", "conv-B", "eve@evil.example", "hi");
        assertThat(m.onCall(GET, ada, new Object[0], "tg-1", bridge)).isNull();
        assertThat(m.onCall(GET, eve, new Object[0], "tg-2", bridge)).isNull();
        assertThat(r.calls).extracting(ToolCall::argumentsJson).containsExactly(
                "{\"to\":\"ada@example.com\",\"body\":\"hi\",\"conversation\":{\"key\":\"conv-A\"},\"name\":\"send_email\"}",
                "{\"to\":\"eve@evil.example\",\"body\":\"hi\",\"conversation\":{\"key\":\"conv-B\"},\"name\":\"send_email\"}");
        assertThat(r.calls).extracting(ToolCall::session).containsExactly("conv-A", "conv-B");
        assertThat(r.calls).extracting(ToolCall::tool).containsExactly("send_email", "send_email");
        m.onResult(GET, eve, new Object[0], "sent", "tg-2", bridge);
        assertThat(r.results).singleElement().satisfies(res -> {
            assertThat(res.session()).isEqualTo("conv-B");
            assertThat(res.tool()).isEqualTo("send_email");
        });
        // a path from this as the arguments: the value there, read as an args-param value is
        ConfiguredMethods path = ConfiguredMethods.parse("m.txt", List.of("tool " + SendEmail.class.getName() + "#get args=this.conversation"));
        Recording p = new Recording();
        path.onCall(GET, ada, new Object[0], "tg-3", new SupervisorBridge(p, AgentArguments.parse(""), new JsonCodec(), path));
        assertThat(p.calls).singleElement().extracting(ToolCall::argumentsJson).isEqualTo("{\"key\":\"conv-A\"}");
    }

    /** A redaction cannot rewrite the receiver's fields: the call is refused rather than run with what was to be removed. */
    @Test
    void aRedactionOfTheReceiversFieldsRefusesTheCall() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + SendEmail.class.getName() + "#get args=this"));
        Recording r = new Recording() {
            @Override public ToolDecision onToolCall(ToolCall call) {
                calls.add(call);
                return ToolDecision.redact("c1", "no body", "{\"to\":\"ada@example.com\"}");
            }
        };
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse(""), new JsonCodec(), m);
        Ruling ruling = m.onCall(GET, new SendEmail("send_email", "c", "ada@example.com", "secret"), new Object[0], "tg-1", bridge);
        assertThat(ruling).isNotNull();
        assertThat(ruling.kind).isNotEqualTo(Ruling.REWRITE);
        assertThat(ruling.text).contains("the call did not run");
    }

    /**
     * trial46 07: tool-name as a field path, from an index or a parameter's name, read at each call; a literal with a dot
     * whose first part names no parameter stays the literal it was.
     */
    @Test
    void aToolNamePathIsReadAtEachCallAndADottedLiteralStaysALiteral() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool r.Functions#callTool name=tool.name args=1",
                "tool r.Github#call name=github.create_issue args=1"));
        m.learnParameterNames("r.Functions", Map.of("callTool(Lr/Tool;Ljava/util/Map;)Ljava/lang/String;", new String[] {"tool", "args"}));
        m.learnParameterNames("r.Github", Map.of("call(Lr/Tool;Ljava/util/Map;)Ljava/lang/String;", new String[] {"tool", "args"}));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse(""), new JsonCodec(), m);
        m.onCall(CALL_TOOL, null, new Object[] {new Tool("lookup"), Map.of("customer", "ada")}, "tg-1", bridge);
        m.onCall(CALL_TOOL, null, new Object[] {new Tool("pay"), Map.of("to", "bob")}, "tg-2", bridge);
        m.onCall("r.Github.call(Lr/Tool;Ljava/util/Map;)Ljava/lang/String;", null, new Object[] {new Tool("x"), Map.of()}, "tg-3", bridge);
        assertThat(r.calls).extracting(ToolCall::tool).containsExactly("lookup", "pay", "github.create_issue");
        ConfiguredMethods byIndex = ConfiguredMethods.parse("m.txt", List.of("tool r.Functions#callTool name=0.name args=1"));
        Recording i = new Recording();
        byIndex.onCall(CALL_TOOL, null, new Object[] {new Tool("lookup"), Map.of()}, "tg-4",
                new SupervisorBridge(i, AgentArguments.parse(""), new JsonCodec(), byIndex));
        assertThat(i.calls).extracting(ToolCall::tool).containsExactly("lookup");
    }

    /**
     * A tool-name path that gives no name (null, an object that is not text) is an internal error decided by fail: closed
     * refuses the call, open supervises it as the method's name; one ERROR per method says why.
     */
    @Test
    void aToolNamePathThatGivesNoNameIsDecidedByFail() {
        ConfiguredMethods closed = ConfiguredMethods.parse("m.txt", List.of("tool r.Functions#callTool name=0.name args=1"));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse("fail=closed"), new JsonCodec(), closed);
        Ruling[] ruling = new Ruling[2];
        String log = SubjectParametersTest.captured(() -> {
            ruling[0] = closed.onCall(CALL_TOOL, null, new Object[] {new Tool(null), Map.of()}, "tg-1", bridge);
            ruling[1] = closed.onCall(CALL_TOOL, null, new Object[] {new Tool(null), Map.of()}, "tg-2", bridge);
        });
        assertThat(ruling[0]).as("refused under fail: closed").isNotNull();
        assertThat(ruling[0].text).contains("could not check the tool name of r.Functions.callTool (tool-name '0.name')");
        assertThat(r.calls).isEmpty();
        assertThat(log).contains("ERROR configured method r.Functions.callTool (m.txt:1): tool-name '0.name' gave no tool name: it gave"
                + " null, so the call was refused (fail: closed)");
        assertThat(log.split("gave no tool name", -1)).as("one ERROR per method").hasSize(2);

        ConfiguredMethods open = ConfiguredMethods.parse("m.txt", List.of("tool r.Functions#callTool name=0.home args=1"));
        Recording o = new Recording();
        SupervisorBridge openBridge = new SupervisorBridge(o, AgentArguments.parse("fail=open"), new JsonCodec(), open);
        Ruling[] let = new Ruling[1];
        String openLog = SubjectParametersTest.captured(() ->
                let[0] = open.onCall(CALL_TOOL, null, new Object[] {new Tool("pay"), Map.of()}, "tg-3", openBridge));
        assertThat(let[0]).isNull();
        assertThat(o.calls).extracting(ToolCall::tool).containsExactly("callTool");
        assertThat(openLog).contains("tool-name '0.home' gave no tool name: it gave a " + Conversation.class.getName() + ", not text")
                .doesNotContain("gave a java.lang.String");
    }

    /** A step the receiver's class lacks is an ERROR when the method is woven, with the nearest name among fields and getters. */
    @Test
    void aMisspeltStepFromThisIsSaidWhenWovenWithTheNearestName() throws Exception {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + SendEmail.class.getName()
                + "#get session=this.conversaton.id"));
        MethodDescription get = new MethodDescription.ForLoadedMethod(SendEmail.class.getDeclaredMethod("get"));
        String log = SubjectParametersTest.captured(() -> m.warnAboutParameterTypes(SendEmail.class.getName(), get));
        assertThat(log).contains("ERROR configured method " + SendEmail.class.getName() + "#get (m.txt:1): session-param"
                + " 'this.conversaton.id' cannot be read: a " + SendEmail.class.getName() + " has no field or getter conversaton (did you"
                + " mean 'conversation'?)");
        ConfiguredMethods right = ConfiguredMethods.parse("m.txt", List.of("tool " + SendEmail.class.getName()
                + "#get session=this.conversation.id args=this"));
        assertThat(SubjectParametersTest.captured(() -> {
            right.warnAboutParameterTypes(SendEmail.class.getName(), get);
            right.warnAboutNoParameters(SendEmail.class.getName(), get);
        })).as("a path that reads (a getter at its end), and no no-parameter WARN with args-param: this").isEmpty();
    }

    /**
     * A static method has no object it is called on: an exact-class entry whose methods are all static stops the start; one
     * found only when woven (a glob) gets an ERROR.
     */
    @Test
    void thisOnAStaticMethodStopsTheStartOrIsSaidWhenWoven() throws Exception {
        String name = SendEmail.class.getName();
        ConfiguredMethods exact = ConfiguredMethods.parse("m.txt", List.of("tool " + name + "#helper args=this"));
        assertThatThrownBy(() -> exact.checkSuspendParameters(getClass().getClassLoader()))
                .hasMessageContaining("configured-methods entry m.txt:1 (tool, class " + name + ", method helper): args-param 'this' reads"
                        + " this, the object the method is called on, but " + name + "#helper is static, so no call has one");
        ConfiguredMethods instance = ConfiguredMethods.parse("m.txt", List.of("tool " + name + "#get args=this"));
        instance.checkSuspendParameters(getClass().getClassLoader());   // an instance method: starts
        ConfiguredMethods glob = ConfiguredMethods.parse("m.txt", List.of("tool " + name.replace("SendEmail", "Send*") + "#helper session=this.x"));
        MethodDescription helper = new MethodDescription.ForLoadedMethod(SendEmail.class.getDeclaredMethod("helper"));
        assertThat(SubjectParametersTest.captured(() -> glob.warnAboutParameterTypes(name, helper)))
                .contains("session-param 'this.x' reads this, the object the method is called on, but " + name + "#helper is static: there"
                        + " is none, so its calls are in the session default");
    }

    /** A tool-name or args-param path from an index the method does not have stays the literal, said when woven. */
    @Test
    void aPathFromAParameterTheMethodLacksIsSaidWhenWoven() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool r.Functions#callTool name=5.name args=7.input"));
        String log = SubjectParametersTest.captured(() -> m.learnParameterNames("r.Functions",
                Map.of("callTool(Lr/Tool;Ljava/util/Map;)Ljava/lang/String;", new String[] {"tool", "args"})));
        assertThat(log).contains("configured method r.Functions#callTool (m.txt:1): tool-name '5.name' reads as a field path, but the"
                + " method has 2 parameters, so every call is the literal tool '5.name'")
                .contains("args-param '7.input' reads as a field path, but the method has 2 parameters");
    }

    /** The settings as the configuration file is read: this and paths where they are read, refused where they are not. */
    @Test
    void theFileAcceptsThisAndPathsWhereTheyAreReadAndRefusesThemElsewhere() {
        ConfiguredMethods.parse("m.txt", List.of("tool a.B#c args=this session=this.conversation.id name=this.name",
                "tool a.B#d args=this.input name=0.name", "tool a.B#e args=1.amount name=tool.name"));
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("erasure a.B#forget subject=this.email")))
                .hasMessageContaining("subject 'this.email' names the object the method is called on (this), which only args-param,"
                        + " session-param and tool-name read");
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B#c name=0.")))
                .hasMessageContaining("name '0.' starts like a field path");
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B#c args=this.")))
                .hasMessageContaining("args 'this.' starts like a field path");
        assertThatThrownBy(() -> ConfiguredMethods.parse("m.txt", List.of("tool a.B#c exclude=this")))
                .hasMessageContaining("exclude 'this' names the object the method is called on");
    }
}
