package demoapp.plain;

/**
 * A configured tool whose argument the agent cannot write (reading its elements throws), then one whose contract needs
 * that tool to have returned first: under fail: open the first call runs unsupervised and must not count.
 */
public final class UnwritableArgumentApp {

    /** An argument nothing can read: a collection whose elements fail (the agent calls no bean getter since trial14). */
    public static final class Unreadable extends java.util.AbstractList<String> {
        @Override
        public String get(int index) {
            throw new IllegalStateException("element");
        }

        @Override
        public int size() {
            return 1;
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
