package demoapp.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.TypeRef;
import io.modelcontextprotocol.spec.McpClientTransport;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.function.Function;

/** A client transport over a loopback socket (newline-delimited JSON-RPC, as stdio), so client and server can share one JVM. */
final class SocketClientTransport implements McpClientTransport {

    private final Socket socket;
    private final McpJsonMapper json;
    private final BufferedReader in;
    private final Writer out;
    private volatile boolean closed;

    SocketClientTransport(Socket socket, McpJsonMapper json) throws IOException {
        this.socket = socket;
        this.json = json;
        this.in = new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8));
        this.out = new OutputStreamWriter(socket.getOutputStream(), StandardCharsets.UTF_8);
    }

    @Override
    public Mono<Void> connect(Function<Mono<McpSchema.JSONRPCMessage>, Mono<McpSchema.JSONRPCMessage>> handler) {
        Thread reader = new Thread(() -> {
            try {
                for (String line; (line = in.readLine()) != null; ) {
                    handler.apply(Mono.just(McpSchema.deserializeJsonRpcMessage(json, line))).subscribe();
                }
            } catch (IOException e) {
                if (!closed) {
                    e.printStackTrace();
                }
            }
        }, "mcp-client-reader");
        reader.setDaemon(true);
        reader.start();
        return Mono.empty();
    }

    @Override
    public Mono<Void> sendMessage(McpSchema.JSONRPCMessage message) {
        return Mono.fromRunnable(() -> {
            try {
                String text = json.writeValueAsString(message);
                synchronized (out) {
                    out.write(text);
                    out.write('\n');
                    out.flush();
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        });
    }

    @Override
    public Mono<Void> closeGracefully() {
        return Mono.fromRunnable(() -> {
            closed = true;
            try {
                socket.close();
            } catch (IOException ignored) {
                // closing anyway
            }
        });
    }

    @Override
    public <T> T unmarshalFrom(Object data, TypeRef<T> type) {
        return json.convertValue(data, type);
    }
}
