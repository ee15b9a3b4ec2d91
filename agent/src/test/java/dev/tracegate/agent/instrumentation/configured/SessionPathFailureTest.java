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
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 09: a {@code session-param} field path whose getter throws at a call put the call in the shared session
 * {@code default}, under {@code fail: closed} too, and the ERROR showed only {@code InvocationTargetException} with the
 * advice to name a getter that existed. The failure policy decides, the call counts as an internal error, and the ERROR
 * shows the getter's own exception.
 */
class SessionPathFailureTest {

    /** A vendor's context whose getter throws when no session is bound. */
    public static final class Ctx {
        private final String sid;
        private final boolean broken;

        Ctx(String sid, boolean broken) {
            this.sid = sid;
            this.broken = broken;
        }

        public String getSessionId() {
            if (broken) throw new IllegalStateException("no session bound to this context");
            return sid;
        }
    }

    private static final String LOOKUP = "example.Tools.lookup(L" + Ctx.class.getName().replace('.', '/') + ";Ljava/lang/String;)Ljava/lang/String;";

    private static final class Recording implements Supervisor {
        final List<ToolCall> calls = new ArrayList<>();
        final List<Boolean> internalErrors = new ArrayList<>();

        @Override public ToolDecision onToolCall(ToolCall call) { calls.add(call); return ToolDecision.proceed(); }
        @Override public ResultDecision onToolResult(ToolResult result) { return null; }
        @Override public MessageDecision onUserMessage(Message message) { return null; }
        @Override public MessageDecision onAssistantMessage(Message message) { return null; }
        @Override public void endSession(String sessionId) { }
        @Override public void onInternalError(String where, Throwable error, boolean refused) { internalErrors.add(refused); }
    }

    @Test
    void underFailClosedACallWhoseSessionGetterThrowsIsRefusedAndTheErrorShowsTheGettersException() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool example.Tools#lookup session=0.sessionId"));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse("fail=closed"), new JsonCodec(), m);
        Ruling[] rulings = new Ruling[3];
        String log = SubjectParametersTest.captured(() -> {
            rulings[0] = m.onCall(LOOKUP, new Object[] {new Ctx("s1", false), "bob"}, bridge);
            rulings[1] = m.onCall(LOOKUP, new Object[] {new Ctx("s1", true), "bob"}, bridge);
            rulings[2] = m.onCall(LOOKUP, new Object[] {new Ctx("s1", true), "cy"}, bridge);
        });
        assertThat(rulings[0]).isNull();
        assertThat(rulings[1]).isNotNull();
        assertThat(rulings[1].kind).isEqualTo(Ruling.SUBSTITUTE);
        assertThat(rulings[1].text).contains("refused because fail=closed");
        assertThat(rulings[2].kind).as("each such call, not only the first").isEqualTo(Ruling.SUBSTITUTE);
        assertThat(r.calls).extracting(ToolCall::session).as("no call in the shared session default").containsExactly("s1");
        assertThat(r.internalErrors).containsExactly(true, true);
        assertThat(bridge.counts()[SupervisorBridge.INTERNAL_ERRORS]).isEqualTo(2);
        assertThat(log).contains("ERROR configured method example.Tools.lookup (m.txt:1): session-param '0.sessionId' could not be read:"
                        + " getSessionId() of a " + Ctx.class.getName() + " threw java.lang.IllegalStateException: no session bound to this context")
                .contains("the call was refused (fail: closed)")
                .doesNotContain("InvocationTargetException");
        assertThat(log.split("ERROR", -1)).as("said once per method").hasSize(2);
    }

    @Test
    void underFailOpenSuchACallIsInTheSessionDefaultAndCounted() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool example.Tools#lookup session=0.sessionId"));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse("fail=open"), new JsonCodec(), m);
        String log = SubjectParametersTest.captured(() -> assertThat(m.onCall(LOOKUP, new Object[] {new Ctx("s1", true), "bob"}, bridge)).isNull());
        assertThat(r.calls).extracting(ToolCall::session).containsExactly("default");
        assertThat(r.internalErrors).containsExactly(false);
        assertThat(log).contains("no session bound to this context").contains("the call is in the session default (fail: open)");
    }

    /** A context whose conversation id only a getter gives (Google ADK's ToolContext#sessionId()): its fields are others. */
    public static final class ToolContext {
        private final Object functionCallId = "f1";
        private final Object toolConfirmation = null;

        public String sessionId() {
            return "s1";
        }

        public String getAgentName() {
            return "a";
        }
    }

    /** trial46 08: a misspelt step got no did-you-mean where the name it meant is a getter's, not a field's. */
    @Test
    void aMisspeltStepIsMatchedAgainstTheGettersToo() {
        String problem = ConfiguredMethods.PathStep.of(ToolContext.class, "sesionId").problem;
        assertThat(problem).isEqualTo("a " + ToolContext.class.getName() + " has no field or getter sesionId (did you mean 'sessionId'?);"
                + " its fields are functionCallId, toolConfirmation; its getters give agentName, sessionId");
    }

    @Test
    void theWeaveTimeCheckOfTheDeclaredTypeSuggestsAGetterToo() {
        assertThat(ConfiguredMethods.pathProblem(net.bytebuddy.description.type.TypeDescription.ForLoadedType.of(ToolContext.class),
                new String[] {"0", "sesionId"})).isEqualTo("a " + ToolContext.class.getName() + " has no field or getter sesionId"
                + " (did you mean 'sessionId'?); its fields are functionCallId, toolConfirmation; its getters give agentName, sessionId");
    }
}
