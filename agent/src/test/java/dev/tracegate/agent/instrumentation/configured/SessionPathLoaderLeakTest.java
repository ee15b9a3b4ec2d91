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
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.description.modifier.Visibility;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import org.junit.jupiter.api.Test;

import java.lang.ref.WeakReference;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** review18: a session-param field path keeps no web app's class loader. */
class SessionPathLoaderLeakTest {

    static final class Recording implements Supervisor {
        final List<ToolCall> calls = new ArrayList<>();
        @Override public ToolDecision onToolCall(ToolCall call) { calls.add(call); return ToolDecision.proceed(); }
        @Override public ResultDecision onToolResult(ToolResult result) { return null; }
        @Override public MessageDecision onUserMessage(Message message) { return null; }
        @Override public MessageDecision onAssistantMessage(Message message) { return null; }
        @Override public void endSession(String sessionId) { }
    }

    @Test
    void anUndeployedAppsContextClassIsNotKept() throws Exception {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool example.Vendor#call name=$method session=0.sessionId"));
        Recording r = new Recording();
        SupervisorBridge bridge = new SupervisorBridge(r, AgentArguments.parse(""), new JsonCodec(), m);
        WeakReference<ClassLoader> app = call(m, bridge);
        assertThat(r.calls).extracting(ToolCall::session).containsExactly("s1");
        for (int i = 0; i < 40 && app.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertThat(app.get()).as("the app's loader is collected once the app is dropped").isNull();
        assertThat(m).isNotNull();   // the agent's configured methods live on
    }

    private static WeakReference<ClassLoader> call(ConfiguredMethods m, SupervisorBridge bridge) throws Exception {
        Class<?> ctx = new ByteBuddy().subclass(Object.class).name("example.Ctx").defineField("sessionId", String.class, Visibility.PUBLIC)
                .make().load(SessionPathLoaderLeakTest.class.getClassLoader(), ClassLoadingStrategy.Default.WRAPPER).getLoaded();
        Object c = ctx.getDeclaredConstructor().newInstance();
        ctx.getField("sessionId").set(c, "s1");
        m.onCall("example.Vendor.call(Lexample/Ctx;)Ljava/lang/String;", new Object[] {c}, bridge);
        return new WeakReference<>(ctx.getClassLoader());
    }
}
