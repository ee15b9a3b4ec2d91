package demoapp.plain;

/**
 * A configured tool whose argument the agent cannot write (its getter and toString throw), then one whose contract needs
 * that tool to have returned first: under fail: open the first call runs unsupervised and must not count.
 */
public final class UnwritableArgumentApp {

    /** An argument nothing can read. */
    public static final class Unreadable {
        public String getName() {
            throw new IllegalStateException("getter");
        }

        @Override
        public String toString() {
            throw new IllegalStateException("toString");
        }
    }

    /** The configured tools. */
    public static final class Tools {
        public String verify(String session, Unreadable who) {
            return "verified";
        }

        public String pay(String session, String who) {
            return "paid " + who;
        }
    }

    public static void main(String[] args) {
        Tools tools = new Tools();
        System.out.println("verify -> " + tools.verify("s", new Unreadable()));
        System.out.println("pay -> " + tools.pay("s", "bob"));
    }
}
