// Outside dev.tracegate on purpose: the agent never instruments its own packages, and a host
// application's classes are not ours either.
package example.host;

/**
 * Tool methods of a host application as the agent sees them: plain methods, no tracegate import.
 * bench/agent/tracegate.yaml names them as configured methods, so with the agent attached every call
 * becomes a CALL event of its session (parameter 0).
 */
public class SupportTools {
    private int searches;

    /**
     * A read-only tool with three arguments; of the ten contracts the benchmarks load (sop-refund and
     * bench/agent/support-desk.yaml), four check a search, and the benchmarks' arguments pass them all.
     */
    public String searchKb(String session, String query, int limit, String lang) {
        searches++;
        return "found " + Math.min(limit, 3) + " articles";
    }

    /**
     * A refund; blocked while no approval happened in the session (sop-refund) and no order was looked up
     * in it (support-desk.yaml's support.refund-after-lookup).
     */
    public String refund(String session, String orderId, double amount) {
        // the answer depends on an argument, as a real tool's does: with a constant answer the JIT folded the
        // detached benchmark's call away (0.4 ns) and the row measured nothing
        return amount > 0 ? "refunded" : "nothing to refund";
    }

    public int searches() { return searches; }
}
