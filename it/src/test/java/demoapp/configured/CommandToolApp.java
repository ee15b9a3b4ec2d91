package demoapp.configured;

import java.lang.reflect.Field;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Two tool shapes whose input or name is not in a parameter of the method that runs the tool. A command object, as the
 * Anthropic Java SDK's BetaToolRunner uses: a {@code Supplier<String>} tool class whose public fields the runner fills
 * from the model's input (by reflection, as the SDK's JSON mapper does), then {@code get()}. And a dispatcher, as Google
 * ADK's {@code Functions.callTool(BaseTool, Map, ToolContext)}: it receives the tool object, whose {@code name()} names the
 * tool. And a hand-written tool loop's dispatcher that gets the model's input as the JSON library's tree, as one over the
 * Anthropic SDK gets {@code ToolUseBlock._input()} (here the application's own Jackson {@code JsonNode}). Each program
 * argument is {@code conversation:tool:key=value,...} ({@code conversation:pay:<JSON>} for the loop); each call prints
 * {@code <tool> => <result>}.
 * It knows nothing of any agent.
 */
public final class CommandToolApp {
    private CommandToolApp() {
    }

    /** The conversation a tool object belongs to: its id only through a getter. */
    public static final class Conversation {
        private final String key;
        Conversation(String key) { this.key = key; }
        public String id() { return key; }
    }

    /** A command-pattern tool: its input sits in its fields. */
    public static final class SendEmail implements Supplier<String> {
        public String to;
        public String body;
        Conversation conversation;

        @Override
        public String get() {
            return "sent to " + to;
        }
    }

    /** A tool object that a dispatcher receives: its name() names the tool. */
    public abstract static class BaseTool {
        private final String name;
        BaseTool(String name) { this.name = name; }
        public String name() { return name; }
        abstract String run(Map<String, Object> args);
    }

    static final class Lookup extends BaseTool {
        Lookup() { super("lookup"); }
        @Override String run(Map<String, Object> args) { return "customer " + args.get("customer"); }
    }

    /** The framework's per-call context. */
    public static final class ToolContext {
        private final String session;
        ToolContext(String session) { this.session = session; }
        public String sessionId() { return session; }
    }

    /** The framework's call site: one method for every tool. */
    public static final class Functions {
        public static String callTool(BaseTool tool, Map<String, Object> args, ToolContext ctx) {
            return tool.run(args);
        }
    }

    /** A hand-written loop's dispatcher: the model's input as it came, a JSON tree. */
    public static final class Loop {
        public static String dispatch(String conversationId, String tool, com.fasterxml.jackson.databind.JsonNode input) {
            return "paid " + input.get("amount").asInt() + " to " + input.get("recipient").asText();
        }
    }

    /** What the SDK's tool runner does: a fresh tool object, its fields filled from the model's input, then get(). */
    static String runCommand(String conversation, Map<String, Object> input) throws ReflectiveOperationException {
        SendEmail tool = new SendEmail();
        for (Map.Entry<String, Object> e : input.entrySet()) {
            Field f = SendEmail.class.getField(e.getKey());
            f.set(tool, e.getValue());
        }
        tool.conversation = new Conversation(conversation);
        return tool.get();
    }

    public static void main(String[] args) throws Exception {
        for (String step : args) {
            String[] p = step.split(":", 3);
            if (p[1].equals("pay")) {
                String out;
                try {
                    out = Loop.dispatch(p[0], "pay", new com.fasterxml.jackson.databind.ObjectMapper().readTree(p[2]));
                } catch (RuntimeException e) {
                    out = "threw " + e;
                }
                System.out.println("pay => " + out);
                continue;
            }
            Map<String, Object> input = new LinkedHashMap<>();
            for (String kv : p[2].split(",")) {
                String[] pair = kv.split("=", 2);
                input.put(pair[0], pair[1]);
            }
            String out;
            try {
                out = p[1].equals("send_email") ? runCommand(p[0], input) : Functions.callTool(new Lookup(), input, new ToolContext(p[0]));
            } catch (RuntimeException e) {
                out = "threw " + e;
            }
            System.out.println(p[1] + " => " + out);
        }
    }
}
