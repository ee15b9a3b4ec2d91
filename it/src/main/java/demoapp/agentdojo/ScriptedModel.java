package demoapp.agentdojo;

import demoapp.Console;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;

import java.util.ArrayList;
import java.util.List;

/**
 * A chat model that answers turn by turn with a recorded run's assistant messages (text and tool
 * calls), whatever the tools returned: a refused call does not change the recorded continuation.
 * It reports every tool result that differs from the recording, so a caller sees what was withheld
 * or replaced. One run plays at a time (the app drives runs one after another).
 */
final class ScriptedModel implements ChatModel {
    private final long slowTurnMillis;
    private volatile RecordedRun run;

    /** A model that takes {@code slowTurnMillis} to answer each run's second turn (0: answers at once). */
    ScriptedModel(long slowTurnMillis) {
        this.slowTurnMillis = slowTurnMillis;
    }

    void play(RecordedRun run) {
        this.run = run;
    }

    @Override
    public ChatResponse doChat(ChatRequest request) {
        RecordedRun r = run;
        List<ChatMessage> messages = request.messages();
        int turn = 0;
        for (ChatMessage m : messages) if (m instanceof AiMessage) turn++;
        if (turn > 0) reportResults(r, r.turns().get(turn - 1), messages);
        if (turn >= r.turns().size()) {
            throw new IllegalStateException("run " + r.id() + " (" + r.file() + ") has " + r.turns().size()
                    + " assistant turns but the framework asked for turn " + (turn + 1));
        }
        if (turn == 1 && slowTurnMillis > 0) {
            Console.line("MODEL SLOW run=" + r.id() + ": answering turn 2 after " + slowTurnMillis + " ms");
            try {
                Thread.sleep(slowTurnMillis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while the model was slow", e);
            }
        }
        RecordedRun.Turn t = r.turns().get(turn);
        List<ToolExecutionRequest> requests = new ArrayList<>();
        for (RecordedRun.Call c : t.calls()) {
            requests.add(ToolExecutionRequest.builder().id(c.id()).name(c.tool()).arguments(c.arguments()).build());
        }
        AiMessage answer;
        if (requests.isEmpty()) {
            if (t.text() == null) throw new IllegalStateException("run " + r.id() + ": turn " + (turn + 1) + " has neither text nor tool calls");
            answer = AiMessage.from(t.text());
        } else {
            answer = t.text() == null ? AiMessage.from(requests) : AiMessage.from(t.text(), requests);
        }
        return ChatResponse.builder().aiMessage(answer).build();
    }

    /** The results at the end of the conversation answer the previous turn's calls, in order. */
    private static void reportResults(RecordedRun r, RecordedRun.Turn previous, List<ChatMessage> messages) {
        int n = previous.calls().size();
        if (n == 0) return;
        int first = messages.size() - n;
        for (int i = 0; i < n; i++) {
            RecordedRun.Call c = previous.calls().get(i);
            ChatMessage m = first + i >= 0 ? messages.get(first + i) : null;
            if (!(m instanceof ToolExecutionResultMessage result) || !c.id().equals(result.id())) {
                throw new IllegalStateException("run " + r.id() + ": expected the result of call " + c.id() + " (" + c.tool()
                        + ") in the conversation, found " + m);
            }
            if (!c.seen().equals(result.text())) {
                Console.line("MODEL SAW run=" + r.id() + " call=" + c.ordinal() + " tool=" + c.tool() + ": " + oneLine(result.text()));
            }
        }
    }

    static String oneLine(String text) {
        return text == null ? "null" : text.replace('\n', ' ').replace('\r', ' ');
    }
}
