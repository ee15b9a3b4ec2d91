package demoapp.configured;

/**
 * A closed-source agent's tools as trial30 met them: each takes the vendor's context object first, which keeps the
 * conversation id in a field and has no toString() of its own, and a transfer takes a record. Each program argument
 * {@code tool:session:value} calls a tool and prints {@code <tool> => <result>} (or {@code <tool> threw <exception>}).
 * It knows nothing of any agent.
 */
public final class VendorCtxApp {
    private VendorCtxApp() {
    }

    /** Conversation context, no toString(). */
    public static final class Ctx {
        public final String sessionId;
        private final String user;

        Ctx(String sessionId, String user) {
            this.sessionId = sessionId;
            this.user = user;
        }
    }

    public record TransferReq(String to, long amount) { }

    public static final class Crm {
        public String lookupCustomer(Ctx ctx, String id) {
            return "customer " + id;
        }
    }

    public static final class Bank {
        public String transfer(Ctx ctx, TransferReq req) {
            return "transferred " + req.amount() + " to " + req.to();
        }
    }

    public static void main(String[] args) {
        Crm crm = new Crm();
        Bank bank = new Bank();
        for (String step : args) {
            String[] p = step.split(":", 3);
            Ctx ctx = new Ctx(p[1], "user-" + p[1]);
            try {
                String out = p[0].equals("lookup") ? crm.lookupCustomer(ctx, p[2]) : bank.transfer(ctx, new TransferReq("bob", Long.parseLong(p[2])));
                System.out.println(p[0] + " => " + out);
            } catch (RuntimeException e) {
                System.out.println(p[0] + " threw " + e.getClass().getName() + ": " + e.getMessage());
            }
        }
    }
}
