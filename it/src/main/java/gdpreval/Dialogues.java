package gdpreval;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.ChatMemory;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;
import dev.langchain4j.service.UserMessage;

import java.io.BufferedReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Plays scripted dialogues against one case study's LangChain4j AI service: {@code main(case, script)}.
 * The script is JSONL, one dialogue a line: {@code {"id": ..., "turns": [{"user": ..., "calls":
 * [{"tool": ..., "args": {...}}], "answer": "... {last} ..."}]}}. The scripted model stands in for the
 * LLM: in each turn it asks for the planned tool calls one after another, whatever came back, then
 * answers with the turn's answer, {@code {last}} replaced by the last tool result it saw. Each
 * dialogue is one chat memory id, so one supervised session.
 */
public final class Dialogues {

    interface Agent {
        String chat(@MemoryId String session, @UserMessage String message);
    }

    /** The agent's side of one turn: the planned calls, then the answer. */
    static final class ScriptedModel implements ChatModel {
        private final List<ToolExecutionRequest> plan;
        private final String answer;
        private final AtomicInteger next = new AtomicInteger();

        ScriptedModel(List<ToolExecutionRequest> plan, String answer) {
            this.plan = plan;
            this.answer = answer;
        }

        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage lastMessage = messages.get(messages.size() - 1);
            String last = "";
            if (lastMessage instanceof ToolExecutionResultMessage r) {
                last = r.text();
                ToolLog.text("seen", r.toolName(), r.text());
            }
            int i = next.getAndIncrement();
            if (i < plan.size()) return ChatResponse.builder().aiMessage(AiMessage.from(List.of(plan.get(i)))).build();
            return ChatResponse.builder().aiMessage(AiMessage.from(answer.replace("{last}", last))).build();
        }
    }

    private Dialogues() {
    }

    /** The tools object of a case study by name. */
    static Object tools(String caseName) {
        return switch (caseName) {
            case "shopper" -> new Shopper();
            case "airline" -> new Airline();
            case "medagent" -> new MedAgent();
            case "finassist" -> new FinAssist();
            default -> throw new IllegalArgumentException("unknown case study '" + caseName
                    + "': use shopper, airline, medagent or finassist");
        };
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 2) throw new IllegalArgumentException("usage: Dialogues <case> <script.jsonl> (and -Dgdpreval.log=<file>)");
        Object tools = tools(args[0]);
        String log = System.getProperty("gdpreval.log");
        if (log == null) throw new IllegalArgumentException("set -Dgdpreval.log=<file> for the tool log");
        ToolLog.open(Path.of(log));
        ObjectMapper json = new ObjectMapper();
        Map<Object, ChatMemory> memories = new HashMap<>();
        AtomicInteger ids = new AtomicInteger();
        int dialogues = 0;
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[1]), StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                if (line.isBlank()) continue;
                JsonNode d = json.readTree(line);
                String id = d.get("id").asText();
                ToolLog.session(id);
                for (JsonNode turn : d.get("turns")) {
                    List<ToolExecutionRequest> plan = new ArrayList<>();
                    for (JsonNode c : turn.path("calls")) {
                        plan.add(ToolExecutionRequest.builder().id("call-" + ids.incrementAndGet())
                                .name(c.get("tool").asText()).arguments(c.get("args").toString()).build());
                    }
                    Agent agent = AiServices.builder(Agent.class)
                            .chatModel(new ScriptedModel(plan, turn.path("answer").asText("Done. {last}")))
                            .tools(tools)
                            .chatMemoryProvider(m -> memories.computeIfAbsent(m, k -> MessageWindowChatMemory.withMaxMessages(100)))
                            .build();
                    String user = turn.get("user").asText();
                    ToolLog.text("user", null, user);
                    String answer;
                    try {
                        answer = agent.chat(id, user);
                    } catch (RuntimeException e) {
                        answer = "(the agent stopped: " + e.getMessage() + ")";
                    }
                    ToolLog.text("answer", null, answer);
                }
                memories.remove(id);
                dialogues++;
            }
        } finally {
            ToolLog.close();
        }
        System.out.println("played " + dialogues + " dialogues of " + args[0]);
    }
}
