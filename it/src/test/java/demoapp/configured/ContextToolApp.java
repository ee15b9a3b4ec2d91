package demoapp.configured;

import java.util.ArrayList;
import java.util.List;

/**
 * Tools in the shape of Google ADK's function tools: a static method whose last parameter is the framework's context
 * ({@code ToolContext}), which gives the conversation id through a getter and holds the framework's services, whose object
 * graph has a cycle (as ADK's holds a Jackson ObjectMapper). Each program argument {@code session:recipient:amount} calls
 * {@code sendMoney} in that conversation and prints {@code sendMoney => <result>} (or {@code sendMoney threw <exception>}).
 * It knows nothing of any agent.
 */
public final class ContextToolApp {
    private ContextToolApp() {
    }

    /** The framework's session. */
    public static final class Session {
        private final String id;
        Session(String id) { this.id = id; }
        public String id() { return id; }
    }

    /** A service registry that refers back to itself through its services, as a mapper's caches do. */
    public static final class Services {
        final List<Object> registered = new ArrayList<>();
        Services() { registered.add(this); }
    }

    /** The invocation: its session and the framework's services. */
    public static final class InvocationContext {
        final Session session;
        final Services services;
        InvocationContext(Session session, Services services) {
            this.session = session;
            this.services = services;
        }
    }

    /** What the framework hands a tool: no field holds the id, a getter gives it. */
    public static final class ToolContext {
        private final InvocationContext invocation;
        ToolContext(InvocationContext invocation) { this.invocation = invocation; }
        public String sessionId() { return invocation.session.id(); }
    }

    public static final class Tools {
        public static String sendMoney(String recipient, int amount, ToolContext toolContext) {
            return "sent " + amount + " to " + recipient + " in " + toolContext.sessionId();
        }
    }

    public static void main(String[] args) {
        Services services = new Services();
        for (String step : args) {
            String[] p = step.split(":", 3);
            ToolContext context = new ToolContext(new InvocationContext(new Session(p[0]), services));
            try {
                System.out.println("sendMoney => " + Tools.sendMoney(p[1], Integer.parseInt(p[2]), context));
            } catch (RuntimeException e) {
                System.out.println("sendMoney threw " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
    }
}
