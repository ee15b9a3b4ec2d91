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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * trial46 12: a glob entry ({@code method: "*"}) with {@code args-param: args} over {@code updateNote(session, Map args)} and
 * {@code fetchAsync(session, url)}: every {@code fetchAsync} call's arguments were the literal {@code {"value":"args"}}, so
 * no contract could read {@code url}. A method whose recorded parameters lack the name gets all its parameters by name.
 */
class GlobArgsParamTest {

    @Test
    void aMethodWithoutTheArgsParamsNameGetsAllItsParametersNotALiteral() {
        ConfiguredMethods m = ConfiguredMethods.parse("m.txt", List.of("tool example.Tools#* session=session args=args"));
        String fetch = "fetchAsync(Ljava/lang/String;Ljava/lang/String;)Ljava/lang/String;";
        String update = "updateNote(Ljava/lang/String;Ljava/util/Map;)Ljava/lang/String;";
        SubjectParametersTest.captured(() -> m.learnParameterNames("example.Tools",
                Map.of(fetch, new String[] {"session", "url"}, update, new String[] {"session", "args"})));
        List<ToolCall> calls = new ArrayList<>();
        Supervisor recording = new Supervisor() {
            @Override public ToolDecision onToolCall(ToolCall call) { calls.add(call); return ToolDecision.proceed(); }
            @Override public ResultDecision onToolResult(ToolResult result) { return null; }
            @Override public MessageDecision onUserMessage(Message message) { return null; }
            @Override public MessageDecision onAssistantMessage(Message message) { return null; }
            @Override public void endSession(String sessionId) { }
        };
        SupervisorBridge bridge = new SupervisorBridge(recording, AgentArguments.parse(""), new JsonCodec(), m);
        m.onCall("example.Tools." + fetch, new Object[] {"s1", "https://a.example"}, bridge);
        m.onCall("example.Tools." + update, new Object[] {"s1", Map.of("note", "hi")}, bridge);
        assertThat(calls).extracting(ToolCall::session).containsExactly("s1", "s1");
        assertThat(calls.get(0).argumentsJson()).isEqualTo("{\"url\":\"https://a.example\"}");
        assertThat(calls.get(1).argumentsJson()).as("the method that has it: its Map's keys").isEqualTo("{\"note\":\"hi\"}");
    }
}
