package demoapp.configured;

import java.util.Map;

/**
 * An in-house agent whose tools extend an abstract base class with a final template method: {@code BaseTool#execute(Ctx,
 * Map)} counts the turn and calls the subclass's {@code doRun(Map)}. The loop runs {@code refund} in conversation c1 and
 * {@code weather} in c2, printing {@code <tool> => <result>} (or {@code <tool> threw <exception>}). It knows nothing of
 * any agent.
 */
public final class TemplateToolsApp {
    private TemplateToolsApp() {
    }

    public static final class Ctx {
        final String sessionId;
        int turn;

        Ctx(String sessionId) {
            this.sessionId = sessionId;
        }
    }

    public abstract static class BaseTool {
        public abstract String name();

        public final String execute(Ctx ctx, Map<String, Object> args) {
            ctx.turn++;
            return "[" + name() + "] " + doRun(args);
        }

        protected abstract String doRun(Map<String, Object> args);
    }

    public static final class RefundTool extends BaseTool {
        public String name() {
            return "refund";
        }

        protected String doRun(Map<String, Object> args) {
            return "refunded " + args.get("amount");
        }
    }

    public static final class WeatherTool extends BaseTool {
        public String name() {
            return "weather";
        }

        protected String doRun(Map<String, Object> args) {
            return "sunny in " + args.get("city");
        }
    }

    public static void main(String[] a) {
        run(new RefundTool(), new Ctx("c1"), Map.of("amount", 30));
        run(new WeatherTool(), new Ctx("c2"), Map.of("city", "Oslo"));
    }

    private static void run(BaseTool tool, Ctx ctx, Map<String, Object> args) {
        try {
            System.out.println(tool.name() + " => " + tool.execute(ctx, args));
        } catch (RuntimeException e) {
            System.out.println(tool.name() + " threw " + e);
        }
    }
}
