package demoapp;

import java.time.Duration;

/** How long the applications under test wait for a peer before they give up and say so. */
public final class Patience {
    /**
     * An MCP client's initialization and each of its requests (a LangChain4j MCP client's tool execution too), and the
     * wait for a stopped stdio server's last lines. The server is a JVM of its own, started under the agent: on a loaded
     * host (load 40, two cores) its start alone took over the 60 s these waits were before, and the tests failed
     * ("Client failed to initialize by explicit API call"). A server that really hangs (the agent holding a call) still
     * ends the wait here, with the client's exception in its output, well before the test harness gives up on the whole
     * JVM (dev.tracegate.it.ForkedJvm, 600 s by default).
     */
    public static final Duration PEER = Duration.ofSeconds(240);

    private Patience() {
    }
}
