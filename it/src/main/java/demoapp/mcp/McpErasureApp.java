package demoapp.mcp;

import io.modelcontextprotocol.json.McpJsonMapper;
import io.modelcontextprotocol.json.jackson3.JacksonMcpJsonMapper;
import io.modelcontextprotocol.server.McpServer;
import io.modelcontextprotocol.server.McpServerFeatures;
import io.modelcontextprotocol.server.transport.StdioServerTransportProvider;
import io.modelcontextprotocol.spec.McpSchema;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;
import tools.jackson.databind.json.JsonMapper;

import java.time.Duration;
import java.util.Map;

/**
 * A stdio MCP server whose tool {@code forget(email)} calls a plain-Java privacy service ({@link Privacy#forget}, which
 * knows no conversation id), and {@code sendNewsletter(email)}. Usage: {@code McpErasureApp sync | immediate | async |
 * async-callable | async-elastic | async-delay}: a sync server (its handlers on Reactor's bounded elastic threads), a sync
 * server with {@code immediateExecution(true)} (on the transport's thread), or an async server whose handler does its work
 * when it is called and returns {@code Mono.just(result)}, or returns a Mono that does the work when subscribed
 * ({@link #handler}). Run it under {@code McpApp calls}. Its own lines go to standard error.
 */
public final class McpErasureApp {

    private static final McpJsonMapper JSON = new JacksonMcpJsonMapper(JsonMapper.builder().build());
    private static final String SCHEMA = "{\"type\":\"object\",\"properties\":{\"email\":{\"type\":\"string\"}}}";

    /** The application's privacy service: its API has no conversation. */
    public static final class Privacy {
        public static void forget(String email) {
            System.err.println("PRIVACY forget " + email + " on " + Thread.currentThread().getName());
        }
    }

    static McpSchema.CallToolResult run(String tool, Map<String, Object> arguments) {
        String email = String.valueOf(arguments.get("email"));
        if (tool.equals("forget")) {
            Privacy.forget(email);
            return McpSchema.CallToolResult.builder().addTextContent("erasure requested").isError(false).build();
        }
        System.err.println("TOOL sendNewsletter ran");
        return McpSchema.CallToolResult.builder().addTextContent("newsletter sent").isError(false).build();
    }

    /**
     * An async handler's Mono: {@code async} does the work when called ({@code Mono.just}); the others when the Mono is
     * subscribed: {@code async-callable} on the subscribing thread ({@code Mono.fromCallable}), {@code async-elastic} on a
     * bounded elastic thread ({@code subscribeOn}), {@code async-delay} on a parallel thread after a delay
     * ({@code Mono.delay(...).map}).
     */
    static Mono<McpSchema.CallToolResult> handler(String mode, String tool, Map<String, Object> arguments) {
        switch (mode) {
            case "async":
                return Mono.just(run(tool, arguments));
            case "async-callable":
                return Mono.fromCallable(() -> run(tool, arguments));
            case "async-elastic":
                return Mono.fromCallable(() -> run(tool, arguments)).subscribeOn(Schedulers.boundedElastic());
            case "async-delay":
                return Mono.delay(Duration.ofMillis(5)).map(tick -> run(tool, arguments));
            default:
                throw new IllegalArgumentException("unknown mode " + mode);
        }
    }

    private static McpSchema.Tool tool(String name) {
        return McpSchema.Tool.builder().name(name).description(name).inputSchema(JSON, SCHEMA).build();
    }

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "sync";
        StdioServerTransportProvider transport = new StdioServerTransportProvider(JSON);
        if (mode.startsWith("async")) {
            McpServer.async(transport).serverInfo("erasure-" + mode, "1").jsonMapper(JSON)
                    .tools(McpServerFeatures.AsyncToolSpecification.builder().tool(tool("forget"))
                                    .callHandler((exchange, request) -> handler(mode, "forget", request.arguments())).build(),
                            McpServerFeatures.AsyncToolSpecification.builder().tool(tool("sendNewsletter"))
                                    .callHandler((exchange, request) -> handler(mode, "sendNewsletter", request.arguments())).build())
                    .build();
        } else {
            McpServer.sync(transport).serverInfo("erasure-sync", "1").jsonMapper(JSON).immediateExecution(mode.equals("immediate"))
                    .tools(McpServerFeatures.SyncToolSpecification.builder().tool(tool("forget"))
                                    .callHandler((exchange, request) -> run("forget", request.arguments())).build(),
                            McpServerFeatures.SyncToolSpecification.builder().tool(tool("sendNewsletter"))
                                    .callHandler((exchange, request) -> run("sendNewsletter", request.arguments())).build())
                    .build();
        }
        System.err.println("SERVER READY " + mode);
        Thread.sleep(Long.MAX_VALUE); // the client ends this process when it closes the transport
    }
}
