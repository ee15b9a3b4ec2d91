package demoapp.hardening;

/**
 * A host whose configured tools ({@code class: demoapp.hardening.ValueShapesApp$Tools, method: "*"}) take and return
 * values of awkward shapes: a recursion that overflows the stack, and what the agent's JSON writer must not choke on
 * or change. Each argument is a command; each prints one line.
 */
public final class ValueShapesApp {
    private ValueShapesApp() {
    }

    /** The configured methods. */
    public static final class Tools {
        public int rec(String session, int n) {
            return rec(session, n + 1) + 1;
        }

        public String forbidden(String session) {
            return "FORBIDDEN RAN";
        }
    }

    static int pad(int frames, Tools tools) {
        if (frames == 0) {
            try {
                tools.rec("s1", 0);
            } catch (StackOverflowError expected) {
                // the host's own recovery
            }
            return 0;
        }
        return pad(frames - 1, tools) + 1;
    }

    public static void main(String[] args) {
        Tools tools = new Tools();
        for (String command : args) {
            switch (command) {
                case "overflow" -> {
                    // the overflow starts from 60 stack depths, so that it strikes every part of the woven advice
                    int blocked = 0, ran = 0;
                    for (int frames = 0; frames < 60; frames++) {
                        pad(frames, tools);
                        String r;
                        try {
                            r = tools.forbidden("s1");
                        } catch (RuntimeException refused) {
                            r = "refused: " + refused.getMessage();
                        }
                        if (r.contains("FORBIDDEN RAN")) ran++;
                        else blocked++;
                    }
                    System.out.println("overflow: blocked=" + blocked + " ran=" + ran);
                }
                default -> throw new IllegalArgumentException("unknown command " + command);
            }
        }
    }
}
