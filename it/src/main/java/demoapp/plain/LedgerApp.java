package demoapp.plain;

import demoapp.Console;

/**
 * A plain application whose ledger methods an operator names with {@code args=*} (all parameters by
 * name): an instance method with wide primitives (long and double take two local variable slots) and a
 * static one. The tests run it as Maven compiles it ({@code -parameters}) and compiled again without it.
 */
public final class LedgerApp {

    /** The methods the configuration names. */
    public static final class Ledger {
        public String transfer(String fromAccount, String toAccount, long amountCents, double rate) {
            Console.line("METHOD transfer ran from=" + fromAccount + " to=" + toAccount + " cents=" + amountCents + " rate=" + rate);
            return "moved " + amountCents;
        }

        public static String audit(int year, String auditor) {
            Console.line("METHOD audit ran year=" + year + " auditor=" + auditor);
            return "audited " + year;
        }
    }

    public static void main(String[] args) {
        try {
            Console.line("RESULT: " + new Ledger().transfer("acc-1", "acc-2", 1250L, 1.5));
            Console.line("RESULT: " + Ledger.audit(2026, "carol"));
        } catch (RuntimeException e) {
            Console.exception(e);
        }
    }
}
