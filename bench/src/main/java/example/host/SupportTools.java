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

    /** A read-only tool with three arguments; no contract of the library objects to it. */
    public String searchKb(String session, String query, int limit, String lang) {
        searches++;
        return "found " + Math.min(limit, 3) + " articles";
    }

    /** A refund; the sop-refund library blocks it while no approval happened in the session. */
    public String refund(String session, String orderId, double amount) {
        return "refunded";
    }

    public int searches() { return searches; }
}
