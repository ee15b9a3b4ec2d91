package demoapp.plain;

import demoapp.Console;

import java.util.HashMap;
import java.util.Map;

/**
 * A plain-Java agent loop whose tools go through one registry, {@code ToolRegistry#invoke(session, tool, args)}, and
 * whose privacy service records consents and erasures with methods that take no conversation id
 * ({@code Privacy#erase(subject)}, {@code Privacy#grant(subject, purpose)}), as agent/CONFIG.md's examples configure them
 * (trial21 07 and 11). Each argument is one step, run in order on the main thread unless it says otherwise:
 * <ul>
 *   <li>{@code call:SESSION:TOOL:CUSTOMER}: a tool call; the tool {@code forget} erases its customer from inside the tool;</li>
 *   <li>{@code erase:SUBJECT}, {@code grant:SUBJECT:PURPOSE}: an erasure or a consent between two calls of the loop;</li>
 *   <li>{@code form-erase:SUBJECT}, {@code form-grant:SUBJECT:PURPOSE}: the same on a thread of its own that runs no tool
 *   call (a consent form, an erasure job).</li>
 * </ul>
 * Prints {@code STEP n WHAT = RESULT} (or {@code ! EXCEPTION}) for each.
 */
public final class PrivacyLoopApp {

    /** The privacy service: stores consents and deletes customers (here: does nothing). */
    public static final class Privacy {
        public void erase(String subject) {
        }

        public void grant(String subject, String purpose) {
        }
    }

    /** The tools the loop calls. */
    public static final class ToolRegistry {
        private final Privacy privacy;

        ToolRegistry(Privacy privacy) {
            this.privacy = privacy;
        }

        public String invoke(String session, String tool, Map<String, Object> args) {
            if (tool.equals("forget")) {
                privacy.erase((String) args.get("customer"));
                return "forgot " + args.get("customer");
            }
            return "ok:" + tool + " " + args.get("customer");
        }
    }

    public static void main(String[] args) throws InterruptedException {
        Privacy privacy = new Privacy();
        ToolRegistry tools = new ToolRegistry(privacy);
        for (int i = 0; i < args.length; i++) {
            String[] p = args[i].split(":");
            String step = "STEP " + (i + 1) + " " + args[i];
            Runnable body = switch (p[0]) {
                case "call" -> () -> {
                    Map<String, Object> a = new HashMap<>();
                    a.put("customer", p[3]);
                    Console.line(step + " = " + tools.invoke(p[1], p[2], a));
                };
                case "erase", "form-erase" -> () -> {
                    privacy.erase(p[1]);
                    Console.line(step + " = erased");
                };
                case "grant", "form-grant" -> () -> {
                    privacy.grant(p[1], p[2]);
                    Console.line(step + " = granted");
                };
                default -> throw new IllegalArgumentException("unknown step " + args[i]);
            };
            Runnable guarded = () -> {
                try {
                    body.run();
                } catch (RuntimeException e) {
                    Console.line(step + " ! " + e);
                }
            };
            if (p[0].startsWith("form-")) {
                Thread form = new Thread(guarded, "consent-form");
                form.start();
                form.join();
            } else {
                guarded.run();
            }
        }
    }
}
