package dev.tracegate.agent.instrumentation.configured;

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

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 11: an entry on a framework's concrete base-class method that every tool overrides (Google ADK's
 * {@code BaseTool#runAsync}) wove the base body, which never ran, and supervised nothing, silently. At exit such an entry,
 * whose woven methods were never called while loaded subclasses override them, is said with the subclasses to name.
 */
class OverridingSubclassesTest {

    public static class BaseTool {
        public String runAsync(String args, String session) {
            return "base";
        }

        public final String name() {
            return "t";
        }
    }

    public static class FunctionTool extends BaseTool {
        @Override
        public String runAsync(String args, String session) {
            return "function";
        }
    }

    public static class PayTool extends FunctionTool {
        @Override
        public String runAsync(String args, String session) {
            return "pay";
        }

        public String runAsync(String args) {   // an overload, not an override
            return "other";
        }
    }

    public static class PlainTool extends BaseTool {
    }

    private static final Class<?>[] LOADED = {BaseTool.class, FunctionTool.class, PayTool.class, PlainTool.class, String.class};

    @Test
    void anEntryWhoseWovenBaseMethodNeverRanWhileSubclassesOverrideItIsSaidWithTheSubclasses() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + BaseTool.class.getName() + "#runAsync session=1"));
        MethodRule rule = m.rules().get(0);
        assertThat(m.findToWeave(BaseTool.class.getName(), "runAsync", false)).isSameAs(rule);   // woven, as the weaver does
        String base = BaseTool.class.getName();
        assertThat(Overrides.warning(rule, () -> LOADED)).isEqualTo("configured-methods entry m.txt:1 (tool, class " + base
                + ", method runAsync) wove " + base + "#runAsync, which was never called, while loaded subclasses override it: "
                + FunctionTool.class.getName() + "#runAsync, " + PayTool.class.getName() + "#runAsync. Their calls ran their own bodies"
                + " and were NOT supervised: an entry weaves only the methods of the class it names, not the overriding methods of"
                + " its subclasses. Name the subclass instead (class: " + FunctionTool.class.getName() + "; one entry per class), or a"
                + " class glob that matches the subclasses (with tool-name: \"$class\" to tell them apart)");
    }

    @Test
    void nothingIsSaidOnceAWovenMethodRanOrWhenNoSubclassOverridesIt() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + BaseTool.class.getName() + "#runAsync session=1",
                "tool " + BaseTool.class.getName() + "#name session=0"));
        m.findToWeave(BaseTool.class.getName(), "runAsync", false);
        assertThat(Overrides.warning(m.rules().get(1), () -> LOADED)).as("a final method cannot be overridden").isNull();
        assertThat(Overrides.warning(m.rules().get(0), () -> new Class<?>[] {BaseTool.class, PlainTool.class})).isNull();
        Supervisor quiet = new Supervisor() {
            @Override public ToolDecision onToolCall(ToolCall call) { return ToolDecision.proceed(); }
            @Override public ResultDecision onToolResult(ToolResult result) { return null; }
            @Override public MessageDecision onUserMessage(Message message) { return null; }
            @Override public MessageDecision onAssistantMessage(Message message) { return null; }
            @Override public void endSession(String sessionId) { }
        };
        SupervisorBridge bridge = new SupervisorBridge(quiet, AgentArguments.parse(""), new JsonCodec(), m);
        assertThat(m.rules().get(0).ran).isFalse();
        m.onCall(BaseTool.class.getName() + ".runAsync(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;", new Object[] {"{}", "s1"}, bridge);
        assertThat(m.rules().get(0).ran).as("a call of the woven method: the entry acted, nothing to say").isTrue();
    }

    @Test
    void aGlobEntryIsNotJudgedSoSinceItWeavesEveryClassItMatches() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool " + OverridingSubclassesTest.class.getName() + "$*#runAsync session=1"));
        assertThat(Overrides.warning(m.rules().get(0), () -> LOADED)).isNull();
    }
}
