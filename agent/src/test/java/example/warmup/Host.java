// Outside dev.tracegate on purpose: the agent never instruments its own packages, and a host application's
// classes are not ours either.
package example.warmup;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * A host application of the forked agent tests: no tracegate import. With -Dhost.wait=true it waits for a line on standard input
 * ("go" when the test wants it to go on), then calls its one tool method once and prints what the agent's MBean
 * counts, if it is there.
 */
public final class Host {
    public static void main(String[] args) throws Exception {
        if (Boolean.getBoolean("host.wait")) {
            new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        }
        System.out.println("lookup: " + new Host().lookup("host-session", "order 4711"));
        MBeanServer server = ManagementFactory.getPlatformMBeanServer();
        ObjectName name = new ObjectName("dev.tracegate:type=Supervisor");
        if (server.isRegistered(name)) {
            System.out.println("events=" + server.getAttribute(name, "Events") + " sessions=" + server.getAttribute(name, "Sessions"));
        }
        System.out.println("host ran");
    }

    /** The tool the configuration names. */
    public String lookup(String session, String query) {
        return "found " + query;
    }
}
