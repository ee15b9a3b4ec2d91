package demoapp.plain;

import java.util.HashSet;
import java.util.Set;

/**
 * Tool methods in the shapes plain Java gives them: a default method of an interface (the implementing class
 * declares nothing) and a method of a record (whose equals, hashCode, toString and accessors are no tools).
 * Knows nothing of tracegate.
 */
public final class ShapesApp {
    /** A tool written once, as a default method, for every bank. */
    public interface Payments {
        default String pay(String session, int amount) {
            return "PAID " + amount;
        }
    }

    static final class Bank implements Payments {
    }

    /** An order that can refund itself. */
    public record Order(String id, int amount) {
        public String refund(String session) {
            return "refunded " + id;
        }
    }

    /** A tool that returns an object, not text. */
    public static final class Vault {
        public java.util.Map<String, String> read(String session) {
            return java.util.Map.of("note", "secret 42");
        }
    }

    public static void main(String[] args) {
        System.out.println("PAY: " + new Bank().pay("s1", 5000));
        Order order = new Order("O1", 5);
        Set<Order> seen = new HashSet<>();
        seen.add(order);
        System.out.println("ORDER: " + order + " " + order.amount() + " " + seen.contains(new Order("O1", 5)) + " " + order.refund("s2"));
        try {
            System.out.println("VAULT: " + new Vault().read("s3"));
        } catch (RuntimeException e) {
            System.out.println("VAULT: " + e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }
}
