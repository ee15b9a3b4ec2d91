package demoapp.mcp;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.modelcontextprotocol.common.McpTransportContext;
import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.server.McpStatelessServerHandler;
import io.modelcontextprotocol.spec.McpSchema;
import io.modelcontextprotocol.spec.McpStatelessServerTransport;
import reactor.core.publisher.Mono;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.Executors;

/**
 * A stateless streamable-HTTP server transport on the JDK's HTTP server: each POST to {@code /mcp} is one JSON-RPC
 * message answered with {@code application/json} (no session, no server-sent events; GET is refused with 405, which
 * clients accept). The transport context of each request holds the {@code X-Conversation-Id} header, when the
 * client sends one, under the key the supervising agent documents, as an application's context extractor would (a header
 * starting with {@value #OPAQUE} as an object that cannot be printed).
 */
final class HttpStatelessTransport implements McpStatelessServerTransport {

    /** The header this application trusts to name a conversation. */
    static final String CONVERSATION_HEADER = "X-Conversation-Id";
    /** Where the agent looks for a stateless call's session (agent/README.md); a string, so no tracegate import. */
    static final String SESSION_KEY = "tracegate.session";

    /** A conversation header with this prefix is kept as an {@link OpaqueConversation} (fault injection: hardening tests). */
    static final String OPAQUE = "opaque:";

    /** A conversation handle the application keeps but never prints (its {@code toString} refuses). */
    static final class OpaqueConversation {
        private final String id;

        OpaqueConversation(String id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof OpaqueConversation c && c.id.equals(id);
        }

        @Override
        public int hashCode() {
            return id.hashCode();
        }

        @Override
        public String toString() {
            throw new IllegalStateException("conversation handles are never printed");
        }
    }

    private final McpJsonMapper json;
    private final HttpServer http;
    private volatile McpStatelessServerHandler handler;

    HttpStatelessTransport(McpJsonMapper json) throws IOException {
        this.json = json;
        this.http = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        this.http.setExecutor(Executors.newFixedThreadPool(4));
        this.http.createContext("/mcp", this::serve);
    }

    int start() {
        http.start();
        return http.getAddress().getPort();
    }

    @Override
    public void setMcpHandler(McpStatelessServerHandler handler) {
        this.handler = handler;
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> http.stop(0));
    }

    private void serve(HttpExchange exchange) throws IOException {
        try {
            if (!exchange.getRequestMethod().equals("POST")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            String conversation = exchange.getRequestHeaders().getFirst(CONVERSATION_HEADER);
            Object session = conversation != null && conversation.startsWith(OPAQUE) ? new OpaqueConversation(conversation) : conversation;
            McpTransportContext context = session == null ? McpTransportContext.EMPTY
                    : McpTransportContext.create(Map.of(SESSION_KEY, session));
            String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
            McpSchema.JSONRPCMessage message = McpSchema.deserializeJsonRpcMessage(json, body);
            if (message instanceof McpSchema.JSONRPCRequest) {
                McpSchema.JSONRPCResponse response = handler.handleRequest(context, (McpSchema.JSONRPCRequest) message).block();
                byte[] out = json.writeValueAsString(response).getBytes(StandardCharsets.UTF_8);
                exchange.getResponseHeaders().set("Content-Type", "application/json");
                exchange.sendResponseHeaders(200, out.length);
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(out);
                }
            } else if (message instanceof McpSchema.JSONRPCNotification) {
                handler.handleNotification(context, (McpSchema.JSONRPCNotification) message).block();
                exchange.sendResponseHeaders(202, -1);
            } else {
                exchange.sendResponseHeaders(400, -1);
            }
        } catch (RuntimeException e) {
            e.printStackTrace();
            exchange.sendResponseHeaders(500, -1);
        } finally {
            exchange.close();
        }
    }
}
