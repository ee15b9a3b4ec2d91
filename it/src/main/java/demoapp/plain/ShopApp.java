package demoapp.plain;

import demoapp.Console;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A plain application whose methods an operator names in the agent's configuration (no framework).
 * Usage: {@code ShopApp run} runs the calls once; {@code ShopApp wait} prints its pid, then runs them for
 * each "go" line on standard input until "quit" (for attaching to a running JVM).
 */
public final class ShopApp {

    /** A payment service: a "tool" in the configuration. */
    public static final class Payments {
        public String charge(String customer, String detailsJson) {
            Console.line("METHOD charge ran customer=" + customer + " details=" + detailsJson);
            return "charged " + customer;
        }
    }

    /** Consent and erasure, mapped to CONSENT and ERASURE events in the configuration. */
    public static final class Privacy {
        public void grantConsent(String subject, String purpose) {
            Console.line("METHOD grantConsent ran subject=" + subject + " purpose=" + purpose);
        }

        public void erase(String subject) {
            Console.line("METHOD erase ran subject=" + subject);
        }
    }

    /** Tools that call each other and a privacy method: what runs inside another supervised call. */
    public static final class Bank {
        public String transfer(String customer, int amount) {
            Console.line("METHOD transfer ran customer=" + customer + " amount=" + amount);
            return "sent " + amount;
        }

        public String payBill(String customer, String bill) {
            Console.line("METHOD payBill ran customer=" + customer + " bill=" + bill);
            return "bill " + bill + " paid: " + transfer(customer, 900);
        }

        public String closeAccount(String customer) {
            new Privacy().erase(customer);
            return "closed " + customer;
        }
    }

    static void nested() {
        Bank bank = new Bank();
        try {
            Console.line("RESULT: " + bank.payBill("alice", "B7"));
            Console.line("RESULT: " + bank.closeAccount("alice"));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }

    static void scenario() {
        Privacy privacy = new Privacy();
        Payments payments = new Payments();
        try {
            privacy.grantConsent("alice", "billing");
            Console.line("RESULT: " + payments.charge("alice", "{\"amount\":12,\"card\":\"4111111111111111\"}"));
            privacy.erase("alice");
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }

    public static void main(String[] args) throws IOException {
        if (args.length > 0 && args[0].equals("wait")) {
            // load and run the classes once before any agent is attached, so attaching must retransform them
            new Payments();
            new Privacy();
            Console.line("READY pid=" + ProcessHandle.current().pid());
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            for (String line; (line = in.readLine()) != null && !line.equals("quit"); ) {
                if (line.equals("go")) {
                    scenario();
                    Console.line("DONE");
                }
            }
            return;
        }
        if (args.length > 0 && args[0].equals("nested")) {
            nested();
            return;
        }
        scenario();
    }
}
