package demoquarkus;

import dev.langchain4j.agent.tool.Tool;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

@ApplicationScoped
public class ShopTools {
    static final ConcurrentHashMap<String, AtomicInteger> RUNS = new ConcurrentHashMap<>();

    static void ran(String tool) { RUNS.computeIfAbsent(tool, k -> new AtomicInteger()).incrementAndGet(); }

    static String runs() {
        Map<String, Integer> m = new TreeMap<>();
        RUNS.forEach((k, v) -> m.put(k, v.get()));
        return m.toString();
    }

    @Tool("Look up an order by id")
    public String lookupOrder(String orderId) {
        ran("lookupOrder");
        return "order " + orderId + ": shipped";
    }

    @Tool("Delete the user's account")
    public String deleteAccount(String user) {
        ran("deleteAccount");
        return "deleted " + user;
    }

    @Tool("Deactivate the user's account (it can be restored)")
    public String deactivateAccount(String user) {
        ran("deactivateAccount");
        return "deactivated " + user;
    }
}
