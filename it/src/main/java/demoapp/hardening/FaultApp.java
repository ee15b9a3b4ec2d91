package demoapp.hardening;

import demoapp.Console;
import dev.langchain4j.agent.tool.Tool;
import dev.langchain4j.agent.tool.ToolExecutionRequest;
import dev.langchain4j.data.message.AiMessage;
import dev.langchain4j.data.message.ChatMessage;
import dev.langchain4j.data.message.ToolExecutionResultMessage;
import dev.langchain4j.memory.chat.MessageWindowChatMemory;
import dev.langchain4j.model.chat.ChatModel;
import dev.langchain4j.model.chat.request.ChatRequest;
import dev.langchain4j.model.chat.response.ChatResponse;
import dev.langchain4j.service.AiServices;
import dev.langchain4j.service.MemoryId;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.TabularData;

/**
 * An application for fault injection: runs the commands given as arguments, in order, and prints
 * what the host saw. It imports nothing of tracegate and reads the agent's counters only through
 * the platform MBean server, by name. Commands:
 * <ul>
 *   <li>{@code call:<tool>:<session>:<json>}: one call of a configured tool method; prints
 *       {@code RESULT <tool>: <what it returned>} or {@code HOST CAUGHT <exception>};</li>
 *   <li>{@code calls:<tool>:<n>}: n calls over three sessions; prints {@code RAN <k> ANSWERED <n>}
 *       (tool bodies that ran, calls that returned) and the first refusal text;</li>
 *   <li>{@code ship:<session>}: a configured tool whose argument cannot be turned into JSON;</li>
 *   <li>{@code lc4j-throwing-tool}: a LangChain4j conversation whose tool throws;</li>
 *   <li>{@code await:<file>}: waits until the file exists (the test's signal to go on);</li>
 *   <li>{@code metrics}: prints {@code METRIC <name>=<value>} for the MBean {@code dev.tracegate:type=Supervisor}.</li>
 * </ul>
 */
public final class FaultApp {
    static final AtomicLong RAN = new AtomicLong();

    /** Configured tool methods (the test's methods file names them). */
    public static final class Tools {
        public String charge(String session, String json) {
            if (json.contains("decline")) throw new IllegalStateException("card declined by the host's payment service");
            RAN.incrementAndGet();
            return "charged " + json;
        }

        /** Fails with an exception whose message cannot be read: reporting it fails inside the agent. */
        public String refund(String session, String json) {
            throw new UnreadableException();
        }

        public String deleteAccount(String session, String json) {
            RAN.incrementAndGet();
            Console.line("TOOL delete_account ran session=" + session);
            return "deleted " + json;
        }

        public String ship(String session, Parcel parcel) {
            RAN.incrementAndGet();
            Console.line("TOOL ship ran session=" + session);
            return "shipped";
        }

        public String transfer(String session, String json) {
            RAN.incrementAndGet();
            Console.line("TOOL transfer ran session=" + session);
            return "transferred " + json;
        }
    }

    /** A host exception whose {@code getMessage} fails, as a broken exception type of a host library might. */
    public static final class UnreadableException extends RuntimeException {
        @Override
        public String getMessage() {
            throw new UnsupportedOperationException("this exception's message cannot be read");
        }
    }

    /**
     * A host collection the agent turns into JSON arguments whose elements cannot be read (its {@code get} fails), so
     * the agent cannot write it at all. (The agent reads a collection through its own iterator, but calls no getter of
     * a bean since trial14, so a failing getter no longer makes a value unwritable.)
     */
    public static final class Parcel extends java.util.AbstractList<String> {
        @Override
        public String get(int index) { throw new IllegalStateException("label printer offline"); }

        @Override
        public int size() { return 2; }
    }

    /** An escalation approver (named by {@code escalate.approver}) that fails on every request. */
    public static final class ThrowingApprover {
        public boolean approve(Map<String, String> request) {
            throw new IllegalStateException("approver backend is down");
        }
    }

    /** A LangChain4j tool that fails. */
    public static final class PaymentTools {
        @Tool("Charge a card")
        public String chargeCard(String card) {
            Console.line("TOOL chargeCard ran card=" + card);
            throw new IllegalStateException("card declined by the host's payment service");
        }
    }

    interface Assistant {
        String chat(@MemoryId String user, @dev.langchain4j.service.UserMessage String message);
    }

    /** Asks for chargeCard once, then reports the tool result it saw. */
    static final class ScriptedModel implements ChatModel {
        @Override
        public ChatResponse doChat(ChatRequest request) {
            List<ChatMessage> messages = request.messages();
            ChatMessage last = messages.get(messages.size() - 1);
            if (last instanceof ToolExecutionResultMessage r) {
                Console.line("MODEL SAW TOOL RESULT " + r.toolName() + ": " + r.text());
                return ChatResponse.builder().aiMessage(AiMessage.from("done")).build();
            }
            return ChatResponse.builder().aiMessage(AiMessage.from(List.of(
                    ToolExecutionRequest.builder().id("c1").name("chargeCard").arguments("{\"card\":\"4111\"}").build()))).build();
        }
    }

    public static void main(String[] args) throws Exception {
        Tools tools = new Tools();
        for (String command : args) {
            String[] c = command.split(":", 4);
            switch (c[0]) {
                case "call" -> call(tools, c[1], c[2], c[3]);
                case "calls" -> calls(tools, c[1], Integer.parseInt(c[2]));
                case "ship" -> {
                    try {
                        Console.line("RESULT ship: " + tools.ship(c[1], new Parcel()));
                    } catch (RuntimeException e) {
                        Console.line("HOST CAUGHT " + e.getClass().getName() + ": " + e.getMessage());
                    }
                }
                case "lc4j-throwing-tool" -> {
                    Assistant a = AiServices.builder(Assistant.class).chatModel(new ScriptedModel()).tools(new PaymentTools())
                            .chatMemoryProvider(id -> MessageWindowChatMemory.withMaxMessages(20)).build();
                    Console.line("RESULT lc4j: " + a.chat("lc4j-session", "charge my card"));
                }
                case "await" -> {
                    Path go = Path.of(c[1]);
                    Console.line("WAITING " + go);
                    while (!Files.exists(go)) Thread.sleep(20);
                }
                case "metrics" -> metrics();
                default -> throw new IllegalArgumentException("unknown command " + command);
            }
        }
        Console.line("END");
    }

    private static String invoke(Tools tools, String tool, String session, String json) {
        return switch (tool) {
            case "charge" -> tools.charge(session, json);
            case "delete_account" -> tools.deleteAccount(session, json);
            case "transfer" -> tools.transfer(session, json);
            case "refund" -> tools.refund(session, json);
            default -> throw new IllegalArgumentException("unknown tool " + tool);
        };
    }

    private static void call(Tools tools, String tool, String session, String json) {
        try {
            Console.line("RESULT " + tool + ": " + invoke(tools, tool, session, json));
        } catch (UnreadableException e) {
            Console.line("HOST CAUGHT " + e.getClass().getName());
        } catch (RuntimeException e) {
            Console.line("HOST CAUGHT " + e.getClass().getName() + ": " + e.getMessage());
        }
    }

    private static void calls(Tools tools, String tool, int n) {
        long before = RAN.get();
        String firstRefusal = null;
        int answered = 0;
        for (int i = 0; i < n; i++) {
            try {
                String r = invoke(tools, tool, "s" + (i % 3), "{\"n\":" + i + "}");
                answered++;
                if (firstRefusal == null && r.startsWith("tracegate")) firstRefusal = r;
            } catch (RuntimeException e) {
                if (firstRefusal == null) firstRefusal = e.getClass().getName() + ": " + e.getMessage();
            }
        }
        Console.line("RAN " + (RAN.get() - before) + " ANSWERED " + answered + " OF " + n);
        if (firstRefusal != null) Console.line("FIRST REFUSAL " + firstRefusal);
    }

    /** The agent's MBean, read by name: every attribute, maps flattened as name.key. */
    static void metrics() throws Exception {
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.tracegate:type=Supervisor");
        if (!server.isRegistered(name)) {
            Console.line("METRIC none");
            return;
        }
        Map<String, Object> values = new TreeMap<>();
        for (var a : server.getMBeanInfo(name).getAttributes()) {
            Object v = server.getAttribute(name, a.getName());
            if (v instanceof TabularData t) {
                for (Object row : t.values()) {
                    CompositeData d = (CompositeData) row;
                    values.put(a.getName() + "." + d.get("key"), d.get("value"));
                }
            } else {
                values.put(a.getName(), v);
            }
        }
        values.forEach((k, v) -> Console.line("METRIC " + k + "=" + v));
    }
}
