package demoapp.configured;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * An in-house agent's tool dispatcher with two overloads, one delegating to the other ({@code invoke(name, json)} parses
 * and calls {@code invoke(name, map)}), whose tools may dispatch further tools through it ({@code payBill} dispatches a
 * {@code transfer}). Each program argument {@code tool:json} or {@code tool:map} dispatches a tool through that
 * overload and prints {@code <tool> => <result>} (or {@code <tool> threw <exception>}). It knows nothing of any agent.
 */
public final class DispatcherApp {
    private DispatcherApp() {
    }

    public static final class Dispatcher {
        public String invoke(String name, String json) {
            return invoke(name, parse(json));
        }

        public String invoke(String name, Map<String, Object> args) {
            switch (name) {
                case "email":
                    return "sent mail to " + args.get("to");
                case "payBill":
                    return "paid bill " + args.get("bill") + ": " + invoke("transfer", "{\"amount\":\"" + args.get("amount") + "\"}");
                case "transfer":
                    return "transferred " + args.get("amount");
                default:
                    return "no such tool " + name;
            }
        }

        /** A flat JSON object of text values, as the vendor's own parser reads it. */
        private static Map<String, Object> parse(String json) {
            Map<String, Object> out = new LinkedHashMap<>();
            String body = json.strip();
            body = body.substring(1, body.length() - 1).strip();
            if (body.isEmpty()) return out;
            for (String pair : body.split(",")) {
                String[] kv = pair.split(":", 2);
                out.put(unquote(kv[0]), unquote(kv[1]));
            }
            return out;
        }

        private static String unquote(String s) {
            s = s.strip();
            return s.startsWith("\"") ? s.substring(1, s.length() - 1) : s;
        }
    }

    public static void main(String[] args) {
        Dispatcher d = new Dispatcher();
        for (String step : args) {
            String[] p = step.split(":", 2);
            String tool = p[0];
            String json = tool.equals("email") ? "{\"to\":\"a@b.c\"}" : "{\"bill\":\"B-7\",\"amount\":\"40\"}";
            try {
                String out = p[1].equals("json") ? d.invoke(tool, json) : d.invoke(tool, Dispatcher.parse(json));
                System.out.println(tool + " => " + out);
            } catch (RuntimeException e) {
                System.out.println(tool + " threw " + e);
            }
        }
    }
}
