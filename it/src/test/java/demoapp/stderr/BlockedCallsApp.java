package demoapp.stderr;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import javax.management.ObjectName;

/**
 * A host that calls {@code Bank.transfer} (a configured method the test's library refuses) as often as its argument
 * says, session {@code s0}, {@code s1}, ... one per call, then prints {@code calls returned: N stderr lines dropped: D}
 * (D read over plain JMX from {@code dev.tracegate:type=Supervisor}) and waits for a line on standard input before it
 * ends. It knows nothing of any agent.
 */
public final class BlockedCallsApp {
    private BlockedCallsApp() {
    }

    /** The tool. */
    public static final class Bank {
        public String transfer(String session, String to, int amount) {
            return "sent " + amount + " to " + to;
        }
    }

    public static void main(String[] args) throws Exception {
        int calls = Integer.parseInt(args[0]);
        Bank bank = new Bank();
        int returned = 0;
        for (int i = 0; i < calls; i++) {
            bank.transfer("s" + i, "alice", 10);
            returned++;
        }
        Object dropped = ManagementFactory.getPlatformMBeanServer().getAttribute(new ObjectName("dev.tracegate:type=Supervisor"), "StderrLinesDropped");
        System.out.println("calls returned: " + returned + " stderr lines dropped: " + dropped);
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
}
