// Outside dev.tracegate on purpose, like SupportTools: host application code, no tracegate import.
package example.host;

import dev.langchain4j.agent.tool.P;
import dev.langchain4j.agent.tool.Tool;

/**
 * The tools a LangChain4j AI service of the host offers its model: real {@code @Tool} methods, which
 * LangChain4j calls by reflection with the arguments the model asked for. They count their runs, so a
 * benchmark can tell a tool that ran from one whose call was blocked.
 */
public class AssistantTools {
    private long searches;
    private long refunds;
    private String lastQuery;

    /**
     * A read-only search with three arguments; of the ten contracts the benchmarks load (sop-refund and
     * bench/agent/support-desk.yaml), four check a search, and the benchmarks' arguments pass them all.
     */
    @Tool("Search the knowledge base")
    public String searchKb(@P("what to search for") String query, @P("most articles to return") int limit,
                           @P("language code") String lang) {
        searches++;
        lastQuery = query;
        return "found " + Math.min(limit, 3) + " articles";
    }

    /**
     * A refund; blocked while no approval happened in the conversation (sop-refund) and no order was looked up
     * in it (support-desk.yaml's support.refund-after-lookup).
     */
    @Tool("Refund an order")
    public String refund(@P("the order") String orderId, @P("amount in EUR") double amount) {
        refunds++;
        return "refunded";
    }

    /** How many times the search body ran. */
    public long searches() { return searches; }

    /** The query of the last search that ran, or null. */
    public String lastQuery() { return lastQuery; }

    /** How many times the refund body ran. */
    public long refunds() { return refunds; }
}
