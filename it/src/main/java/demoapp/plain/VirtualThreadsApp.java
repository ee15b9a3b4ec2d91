package demoapp.plain;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.util.function.Function;

/**
 * A server shape of Java 21 and later: every request on a new virtual thread, each calling one tool method. Prints
 * the bytes allocated per request (all threads, measured after a warm-up), so that a test can compare the same
 * requests with and without an agent. Knows nothing of tracegate; started with Java 21+ (reflection keeps it
 * compilable for 17).
 */
public final class VirtualThreadsApp {
    /** The tool each request calls. */
    public static final class Desk {
        public String lookup(String session, String query, int limit) {
            return "found " + limit + " for " + query;
        }
    }

    public static void main(String[] args) throws Exception {
        int requests = Integer.parseInt(args[0]);
        Desk desk = new Desk();
        Method ofVirtual = Thread.class.getMethod("ofVirtual");
        Object builder = ofVirtual.invoke(null);
        Method start = Class.forName("java.lang.Thread$Builder").getMethod("start", Runnable.class);
        Method total = com.sun.management.ThreadMXBean.class.getMethod("getTotalThreadAllocatedBytes");
        Object mx = ManagementFactory.getThreadMXBean();
        Function<Integer, Long> run = n -> {
            try {
                long before = (Long) total.invoke(mx);
                for (int i = 0; i < n; i++) {
                    String session = "req-" + (i % 64);
                    Thread t = (Thread) start.invoke(builder, (Runnable) () -> desk.lookup(session, "refund policy", 5));
                    t.join();
                }
                return ((Long) total.invoke(mx) - before) / n;
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        };
        run.apply(requests);   // warm-up: classes, JIT, the agent's pools
        System.out.println("BYTES PER REQUEST " + run.apply(requests));
    }
}
