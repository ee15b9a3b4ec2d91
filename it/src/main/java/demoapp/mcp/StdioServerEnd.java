package demoapp.mcp;

import io.modelcontextprotocol.client.transport.StdioClientTransport;
import reactor.core.Scannable;


/** How an MCP client of these apps ends the stdio server it started, without losing the server's last lines. */
final class StdioServerEnd {
    private StdioServerEnd() {
    }

    /**
     * Stops the server process this client started (SIGTERM: its JVM exits as on any stop, and an agent in it writes the
     * lines it still holds) and waits until {@code transport} has relayed the server's standard error to its end. The
     * transport stops relaying once the client closes it, so closing before that loses the server's last lines (the tool
     * ran, the agent's decision), which are written beside the answer, not before it.
     */
    static void stopAndDrain(StdioClientTransport transport) throws InterruptedException {
        ProcessHandle.current().children().forEach(ProcessHandle::destroy);
        long deadline = System.nanoTime() + demoapp.Patience.PEER.toNanos();   // only stops a hang
        while (!Boolean.TRUE.equals(transport.getErrorSink().scan(Scannable.Attr.TERMINATED)) && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
    }
}
